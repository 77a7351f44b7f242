// SPDX-License-Identifier: GPL-2.0
/*
 * replay_tool (host), for guest.replay_round_trip:
 *   replay_tool make FILE.pcap PROFILES_DIR
 *     writes, with libpcap, an Ethernet capture of other hosts' traffic: every profile shape that
 *     must connect (except IPv4 options the kernel rewrites) as a SYN between foreign addresses,
 *     each followed by its SYN-ACK and ACK; one IPv6 SYN the kernel drops (a destination-
 *     options header padded with PadN of 12 bytes: ip6_parse_tlv() allows 7); an ARP frame and
 *     one packet with a cut IPv4 header (which replay must name and skip);
 *   replay_tool bad DIR
 *     writes DIR/truncated.pcap (the capture above cut inside its last SYN), DIR/usb.pcap (a link
 *     type replay does not support) and DIR/nosyn.pcap (an ARP frame only);
 *   replay_tool check FILE.pcap connections.jsonl
 *     every SYN of FILE came back as a record, and the kernel's saved copy equals the SYN in
 *     the file byte for byte except addresses, ports, checksums and the IP length; exactly one
 *     (the padded one) is dropped-by-kernel for IP_INHDR instead.
 */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "craft.h"
#include "hex.h"
#include "pcap_syns.h"
#include "profile.h"

static int make(const char *out, const char *dir)
{
	static const char *const files[] = { "linux", "windows", "macos", "freebsd", "android",
					     "edge" };
	static struct syn_shape sh[512];
	char path[512], err[300];
	size_t n = 0, count = 0;
	pcap_t *dead = pcap_open_dead(DLT_EN10MB, 65535);
	pcap_dumper_t *d = pcap_dump_open(dead, out);
	uint8_t frame[14 + CRAFT_MAX];
	struct pcap_pkthdr h = { 0 };

	if (!d) {
		fprintf(stderr, "replay_tool: %s\n", pcap_geterr(dead));
		return 2;
	}
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s.syn", dir, files[i]);
		if (profile_load(path, sh, 512, &n, err, sizeof(err))) {
			fprintf(stderr, "replay_tool: %s\n", err);
			return 2;
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct flow f = { .family = sh[i].family, .sport = (uint16_t)(50000 + i), .dport = 443,
				  .src = { 10, 1, 2, 3 }, .dst = { 10, 9, 8, 7 } };
		size_t len;

		if (sh[i].ipopt_len && sh[i].ipopt[0] != 1) /* RR/TS: rewritten on receive */
			continue;
		if (f.family == 6) {
			memset(f.src, 0, 16), memset(f.dst, 0, 16);
			f.src[0] = f.dst[0] = 0x20, f.src[1] = f.dst[1] = 0x01, f.src[15] = 3;
			f.dst[15] = 7;
		}
		memset(frame, 0, 14);
		frame[0] = 0x02, frame[6] = 0x02, frame[11] = 1;
		frame[12] = f.family == 4 ? 0x08 : 0x86, frame[13] = f.family == 4 ? 0x00 : 0xdd;
		len = craft_syn(&sh[i], &f, (uint32_t)(1000003u * (i + 1)), frame + 14);
		h.caplen = h.len = (bpf_u_int32)(14 + len);
		pcap_dump((u_char *)d, &h, frame);
		count++;
		/* the SYN-ACK and the ACK of that flow: not SYNs, replay must pass them by */
		struct flow r = f;

		memcpy(r.src, f.dst, 16), memcpy(r.dst, f.src, 16);
		r.sport = f.dport, r.dport = f.sport;
		len = craft_segment(&sh[i], &r, 0x12, 77, (uint32_t)(1000003u * (i + 1)) + 1, 0, 0,
				    frame + 14);
		h.caplen = h.len = (bpf_u_int32)(14 + len);
		pcap_dump((u_char *)d, &h, frame);
		len = craft_segment(&sh[i], &f, 0x10, (uint32_t)(1000003u * (i + 1)) + 1, 78, 0, 0,
				    frame + 14);
		h.caplen = h.len = (bpf_u_int32)(14 + len);
		pcap_dump((u_char *)d, &h, frame);
	}
	/* the SYN the kernel must drop, given no answer: replay gives up on it and the server
	 * judges it by the kernel's drop reason */
	{
		struct syn_shape pad;
		struct flow f = { .family = 6, .sport = 49999, .dport = 443,
				  .src = { 0x20, 0x01, [15] = 3 }, .dst = { 0x20, 0x01, [15] = 7 } };
		size_t len;

		if (profile_parse_line("pad12 family=6 ext=dst:010c000000000000000000000000 "
				       "tcpopt=mss:1440", "drop", &pad, err, sizeof(err)) != 1) {
			fprintf(stderr, "replay_tool: %s\n", err);
			return 2;
		}
		memset(frame, 0, 14);
		frame[0] = 0x02, frame[6] = 0x02, frame[11] = 1, frame[12] = 0x86, frame[13] = 0xdd;
		len = craft_syn(&pad, &f, 4242, frame + 14);
		h.caplen = h.len = (bpf_u_int32)(14 + len);
		pcap_dump((u_char *)d, &h, frame);
		count++;
	}
	/* ARP, then an IPv4 packet cut after 12 bytes */
	memset(frame, 0, 60);
	frame[12] = 0x08, frame[13] = 0x06;
	h.caplen = h.len = 60;
	pcap_dump((u_char *)d, &h, frame);
	frame[12] = 0x08, frame[13] = 0x00, frame[14] = 0x45;
	h.caplen = h.len = 14 + 12;
	pcap_dump((u_char *)d, &h, frame);
	pcap_dump_close(d);
	pcap_close(dead);
	printf("replay_tool: %s: %zu SYNs among %zu packets\n", out, count, 3 * count);
	return 0;
}

