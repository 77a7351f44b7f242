// SPDX-License-Identifier: GPL-2.0
/* Verdicts on captured SYNs no socket took (see unbound.h). */
#include "unbound.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "decode.h"
#include "inet_csum.h"
#include "topology.h"

/* 6.1 ip6_parse_tlv()'s own checks on one hop-by-hop or destination-options header @h (@n
 * bytes): Pad1/PadN runs of more than 7 bytes, non-zero PadN, an option past the header. */
static bool tlv_header_bad(const uint8_t *h, size_t n)
{
	size_t off = 2, pad = 0;

	while (off < n) {
		size_t ol;

		if (h[off] == 0) { /* Pad1 */
			if (++pad > 7)
				return true;
			off++;
			continue;
		}
		if (off + 2 > n)
			return true;
		ol = (size_t)h[off + 1] + 2;
		if (off + ol > n)
			return true;
		if (h[off] == 1) { /* PadN */
			pad += ol;
			if (pad > 7)
				return true;
			for (size_t i = 2; i < ol; i++)
				if (h[off + i])
					return true;
		} else {
			pad = 0;
		}
		off += ol;
	}
	return false;
}

/* The IPv4 or IPv6 header in @ip (@l) is one the receive path rejects (IP_INHDR). */
static const char *inhdr_evidence(const uint8_t *ip, const struct syn_layout *l)
{
	if (l->family == AF_INET) {
		uint8_t want[60];
		long stamp;

		if ((ip[0] & 0x0f) < 5)
			return "IPv4 header length below 20 bytes";
		if ((size_t)(ip[2] << 8 | ip[3]) < l->net_len)
			return "IPv4 total length shorter than its header";
		if (l->net_len > 20 && ipv4_expected_rewrite(ip, l->net_len, NULL, want, &stamp))
			return "IPv4 options __ip_options_compile() rejects";
		return NULL;
	}
	for (size_t off = 40, next = ip[6]; off < l->net_len;) {
		size_t n = next == 51 ? ((size_t)ip[off + 1] + 2) * 4 : ((size_t)ip[off + 1] + 1) * 8;

		if ((next == 0 || next == 60) && tlv_header_bad(ip + off, n))
			return "IPv6 options header with padding ip6_parse_tlv() rejects";
		next = ip[off];
		off += n;
	}
	return NULL;
}

/*
 * An MD5 option as tcp_parse_md5sig_option() (6.1) finds it in the options @o (@n bytes): the
 * first option of kind 19 decides, and it counts only with length 18. (6.12 drops a malformed
 * or repeated one for TCP_AUTH_HDR instead: no evidence here.)
 */
static bool has_md5_option(const uint8_t *o, size_t n)
{
	for (size_t i = 0; i < n;) {
		if (o[i] == 0)
			return false;
		if (o[i] == 1) {
			i++;
			continue;
		}
		if (i + 1 >= n || o[i + 1] < 2 || i + o[i + 1] > n)
			return false;
		if (o[i] == 19)
			return o[i + 1] == 18;
		i += o[i + 1];
	}
	return false;
}

/* Does a listener of the run hold an MD5 key for the SYN's source @ip (server.c gives each
 * listener one for the topology's MD5 client, and only for it)? */
static bool source_has_md5_key(const uint8_t *ip, int family)
{
	uint8_t a[16];

	if (family == AF_INET)
		return inet_pton(AF_INET, TOPO_MD5_CLIENT4, a) == 1 && !memcmp(ip + 12, a, 4);
	return inet_pton(AF_INET6, TOPO_MD5_CLIENT6, a) == 1 && !memcmp(ip + 8, a, 16);
}

/*
 * The listener path's drop rules that a SYN's own bytes decide (docs/verdicts.md, "Drop rules
 * of the listener's path"), with the reason both 6.1 and 6.12 report for each; NULL where the
 * kernel consumes the SYN (consume_skb(): no drop report, the witness sees only its silence).
 */
