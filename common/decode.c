// SPDX-License-Identifier: GPL-2.0
/* Header layout, field names and a one-line decode of SYN header bytes (see decode.h). */
#include "decode.h"

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/socket.h>

#include "tcp_opts.h"

static const char *ipv4_opt_name(uint8_t kind)
{
	switch (kind) {
	case 0: return "EOL";
	case 1: return "NOP";
	case 7: return "RR";
	case 68: return "TS";
	case 130: return "SEC";
	case 131: return "LSRR";
	case 137: return "SSRR";
	case 148: return "RA";
	default: return "unknown";
	}
}

static const char *tcp_opt_name(uint8_t kind)
{
	switch (kind) {
	case 0: return "eol";
	case 1: return "nop";
	case 2: return "mss";
	case 3: return "wscale";
	case 4: return "sack-perm";
	case 5: return "sack";
	case 8: return "timestamp";
	case 19: return "md5";
	case 29: return "tcp-ao";
	case 30: return "mptcp";
	case 34: return "fastopen";
	case 254: return "experimental";
	default: return "unknown";
	}
}

static const char *ipv6_ext_name(uint8_t nh)
{
	switch (nh) {
	case 0: return "hop-by-hop";
	case 43: return "routing";
	case 44: return "fragment";
	case 51: return "ah";
	case 60: return "dstopts";
	default: return "unknown";
	}
}

int syn_layout(const uint8_t *p, size_t len, size_t mac_len, struct syn_layout *l)
{
	const uint8_t *ip = p + mac_len;
	size_t off;

	*l = (struct syn_layout){ .mac_len = mac_len, .len = len };
	if (len < mac_len + 1)
		return -1;
	if ((ip[0] >> 4) == 4) {
		l->family = AF_INET;
		l->net_len = (ip[0] & 0x0f) * 4;
		if (l->net_len < 20)
			return -1; /* IHL below 5: no header the kernel accepts */
	} else if ((ip[0] >> 4) == 6 && len >= mac_len + 40) {
		uint8_t nh = ip[6];

		l->family = AF_INET6;
		off = 40;
		/* Same set the BPF witness follows; the comparator parses independently of it. */
		while (nh == 0 || nh == 43 || nh == 60 || nh == 51) {
			if (mac_len + off + 2 > len)
				return -1;
			size_t hl = nh == 51 ? (ip[off + 1] + 2) * 4u : (ip[off + 1] + 1) * 8u;

			nh = ip[off];
			off += hl;
		}
		l->net_len = off;
	} else {
		return -1;
	}
	l->tcp_off = mac_len + l->net_len;
	if (l->tcp_off + 13 > len)
		return -1;
	l->tcp_len = (p[l->tcp_off + 12] >> 4) * 4;
	/* a data offset below 5 is no TCP header (the kernel drops it): not a layout */
	return l->tcp_len < 20 || l->tcp_off + l->tcp_len > len ? -1 : 0;
}

size_t ip_stated_len(const uint8_t *ip, size_t len)
{
	if (len >= 20 && (ip[0] >> 4) == 4)
		return (size_t)(ip[2] << 8 | ip[3]);
	if (len >= 40 && (ip[0] >> 4) == 6)
		return (size_t)(ip[4] << 8 | ip[5]) + 40;
	return 0;
}

/* Which option of an option area (kind/len TLVs, 0 and 1 single-byte) holds byte @rel. */
static void option_at(const uint8_t *opts, size_t n, size_t rel, int *index, size_t *start,
		      uint8_t *kind)
{
	struct opt op;
	size_t pos = 0;
	int idx = 0;

	while (opt_next(opts, n, &pos, &op)) {
		if (rel < op.off + op.len || op.kind == 0) {
			*index = idx, *start = op.off, *kind = op.kind;
			return;
		}
		idx++;
	}
	*index = idx, *start = pos, *kind = 0;
}