struct check {
	char *jsonl;
	unsigned long syns, found, equal, dropped;
};

/* The record whose knobs are "replay.pcap#N" (any directory), or NULL. */
static const char *record_of(const char *jsonl, unsigned long packet)
{
	char pat[64];
	const char *p = jsonl;

	snprintf(pat, sizeof(pat), "#%lu\"", packet);
	while ((p = strstr(p, pat))) {
		const char *line = p;

		while (line > jsonl && line[-1] != '\n')
			line--;
		if (strstr(line, "\"gen\":\"replay\"") && strstr(line, "\"direction\":\"passive\""))
			return line;
		p++;
	}
	return NULL;
}

/* @needle occurs in the JSONL line that starts at @line. */
static int in_line(const char *line, const char *needle)
{
	const char *at = strstr(line, needle), *eol = strchr(line, '\n');

	return at && (!eol || at < eol);
}

static int check_one(const struct pcap_syn *s, void *arg)
{
	struct check *c = arg;
	const char *rec = record_of(c->jsonl, s->packet), *nh;
	uint8_t native[600];
	size_t len = s->net_len + s->tcp_len, mac = 0, nlen = 0; /* tun: no MAC header */

	c->syns++;
	if (!rec) {
		fprintf(stderr, "replay_tool: packet %lu has no record\n", s->packet);
		return 0;
	}
	c->found++;
	if (in_line(rec, "\"reason\":\"dropped-by-kernel\"") &&
	    in_line(rec, "dropped by the kernel (IP_INHDR)")) {
		c->dropped++;
		return 0;
	}
	nh = strstr(rec, "\"native\":\"");
	if (!nh || nh > strchr(rec, '\n')) {
		fprintf(stderr, "replay_tool: packet %lu: no native hex (run with --hex-all)\n",
			s->packet);
		return 0;
	}
	nh += 10;
	while (nh[2 * nlen] != '"' && nlen < sizeof(native)) {
		sscanf(nh + 2 * nlen, "%2hhx", &native[nlen]);
		nlen++;
	}
	if (nlen - mac != len) {
		fprintf(stderr, "replay_tool: packet %lu: saved %zu bytes, the SYN has %zu\n",
			s->packet, nlen - mac, len);
		return 0;
	}
	for (size_t i = 0; i < len; i++) {
		int skip;

		if (s->family == 4)
			skip = (i >= 2 && i < 4) || (i >= 10 && i < 20);
		else
			skip = (i >= 4 && i < 6) || (i >= 8 && i < 40);
		skip |= i >= s->net_len && (i - s->net_len < 4 || (i - s->net_len >= 16 &&
								  i - s->net_len < 18));
		if (!skip && native[mac + i] != s->ip[i]) {
			fprintf(stderr, "replay_tool: packet %lu: byte %zu is 0x%02x, the file has "
				"0x%02x\n", s->packet, i, native[mac + i], s->ip[i]);
			return 0;
		}
	}
	c->equal++;
	return 0;
}

