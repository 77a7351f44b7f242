// SPDX-License-Identifier: GPL-2.0
/* Verdicts on captured SYNs no socket took (see unbound.h). */
#include "unbound.h"

#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "decode.h"
#include "inet_csum.h"

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

/* A well-formed TCP-MD5 option (kind 19, length 18) in the options @o (@n bytes). */
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
		if (o[i] == 19 && o[i + 1] == 18)
			return true;
		i += o[i + 1];
	}
	return false;
}

/*
 * The listener path's drop rules that the TCP header alone decides (docs/verdicts.md, "Drop
 * rules"; the reasons are the same on 6.1 and 6.12): the rule's name and what the bytes show,
 * or NULL. A SYN with ACK never gets here: the witness takes it for a SYN-ACK.
 */
static const char *tcp_rule_evidence(const uint8_t *th, size_t tcp_len, const char *name)
{
	uint8_t fl = th[13];

	/* tcp_rcv_state_process(), TCP_LISTEN: RST first, then SYN with FIN */
	if (!strcmp(name, "TCP_RESET"))
		return (fl & 0x04) ? "syn-rst: SYN with RST, which a listener discards" : NULL;
	if (!strcmp(name, "TCP_FLAGS"))
		return (fl & 0x01) && !(fl & 0x04) ?
			       "syn-fin: SYN with FIN, which a listener discards" : NULL;
	/* tcp_v4_rcv()/tcp_v6_rcv(): an MD5 option on a socket with no key (syntwin's
	 * listeners set none) */
	if (!strcmp(name, "TCP_MD5UNEXPECTED"))
		return has_md5_option(th + 20, tcp_len - 20) ?
			       "md5-unexpected: a TCP-MD5 option to a listener with no key" : NULL;
	return NULL;
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
	if (l.tcp_off + l.tcp_len <= in->len && l.tcp_len >= 20) {
		const char *rule = tcp_rule_evidence(in->bytes + l.tcp_off, l.tcp_len, name);

		if (rule)
			return rule;
	}
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

int judge_unbound(const struct unbound_input *in, struct compare_result *out)
{
	const char *why = in->drops ? drop_evidence(in, in->drop_reason) : NULL;
	bool must_drop = in->declared && !strcmp(in->declared, "must-drop");
	bool must_connect = in->declared && !strcmp(in->declared, "must-connect");

	memset(out, 0, sizeof(*out));
	out->diff_off = -1;
	if (why && !must_connect) {
		out->verdict = V_EXPLAINED;
		out->reason = must_drop ? R_REJECTED : R_DROPPED;
		snprintf(out->detail, sizeof(out->detail), "dropped by the kernel (%s): %s",
			 in->drop_reason, why);
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