void syn_field_name(const uint8_t *p, const struct syn_layout *l, size_t off, char *buf, size_t n)
{
	static const char *const eth[] = { "eth.dst", "eth.src", "eth.type" };
	static const char *const v4[] = { "ipv4.version_ihl", "ipv4.tos", "ipv4.tot_len",
		"ipv4.tot_len", "ipv4.id", "ipv4.id", "ipv4.frag_off", "ipv4.frag_off", "ipv4.ttl",
		"ipv4.protocol", "ipv4.check", "ipv4.check" };
	static const char *const tcp[] = { "tcp.sport", "tcp.sport", "tcp.dport", "tcp.dport",
		"tcp.seq", "tcp.seq", "tcp.seq", "tcp.seq", "tcp.ack_seq", "tcp.ack_seq",
		"tcp.ack_seq", "tcp.ack_seq", "tcp.doff_reserved", "tcp.flags", "tcp.window",
		"tcp.window", "tcp.check", "tcp.check", "tcp.urg_ptr", "tcp.urg_ptr" };
	int idx;
	size_t start;
	uint8_t kind;

	if (off < l->mac_len) {
		snprintf(buf, n, "%s", off < 6 ? eth[0] : off < 12 ? eth[1] :
			 off < 14 ? eth[2] : "eth.vlan_tag");
		return;
	}
	if (off < l->tcp_off || !l->tcp_off) {
		size_t r = off - l->mac_len;

		if (l->family == AF_INET) {
			if (r < 12)
				snprintf(buf, n, "%s", v4[r]);
			else if (r < 20)
				snprintf(buf, n, "%s", r < 16 ? "ipv4.saddr" : "ipv4.daddr");
			else {
				/* the option area as far as the bytes go (@off is inside them) */
				size_t end = l->net_len < l->len - l->mac_len ? l->net_len :
									  l->len - l->mac_len;

				if (end <= r) { /* past the header its IHL gives */
					snprintf(buf, n, "ipv4+%zu", r);
					return;
				}
				option_at(p + l->mac_len + 20, end - 20, r - 20, &idx, &start, &kind);
				snprintf(buf, n, "ipv4.option[%d] %s (kind %u) +%zu", idx,
					 ipv4_opt_name(kind), kind, r - 20 - start);
			}
		} else if (l->family == AF_INET6) {
			if (r < 40) {
				snprintf(buf, n, "%s", r < 4 ? "ipv6.version_class_flow" :
					 r < 6 ? "ipv6.payload_len" : r == 6 ? "ipv6.nexthdr" :
					 r == 7 ? "ipv6.hop_limit" : r < 24 ? "ipv6.saddr" : "ipv6.daddr");
			} else {
				const uint8_t *ip = p + l->mac_len;
				size_t o = 40;
				uint8_t nh = ip[6];
				int i = 0;

				while (o + 2 <= l->net_len && l->mac_len + o + 2 <= l->len) {
					size_t hl = nh == 51 ? (ip[o + 1] + 2) * 4u : (ip[o + 1] + 1) * 8u;

					if (r < o + hl)
						break;
					nh = ip[o];
					o += hl;
					i++;
				}
				snprintf(buf, n, "ipv6.ext[%d] %s +%zu", i, ipv6_ext_name(nh), r - o);
			}
		} else {
			snprintf(buf, n, "net+%zu", r);
		}
		return;
	}
	size_t r = off - l->tcp_off;

	if (r < 20) {
		snprintf(buf, n, "%s", tcp[r]);
		return;
	}
	if (r >= l->tcp_len) {
		snprintf(buf, n, "beyond-tcp-header+%zu", r - l->tcp_len);
		return;
	}
	option_at(p + l->tcp_off + 20,
		  (l->tcp_len < l->len - l->tcp_off ? l->tcp_len : l->len - l->tcp_off) - 20, r - 20,
		  &idx, &start, &kind);
	snprintf(buf, n, "tcp.option[%d] %s (kind %u) +%zu", idx, tcp_opt_name(kind), kind,
		 r - 20 - start);
}

static void append(char *buf, size_t n, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (*used >= n)
		return;
	va_start(ap, fmt);
	w = vsnprintf(buf + *used, n - *used, fmt, ap);
	va_end(ap);
	if (w > 0)
		*used += (size_t)w;
}

void syn_decode_text(const uint8_t *p, const struct syn_layout *l, char *buf, size_t n)
{
	const uint8_t *ip = p + l->mac_len, *t = p + l->tcp_off;
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	size_t used = 0, i, area, pos = 0;
	struct opt op;

	buf[0] = '\0';
	/* Only bytes inside l->len are read: the layout may describe a header cut short. */
	if (l->mac_len >= 14 && l->len >= 14)
		append(buf, n, &used, "eth type=%02x%02x | ", p[12], p[13]);
	if (l->family == AF_INET && l->mac_len + 20 <= l->len) {
		inet_ntop(AF_INET, ip + 12, a, sizeof(a));
		inet_ntop(AF_INET, ip + 16, b, sizeof(b));
		append(buf, n, &used, "ipv4 %s > %s tos=0x%02x id=%u df=%d ttl=%u", a, b, ip[1],
		       ip[4] << 8 | ip[5], !!(ip[6] & 0x40), ip[8]);
		for (i = 20; i < l->net_len && l->mac_len + i < l->len; i++)
			append(buf, n, &used, i == 20 ? " opts=%02x" : "%02x", ip[i]);
	} else if (l->family == AF_INET6 && l->mac_len + 40 <= l->len) {
		inet_ntop(AF_INET6, ip + 8, a, sizeof(a));
		inet_ntop(AF_INET6, ip + 24, b, sizeof(b));
		append(buf, n, &used, "ipv6 %s > %s tclass=0x%02x hlim=%u exthdrs=%zu", a, b,
		       (ip[0] & 0x0f) << 4 | ip[1] >> 4, ip[7], l->net_len - 40);
	} else {
		append(buf, n, &used, l->family ? "network header cut short" :
						   "network header not understood");
		return;
	}
	if (l->tcp_off + 20 > l->len)
		return;
	append(buf, n, &used, " | tcp %u > %u seq=%u flags=0x%03x win=%u opts=", t[0] << 8 | t[1],
	       t[2] << 8 | t[3], (unsigned)t[4] << 24 | t[5] << 16 | t[6] << 8 | t[7],
	       (t[12] & 1) << 8 | t[13], t[14] << 8 | t[15]);
	/* the options as far as the header and the bytes go; a length past the header (not past
	 * the bytes) still shows its value */
	area = l->len - l->tcp_off < l->tcp_len ? l->len - l->tcp_off : l->tcp_len;
	while (area > 20 && opt_next(t + 20, area - 20, &pos, &op)) {
		const uint8_t *o = t + 20 + op.off;

		append(buf, n, &used, "%s%s", op.off ? "," : "", tcp_opt_name(op.kind));
		if (op.bad || l->tcp_off + 20 + op.off + op.len > l->len)
			break; /* no length, or the option runs past the bytes there are */
		if (op.kind == 2 && op.len == 4)
			append(buf, n, &used, ":%u", o[2] << 8 | o[3]);
		else if (op.kind == 3 && op.len == 3)
			append(buf, n, &used, ":%u", o[2]);
	}
}

bool eth_inband_tag(const uint8_t *eth)
{
	return (eth[12] == 0x81 && eth[13] == 0x00) || (eth[12] == 0x88 && eth[13] == 0xa8);
}
