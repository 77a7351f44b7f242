// SPDX-License-Identifier: GPL-2.0
/* SYN extraction from capture files (pcap_syns.h). */
#include "pcap_syns.h"

#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>

/* Where the IP header starts for link type @dlt, or -1 if the frame is not IP. */
static long ip_offset(int dlt, const uint8_t *p, size_t len)
{
	size_t off;
	uint16_t et;

	switch (dlt) {
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
		return 0;
	case DLT_NULL:
		return len >= 4 ? 4 : -1;
	case DLT_LINUX_SLL:
		if (len < 16)
			return -1;
		et = (uint16_t)(p[14] << 8 | p[15]);
		off = 16;
		break;
	case DLT_EN10MB:
		if (len < 14)
			return -1;
		et = (uint16_t)(p[12] << 8 | p[13]);
		off = 14;
		break;
	default:
		return -1;
	}
	while ((et == 0x8100 || et == 0x88a8) && off + 4 <= len) {
		et = (uint16_t)(p[off + 2] << 8 | p[off + 3]);
		off += 4;
	}
	return et == 0x0800 || et == 0x86dd ? (long)off : -1;
}

static int supported(int dlt)
{
	return dlt == DLT_EN10MB || dlt == DLT_RAW || dlt == DLT_IPV4 || dlt == DLT_IPV6 ||
	       dlt == DLT_LINUX_SLL || dlt == DLT_NULL;
}

/* 1: a SYN (filled in), 0: not one, -1: malformed (@why set). */
static int parse(const uint8_t *ip, size_t len, struct pcap_syn *s, const char **why)
{
	size_t off;
	uint8_t next;

	if (len >= 1 && ip[0] >> 4 == 4) {
		if (len < 20 || (ip[0] & 0x0f) < 5 || (ip[0] & 0x0f) * 4u > len) {
			*why = "IPv4 header cut or its length is wrong";
			return -1;
		}
		if (ip[9] != 6)
			return 0;
		if ((ip[6] & 0x3f) || ip[7]) /* a fragment: not a whole SYN */
			return 0;
		s->family = 4;
		off = (ip[0] & 0x0f) * 4u;
	} else if (len >= 1 && ip[0] >> 4 == 6) {
		if (len < 40) {
			*why = "IPv6 header cut";
			return -1;
		}
		next = ip[6];
		off = 40;
		for (int i = 0; next != 6 && i < 8; i++) {
			if (next != 0 && next != 43 && next != 60)
				return 0; /* not TCP, or a fragment header */
			if (off + 2 > len) {
				*why = "IPv6 extension header cut";
				return -1;
			}
			next = ip[off];
			off += (ip[off + 1] + 1u) * 8u;
		}
		if (next != 6)
			return 0;
		s->family = 6;
	} else {
		return 0;
	}
	if (off + 20 > len) {
		*why = "TCP header cut (snap length too small?)";
		return -1;
	}
	if ((ip[off + 13] & 0x12) != 0x02)
		return 0;
	if ((ip[off + 12] >> 4) < 5 || off + (ip[off + 12] >> 4) * 4u > len) {
		*why = "TCP data offset below 5 or beyond the captured bytes";
		return -1;
	}
	s->ip = ip;
	s->net_len = off;
	s->tcp_len = (ip[off + 12] >> 4) * 4u;
	return 1;
}

int pcap_syns_each(const char *path, int (*fn)(const struct pcap_syn *, void *), void *arg,
		   struct pcap_syn_stats *st, char *err, size_t errlen)
{
	char perr[PCAP_ERRBUF_SIZE];
	pcap_t *p;

	memset(st, 0, sizeof(*st));
	p = pcap_open_offline(path, perr);
	if (!p) {
		snprintf(err, errlen, "%s: %s", path, perr);
		return -1;
	}
	return pcap_syns_each_open(p, path, fn, arg, st, err, errlen);
}

int pcap_syns_each_open(pcap_t *p, const char *path,
			int (*fn)(const struct pcap_syn *, void *), void *arg,
			struct pcap_syn_stats *st, char *err, size_t errlen)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	int dlt, rc;

	memset(st, 0, sizeof(*st));
	dlt = pcap_datalink(p);
	if (!supported(dlt)) {
		snprintf(err, errlen, "%s: link type %s (%d) is not supported (Ethernet, raw IP, "
			 "Linux cooked, BSD loopback are)", path,
			 pcap_datalink_val_to_name(dlt) ? pcap_datalink_val_to_name(dlt) : "?", dlt);
		pcap_close(p);
		return -1;
	}
	while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
		struct pcap_syn s = { .packet = ++st->packets };
		const char *why = NULL;
		long off = ip_offset(dlt, data, h->caplen);
		int r;

		if (off < 0) {
			st->skipped++;
			continue;
		}
		r = parse(data + off, h->caplen - (size_t)off, &s, &why);
		if (r < 0) {
			st->malformed++;
			fprintf(stderr, "syntwin: %s: packet %lu: %s; skipped\n", path, s.packet, why);
			continue;
		}
		if (r == 0) {
			st->skipped++;
			continue;
		}
		st->syns++;
		if (fn(&s, arg))
			break;
	}
	if (rc == -1) {
		st->truncated = 1;
		fprintf(stderr, "syntwin: %s: packet %lu: %s; the rest of the file is unreadable\n",
			path, st->packets + 1, pcap_geterr(p));
	}
	pcap_close(p);
	return 0;
}