enum {
	RULE_V4_MARTIAN_SRC, RULE_V4_MARTIAN_DST, RULE_V4_LOOPBACK, RULE_V6_LOOPBACK,
	RULE_V6_SRC_MC, RULE_MD5, RULE_RST, RULE_FIN, RULE_V4_BCAST, RULE_V6_MAPPED,
};
static const struct drop_rule {
	const char *rule, *reason, *what;
} drop_rules[] = {
	/* ip_route_input_slow() (IPv4) and ip6_rcv_core() (IPv6), before TCP */
	[RULE_V4_MARTIAN_SRC] = { "v4-martian-src", "NOT_SPECIFIED", "a martian IPv4 source "
				  "(multicast, limited broadcast or zero-net)" },
	[RULE_V4_MARTIAN_DST] = { "v4-martian-dst", "NOT_SPECIFIED", "a zero-net IPv4 "
				  "destination (a martian)" },
	[RULE_V4_LOOPBACK] = { "v4-src-loopback", "NOT_SPECIFIED", "a 127/8 IPv4 address on a "
			       "device that is not loopback (route_localnet 0)" },
	[RULE_V6_LOOPBACK] = { "v6-loopback-addr", "IP_INHDR", "::1 on a device that is not "
			       "loopback" },
	[RULE_V6_SRC_MC] = { "src-multicast-v6", "IP_INHDR", "a multicast IPv6 source" },
	/* tcp_v4_rcv()/tcp_v6_rcv(), before the socket sees it: an MD5 option from a peer the
	 * socket holds no key for */
	[RULE_MD5] = { "md5-unexpected", "TCP_MD5UNEXPECTED",
		       "a TCP-MD5 option from a source the listener holds no key for" },
	/* then tcp_rcv_state_process(), TCP_LISTEN: RST first, then SYN with FIN */
	[RULE_RST] = { "syn-rst", "TCP_RESET", "SYN with RST, which a listener discards" },
	[RULE_FIN] = { "syn-fin", "TCP_FLAGS", "SYN with FIN, which a listener discards" },
	/* then tcp_v4_conn_request()/tcp_v6_conn_request(): consumed */
	[RULE_V4_BCAST] = { "dst-broadcast-v4", NULL, "the limited broadcast destination, which "
			    "tcp_v4_conn_request() consumes without a drop report" },
	[RULE_V6_MAPPED] = { "src-v4mapped-v6", NULL, "a v4-mapped IPv6 source, which "
			     "tcp_v6_conn_request() consumes without a drop report" },
};

/* The IP-layer rule the addresses of @ip break (ip_route_input_slow()'s order), or -1. */
static int v4_address_rule(const uint8_t *ip)
{
	const uint8_t *s = ip + 12, *d = ip + 16;
	static const uint8_t lbcast[4] = { 255, 255, 255, 255 };

	if ((s[0] & 0xf0) == 0xe0 || !memcmp(s, lbcast, 4))
		return RULE_V4_MARTIAN_SRC;
	if (!memcmp(d, lbcast, 4))
		return s[0] == 0 ? -1 : RULE_V4_BCAST; /* (brd_input: handled by TCP, consumed) */
	if (s[0] == 0)
		return RULE_V4_MARTIAN_SRC;
	if (d[0] == 0)
		return RULE_V4_MARTIAN_DST;
	if (d[0] == 127 || s[0] == 127)
		return RULE_V4_LOOPBACK;
	return -1;
}

static int v6_address_rule(const uint8_t *ip, bool ip_layer)
{
	static const uint8_t loopback[16] = { [15] = 1 };
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
	const uint8_t *s = ip + 8, *d = ip + 24;

	if (ip_layer)
		return !memcmp(s, loopback, 16) || !memcmp(d, loopback, 16) ? RULE_V6_LOOPBACK :
		       s[0] == 0xff					? RULE_V6_SRC_MC :
									  -1;
	return !memcmp(s, mapped, 12) ? RULE_V6_MAPPED : -1;
}

/* The first rule, in the kernel's order, that the SYN's bytes (@p, laid out in @l) break. */
static const struct drop_rule *rule_of_bytes(const uint8_t *p, const struct syn_layout *l)
{
	const uint8_t *ip = p + l->mac_len, *th = p + l->tcp_off;
	uint8_t fl = th[13];
	int r = l->family == AF_INET ? v4_address_rule(ip) : v6_address_rule(ip, true);

	/* (the broadcast destination is consumed later, after TCP's own checks) */
	if (r >= 0 && r != RULE_V4_BCAST)
		return &drop_rules[r];
	if (fl & 0x10 || !(fl & 0x02))
		return NULL;
	if (has_md5_option(th + 20, l->tcp_len - 20) && !source_has_md5_key(ip, l->family))
		return &drop_rules[RULE_MD5];
	if (fl & 0x04)
		return &drop_rules[RULE_RST];
	if (fl & 0x01)
		return &drop_rules[RULE_FIN];
	if (l->family == AF_INET6)
		r = v6_address_rule(ip, false);
	return r >= 0 ? &drop_rules[r] : NULL;
}

/* The rule SYN @bytes (@len, @mac_len of them link layer) breaks, or NULL (also for bytes
 * whose headers do not lay out whole). */
static const struct drop_rule *rule_in(const uint8_t *bytes, size_t len, size_t mac_len)
{
	struct syn_layout l;

	if (syn_layout(bytes, len, mac_len, &l) || !l.family || l.tcp_len < 20 ||
	    l.tcp_off + l.tcp_len > len)
		return NULL;
	return rule_of_bytes(bytes, &l);
}

const char *listener_drop_rule(const uint8_t *bytes, size_t len, size_t mac_len)
{
	const struct drop_rule *r = rule_in(bytes, len, mac_len);

	return r ? r->rule : NULL;
}

/* The evidence line of rule @r: "rule: what" (a static buffer). */
static const char *rule_line(const struct drop_rule *r)
{
	static char line[160];

	snprintf(line, sizeof(line), "%s: %s", r->rule, r->what);
	return line;
}