static int check(const char *pcap, const char *jsonl)
{
	struct check c = { 0 };
	struct pcap_syn_stats st;
	char err[512];
	FILE *f = fopen(jsonl, "r");
	long sz;

	if (!f)
		return 2;
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	rewind(f);
	c.jsonl = calloc(1, (size_t)sz + 1);
	if (!c.jsonl || fread(c.jsonl, 1, (size_t)sz, f) != (size_t)sz)
		return 2;
	fclose(f);
	if (pcap_syns_each(pcap, check_one, &c, &st, err, sizeof(err))) {
		fprintf(stderr, "replay_tool: %s\n", err);
		return 2;
	}
	printf("replay_tool: %lu SYNs in the file, %lu replayed records, %lu byte-identical but "
	       "for addresses, ports, checksums and IP length, %lu dropped for IP_INHDR\n", c.syns,
	       c.found, c.equal, c.dropped);
	free(c.jsonl);
	return c.syns && c.dropped == 1 && c.equal + c.dropped == c.syns ? 0 : 1;
}

/* Bad inputs for replay (see the top). */
static int bad(const char *dir, const char *profiles)
{
	char path[512], cut[512];
	uint8_t frame[60] = { [12] = 0x08, [13] = 0x06 };
	struct pcap_pkthdr h = { .caplen = 60, .len = 60 };
	pcap_t *dead;
	pcap_dumper_t *d;
	FILE *f;
	long sz;

	snprintf(path, sizeof(path), "%s/full.pcap", dir);
	if (make(path, profiles))
		return 2;
	/* cut 20 bytes into the last SYN: drop the ARP, the cut packet and half a SYN's trailer */
	f = fopen(path, "rb");
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	rewind(f);
	char *buf = malloc((size_t)sz);

	if (!buf || fread(buf, 1, (size_t)sz, f) != (size_t)sz)
		return 2;
	fclose(f);
	snprintf(cut, sizeof(cut), "%s/truncated.pcap", dir);
	f = fopen(cut, "wb");
	fwrite(buf, 1, (size_t)sz - 300, f);
	fclose(f);
	free(buf);
	for (int i = 0; i < 2; i++) {
		dead = pcap_open_dead(i ? DLT_EN10MB : DLT_USB_LINUX, 65535);
		snprintf(path, sizeof(path), "%s/%s.pcap", dir, i ? "nosyn" : "usb");
		d = pcap_dump_open(dead, path);
		if (!d)
			return 2;
		pcap_dump((u_char *)d, &h, frame);
		pcap_dump_close(d);
		pcap_close(dead);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "bad"))
		return bad(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "make"))
		return make(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "check"))
		return check(argv[2], argv[3]);
	fprintf(stderr, "usage: replay_tool make FILE.pcap PROFILES_DIR | bad DIR PROFILES_DIR |\n"
			"       check FILE.pcap JSONL\n");
	return 2;
}