const char *drop_evidence(const struct unbound_input *in, const char *name)
{
	struct syn_layout l;
	const uint8_t *ip = in->bytes + in->mac_len;
	size_t tot;

	if (!name)
		return NULL;
	/* tcp_v4_rcv()/tcp_v6_rcv(): doff below 5 is PKT_TOO_SMALL; a header longer than the
	 * segment fails pskb_may_pull() and goes to discard_it as NOT_SPECIFIED (6.1). */
	if (in->parse_err && in->len >= in->mac_len + 20) {
		syn_layout(in->bytes, in->len, in->mac_len, &l);
		if (l.family && l.tcp_off + 13 <= in->len) {
			unsigned int doff = in->bytes[l.tcp_off + 12] >> 4;

			if (doff < 5 && !strcmp(name, "PKT_TOO_SMALL"))
				return "TCP data offset below 5";
			if (doff >= 5 && !strcmp(name, "NOT_SPECIFIED"))
				return "TCP data offset past the end of the segment";
		}
		return NULL;
	}
	if (syn_layout(in->bytes, in->len, in->mac_len, &l) || !l.family)
		return NULL;
	/* the rule the bytes break, where it is the one reason @name stands for */
	const struct drop_rule *r = rule_in(in->bytes, in->len, in->mac_len);

	if (r && r->reason && !strcmp(r->reason, name))
		return rule_line(r);
	if (!strcmp(name, "IP_INHDR"))
		return inhdr_evidence(ip, &l);
	if (!strcmp(name, "IP_CSUM"))
		return l.family == AF_INET && csum_fold(csum_add(0, ip, l.net_len)) ?
			       "IPv4 header checksum wrong" : NULL;
	if (!strcmp(name, "TCP_CSUM")) {
		tot = l.family == AF_INET ? (size_t)(ip[2] << 8 | ip[3]) :
					    40u + (size_t)(ip[4] << 8 | ip[5]);
		if (tot != l.net_len + l.tcp_len)
			return NULL; /* payload not captured: the sum cannot be checked */
		return (l.family == AF_INET ?
				tcp_csum4(ip + 12, ip + 16, in->bytes + l.tcp_off, l.tcp_len) :
				tcp_csum6(ip + 8, ip + 24, in->bytes + l.tcp_off, l.tcp_len)) ?
			       "TCP checksum wrong" : NULL;
	}
	return NULL;
}

/* A rule whose SYNs the kernel consumes (no drop report), if the bytes carry it: "rule: what",
 * or NULL. */
static const char *consumed_evidence(const struct unbound_input *in)
{
	const struct drop_rule *r = in->parse_err ? NULL :
				    rule_in(in->bytes, in->len, in->mac_len);

	return r && !r->reason ? rule_line(r) : NULL;
}

/* What the witness saw that says the kernel took the SYN after all (a SYN-ACK, a saved copy, a
 * copy it did not drop, where it reports its drops): written to @buf, or NULL when nothing
 * does. */
static const char *taken_after_all(const struct unbound_input *in, bool consumed, char *buf,
				   size_t n)
{
	if (in->synacks)
		snprintf(buf, n, "yet the witness saw %u SYN-ACK%s answer it", in->synacks,
			 in->synacks == 1 ? "" : "s");
	else if (in->saved)
		snprintf(buf, n, "yet the kernel allocated a saved copy for it");
	else if (!consumed && in->drops < in->copies)
		snprintf(buf, n, "yet only %u of its %u copies were dropped", in->drops, in->copies);
	else
		return NULL;
	return buf;
}

int judge_unbound(const struct unbound_input *in, struct compare_result *out)
{
	const char *why = in->drops ? drop_evidence(in, in->drop_reason) : consumed_evidence(in);
	const char *how = in->drops ? in->drop_reason : "consumed";
	bool must_drop = in->declared && !strcmp(in->declared, "must-drop");
	bool must_connect = in->declared && !strcmp(in->declared, "must-connect");
	char taken[96];

	memset(out, 0, sizeof(*out));
	out->diff_off = -1;
	if (why && taken_after_all(in, !in->drops, taken, sizeof(taken))) {
		out->verdict = V_UNBOUND;
		snprintf(out->detail, sizeof(out->detail), "dropped by the kernel (%.32s): %.120s; "
			 "%.70s", how, why, taken);
		return 1;
	}
	if (why && !must_connect) {
		out->verdict = V_EXPLAINED;
		out->reason = must_drop ? R_REJECTED : R_DROPPED;
		snprintf(out->detail, sizeof(out->detail), "dropped by the kernel (%s): %s", how,
			 why);
		return 0;
	}
	out->verdict = V_UNBOUND;
	if (!in->drops)
		snprintf(out->detail, sizeof(out->detail), "no socket took this SYN and the kernel "
			 "reported no drop of it%s", must_drop ? " (declared must-drop)" : "");
	else if (must_connect)
		snprintf(out->detail, sizeof(out->detail), "the kernel dropped a SYN its generator "
			 "made to connect (%s, %u cop%s)", in->drop_reason ? in->drop_reason : "?",
			 in->drops, in->drops == 1 ? "y" : "ies");
	else
		snprintf(out->detail, sizeof(out->detail), "dropped by the kernel (%s) with no "
			 "validity check in its bytes to show for it",
			 in->drop_reason ? in->drop_reason : "unknown reason");
	return 1;
}
