// SPDX-License-Identifier: GPL-2.0
/* Verdicts on captured SYNs no socket took (see unbound.h). */
#include "unbound.h"

#include <arpa/inet.h>
#include <limits.h>
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
		/* (options are compiled after routing: ip_rcv_options(), NOT_SPECIFIED) */
		if ((ip[0] & 0x0f) < 5)
			return "IPv4 header length below 20 bytes";
		if ((size_t)(ip[2] << 8 | ip[3]) < l->net_len)
			return "IPv4 total length shorter than its header";
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
 * first option of kind 19 decides, and it counts only with length 18. (From 6.7 on, options
 * auth_parse() refuses are dropped first: then the one MD5 option is this one.)
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

/*
 * 6.7 and later's tcp_do_parse_auth_options() (from tcp_inbound_hash(), the TCP-AO series) on
 * the options @o (@n bytes): -1 where it fails -- an option shorter than 2 or past the header,
 * an MD5 option not 18 bytes long, an AO option of 4 bytes or less, a second MD5 or AO option
 * -- else 0, *@ao set if an AO option came. It stops at an END option and once fewer bytes are
 * left than the shortest auth option (18 without CONFIG_TCP_AO, 5 with): a malformed tail
 * shorter than that passes.
 */
static int auth_parse(const uint8_t *o, size_t n, bool tcp_ao, bool *ao)
{
	size_t min = tcp_ao ? 5 : 18, left = n, i = 0;
	bool md5 = false;

	*ao = false;
	while (left >= min) {
		uint8_t kind = o[i++], len;

		if (kind == 0)
			return 0;
		if (kind == 1) {
			left--;
			continue;
		}
		len = o[i++];
		if (len < 2 || len > left)
			return -1;
		if (kind == 19 || kind == 29) {
			if ((kind == 19 ? len != 18 : len <= 4) || md5 || *ao)
				return -1;
			*(kind == 19 ? &md5 : ao) = true;
		}
		i += len - 2u;
		left -= len;
	}
	return 0;
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
 * of the listener's path"), with the reason 6.1 reports for each and, where it differs, the one
 * 6.12 reports (reason_612; rule_reason()); NULL where the kernel consumes the SYN
 * (consume_skb(): no drop report, the witness sees only its silence).
 */
enum {
	RULE_V4_MARTIAN_SRC, RULE_V4_MARTIAN_DST, RULE_V4_LOOPBACK, RULE_V4_SRC_OWN,
	RULE_V4_MC_UNJOINED, RULE_V4_DST_NOT_LOCAL, RULE_V6_LOOPBACK, RULE_V6_MC_SCOPE,
	RULE_V6_SRC_MC, RULE_V6_MC_UNJOINED, RULE_V4_IPOPT, RULE_V4_SRR, RULE_V6_RTHDR,
	RULE_AUTH_HDR, RULE_MD5,
	RULE_SYN_ACK, RULE_RST, RULE_FIN, RULE_V4_BCAST, RULE_V4_MC_JOINED, RULE_V6_MC_JOINED,
	RULE_V6_MAPPED,
};
#define R(name, why, text) { .rule = name, .reason = why, .what = text }
static const struct drop_rule {
	const char *rule, *reason, *reason_612, *what;
} drop_rules[] = {
	/* ip_route_input_rcu()/ip_route_input_slow() (IPv4) and ip6_rcv_core() (IPv6) */
	[RULE_V4_MARTIAN_SRC] = R("v4-martian-src", "NOT_SPECIFIED", "a martian IPv4 source "
				  "(multicast, limited broadcast or zero-net)"),
	[RULE_V4_MARTIAN_DST] = R("v4-martian-dst", "NOT_SPECIFIED", "a zero-net IPv4 "
				  "destination (a martian)"),
	[RULE_V4_LOOPBACK] = R("v4-src-loopback", "NOT_SPECIFIED", "a 127/8 IPv4 address on a "
			       "device that is not loopback (route_localnet 0)"),
	[RULE_V4_SRC_OWN] = R("v4-src-own", "NOT_SPECIFIED", "one of the server's own IPv4 "
			      "addresses as the source (fib_validate_source(), accept_local 0)"),
	[RULE_V4_MC_UNJOINED] = R("v4-dst-multicast-unjoined", "NOT_SPECIFIED", "an IPv4 "
				  "multicast group no device of the server joined (all-hosts only, "
				  "no multicast routing)"),
	[RULE_V6_LOOPBACK] = R("v6-loopback-addr", "IP_INHDR", "::1 on a device that is not "
			       "loopback"),
	[RULE_V6_MC_SCOPE] = R("v6-dst-mc-scope", "IP_INHDR", "a multicast destination of scope "
			       "0 (reserved) or 1 (interface-local) from another node"),
	[RULE_V6_SRC_MC] = R("src-multicast-v6", "IP_INHDR", "a multicast IPv6 source"),
	/* then the route's input: an IPv6 group no device joined (ip6_mc_input()) */
	[RULE_V6_MC_UNJOINED] = R("v6-dst-multicast-unjoined", "NOT_SPECIFIED", "an IPv6 "
				  "multicast group no device of the server joined"),
	/* ip_rcv_options(), after routing: __ip_options_compile(), then source routing */
	[RULE_V4_IPOPT] = R("v4-ipopt-malformed", "NOT_SPECIFIED", "IPv4 options "
			    "__ip_options_compile() rejects"),
	[RULE_V4_SRR] = R("v4-ipopt-srr", "NOT_SPECIFIED", "an IPv4 source route "
			  "(accept_source_route 0, the default)"),
	/* ip6_input(): a routing header ipv6_rthdr_rcv() refuses */
	[RULE_V6_RTHDR] = R("v6-rthdr", "NOT_SPECIFIED", "an IPv6 routing header the kernel "
			    "refuses (segments left on a type it does not route, or a segment "
			    "routing or RPL header: seg6_enabled and rpl_seg_enabled 0)"),
	/* then the route's input: a destination not the server's (forwarding 0: ip_error()) */
	[RULE_V4_DST_NOT_LOCAL] = R("v4-dst-not-local", "IP_INADDRERRORS", "an IPv4 destination "
				    "that is none of the server's addresses (forwarding 0)"),
	/* tcp_v4_rcv()/tcp_v6_rcv(), before the socket sees it: from 6.7 on, authentication
	 * options tcp_inbound_hash() cannot parse; an MD5 option from a peer the socket holds no
	 * key for */
	[RULE_AUTH_HDR] = R("auth-hdr", "TCP_AUTH_HDR", "TCP options tcp_inbound_hash() refuses "
			    "(malformed in its reach, an MD5 option not 18 long, two MD5/AO)"),
	[RULE_MD5] = R("md5-unexpected", "TCP_MD5UNEXPECTED",
		       "a TCP-MD5 option from a source the listener holds no key for"),
	/* then tcp_rcv_state_process(), TCP_LISTEN: ACK first (a reset sent back unless RST is
	 * set too; 6.1 returns 1, 6.12 the reason), then RST, then SYN with FIN */
	[RULE_SYN_ACK] = { .rule = "syn-ack-to-listener", .reason = "NOT_SPECIFIED",
			   .reason_612 = "TCP_FLAGS",
			   .what = "SYN with ACK to a listening port, which a listener refuses" },
	[RULE_RST] = R("syn-rst", "TCP_RESET", "SYN with RST, which a listener discards"),
	[RULE_FIN] = R("syn-fin", "TCP_FLAGS", "SYN with FIN, which a listener discards"),
	/* then tcp_v4_conn_request()/tcp_v6_conn_request(): consumed */
	[RULE_V4_BCAST] = R("dst-broadcast-v4", NULL, "a broadcast destination (the limited one, "
			    "or a subnet's of the server's addresses), which tcp_v4_conn_request() "
			    "consumes"),
	[RULE_V4_MC_JOINED] = R("dst-multicast-v4", NULL, "the all-hosts group 224.0.0.1, which "
				"tcp_v4_conn_request() consumes"),
	[RULE_V6_MC_JOINED] = R("dst-multicast-v6", NULL, "the all-nodes group ff02::1, which "
				"tcp_v6_conn_request() consumes"),
	[RULE_V6_MAPPED] = R("src-v4mapped-v6", NULL, "a v4-mapped IPv6 source, which "
			     "tcp_v6_conn_request() consumes"),
};
#undef R

/*
 * The server netns's own addresses (common/topology.h; compare/topology.sh gives each a /24 or
 * a /64 on its device): the plan's topology, never what the kernel lists. The rules that
 * depend on a device's addresses, routes and groups hold only for a SYN to one of the run's
 * listeners there (unbound_input.to_listener).
 */
static const char *const server4[] = { TOPO_SERVER4, TOPO_TUN_SELF4, TOPO_TAP_SELF4,
				       TOPO_VLAN_SERVER4, TOPO_QINQ_SERVER4 };

/* Is @a one of the server's IPv4 addresses; with @bcast, the broadcast address of one's
 * subnet (its prefix with every host bit set) instead? The addresses are parsed once: this is
 * asked of every passive record (judge_socket() holds each connection to the rules). */
static bool server_v4(const uint8_t *a, bool bcast)
{
	static uint32_t addr[sizeof(server4) / sizeof(server4[0])];
	static size_t n;
	static bool parsed;
	const uint32_t host = (1u << (32 - TOPO_PREFIX4)) - 1;
	uint32_t v = (uint32_t)a[0] << 24 | a[1] << 16 | a[2] << 8 | a[3];

	for (size_t i = 0; !parsed && i < sizeof(server4) / sizeof(server4[0]); i++) {
		uint8_t b[4];

		if (inet_pton(AF_INET, server4[i], b) == 1)
			addr[n++] = (uint32_t)b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3];
	}
	parsed = true;
	for (size_t i = 0; i < n; i++)
		if (v == (bcast ? addr[i] | host : addr[i]))
			return true;
	return false;
}

/* ip_route_input_mc() for the all-hosts group, the only one the server's devices join
 * (ip_mc_up(), with or without CONFIG_IP_MULTICAST): the source's checks, then consumed. */
static int v4_all_hosts_rule(const uint8_t *s)
{
	if ((s[0] & 0xf0) == 0xe0 || (s[0] & s[1] & s[2] & s[3]) == 255)
		return RULE_V4_MARTIAN_SRC;
	if (s[0] == 127)
		return RULE_V4_LOOPBACK;
	return s[0] && server_v4(s, false) ? RULE_V4_SRC_OWN : RULE_V4_MC_JOINED;
}

/* The rule the addresses of IPv4 header @ip break, in the kernel's order
 * (ip_route_input_rcu(), then ip_route_input_slow()), or -1; @server: to a listener in the
 * server netns, whose addresses, routes and groups decide the rest. */
static int v4_address_rule(const uint8_t *ip, bool server)
{
	const uint8_t *s = ip + 12, *d = ip + 16;
	static const uint8_t lbcast[4] = { 255, 255, 255, 255 }, all_hosts[4] = { 224, 0, 0, 1 };

	if ((d[0] & 0xf0) == 0xe0)
		return !server ? -1 : memcmp(d, all_hosts, 4) ? RULE_V4_MC_UNJOINED :
			v4_all_hosts_rule(s);
	if ((s[0] & 0xf0) == 0xe0 || !memcmp(s, lbcast, 4))
		return RULE_V4_MARTIAN_SRC;
	if (!memcmp(d, lbcast, 4)) /* brd_input: a source is checked unless it is zero-net */
		return s[0] == 0 ? -1 : server && server_v4(s, false) ? RULE_V4_SRC_OWN :
			RULE_V4_BCAST;
	if (s[0] == 0)
		return RULE_V4_MARTIAN_SRC;
	if (d[0] == 0)
		return RULE_V4_MARTIAN_DST;
	if (d[0] == 127 || s[0] == 127)
		return RULE_V4_LOOPBACK;
	if (!server)
		return -1;
	/* the fib: broadcast, local (the source validated: none of ours), or no route */
	bool bcast = server_v4(d, true);

	if (!bcast && !server_v4(d, false))
		return RULE_V4_DST_NOT_LOCAL;
	return server_v4(s, false) ? RULE_V4_SRC_OWN : bcast ? RULE_V4_BCAST : -1;
}

/* The rule the addresses of IPv6 header @ip break (ip6_rcv_core(), the route's input,
 * tcp_v6_conn_request()), or -1; @server as for v4_address_rule(). */
static int v6_address_rule(const uint8_t *ip, bool server)
{
	static const uint8_t loopback[16] = { [15] = 1 }, all_nodes[16] = { 0xff, 2, [15] = 1 };
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
	static const uint8_t solicited[13] = { 0xff, 2, [11] = 1, [12] = 0xff };
	const uint8_t *s = ip + 8, *d = ip + 24;

	if (!memcmp(s, loopback, 16) || !memcmp(d, loopback, 16))
		return RULE_V6_LOOPBACK;
	if (d[0] == 0xff && (d[1] & 0x0f) <= 1)
		return RULE_V6_MC_SCOPE;
	if (s[0] == 0xff)
		return RULE_V6_SRC_MC;
	if (d[0] == 0xff)
		/* every device joins all-nodes; a solicited-node group only where the device
		 * resolves neighbours (not tun0): not decided by the bytes */
		return !server || !memcmp(d, solicited, 13) ? -1 :
		       !memcmp(d, all_nodes, 16) ? RULE_V6_MC_JOINED : RULE_V6_MC_UNJOINED;
	return !memcmp(s, mapped, 12) ? RULE_V6_MAPPED : -1;
}

/* ip_rcv_options()'s rule the IPv4 options of @ip (@hl bytes of header) break, or -1. */
static int v4_options_rule(const uint8_t *ip, size_t hl)
{
	uint8_t want[60];
	size_t srr;
	long stamp;

	if (hl <= 20)
		return -1;
	if (ipv4_options_compile(ip, hl, NULL, want, &stamp, &srr))
		return RULE_V4_IPOPT;
	return srr ? RULE_V4_SRR : -1;
}

/*
 * ip6_input()'s routing header rule in the extension headers of @ip (@net_len bytes), or -1:
 * ipv6_rthdr_rcv() drops a segment routing (4) or RPL (3) header whatever its segments left
 * (the default seg6_enabled and rpl_seg_enabled are 0), and any other type with segments left
 * (type 0 is no longer routed; type 2 only with CONFIG_IPV6_MIP6, off in the guest). With none
 * left it goes on to the next header (type 2 too: without MIP6 nothing checks it).
 */
static int v6_rthdr_rule(const uint8_t *ip, size_t net_len)
{
	uint8_t next = ip[6];
	size_t off = 40;

	while ((next == 0 || next == 43 || next == 60 || next == 51) && off + 8 <= net_len) {
		size_t len = next == 51 ? ((size_t)ip[off + 1] + 2) * 4 :
					  ((size_t)ip[off + 1] + 1) * 8;

		if (next == 43 && (ip[off + 2] == 3 || ip[off + 2] == 4 || ip[off + 3]))
			return RULE_V6_RTHDR;
		next = ip[off];
		off += len;
	}
	return -1;
}

/* tcp_inbound_hash() (6.7 on) or tcp_inbound_md5_hash() (before): the rule the TCP options of
 * @th (@tcp_len bytes) from @ip break on tree @tree, or -1. An AO option where the tree has
 * TCP-AO is left to a key lookup that is not modelled: no rule. */
static int auth_rule(const uint8_t *ip, int family, const uint8_t *th, size_t tcp_len,
		     const struct tree_facts *tree)
{
	bool ao = false;

	if (tree_at_least(tree, 6, 7) && auth_parse(th + 20, tcp_len - 20, tree->tcp_ao, &ao))
		return RULE_AUTH_HDR;
	if (ao && tree->tcp_ao)
		return -1;
	return has_md5_option(th + 20, tcp_len - 20) && !source_has_md5_key(ip, family) ?
		       RULE_MD5 : -1;
}

/* The reason rule @r's drops carry on tree @tree: 6.1's, or 6.12's from 6.12 on; NULL for a
 * rule whose SYNs are consumed, and between the two versions where they differ (not read
 * there: no drop is explained by it). */
static const char *rule_reason(const struct drop_rule *r, const struct tree_facts *tree)
{
	if (!r->reason_612 || !tree_at_least(tree, 6, 2))
		return r->reason;
	return tree_at_least(tree, 6, 12) ? r->reason_612 : NULL;
}

/* The first rule, in the kernel's order, that the SYN's bytes (@p, laid out in @l) break on
 * tree @tree; @to_listener: its destination port is one of the plan's listeners in the server
 * netns, which the rules of the server's addresses and the ACK rule need (a SYN-ACK to a
 * connecting socket is no listener's business). */
static const struct drop_rule *rule_of_bytes(const uint8_t *p, const struct syn_layout *l,
					     const struct tree_facts *tree, bool to_listener)
{
	const uint8_t *ip = p + l->mac_len, *th = p + l->tcp_off;
	uint8_t fl = th[13];
	int addr = l->family == AF_INET ? v4_address_rule(ip, to_listener) :
					  v6_address_rule(ip, to_listener), r;

	/* the IP layer: routing, then IPv4 options, then the route's input (ip_error()); a
	 * consumed SYN is TCP's to refuse, after its own checks */
	if (addr >= 0 && drop_rules[addr].reason && addr != RULE_V4_DST_NOT_LOCAL)
		return &drop_rules[addr];
	if (l->family == AF_INET && (r = v4_options_rule(ip, l->net_len)) >= 0)
		return &drop_rules[r];
	if (l->family == AF_INET6 && (r = v6_rthdr_rule(ip, l->net_len)) >= 0)
		return &drop_rules[r];
	if (addr == RULE_V4_DST_NOT_LOCAL)
		return &drop_rules[addr];
	if (!(fl & 0x02))
		return NULL;
	if ((r = auth_rule(ip, l->family, th, l->tcp_len, tree)) >= 0)
		return &drop_rules[r];
	if (fl & 0x10)
		return to_listener ? &drop_rules[RULE_SYN_ACK] : NULL;
	if (fl & 0x04)
		return &drop_rules[RULE_RST];
	if (fl & 0x01)
		return &drop_rules[RULE_FIN];
	return addr >= 0 ? &drop_rules[addr] : NULL;
}

/* The rule SYN @bytes (@len, @mac_len of them link layer) breaks, or NULL (also for bytes
 * whose headers do not lay out whole). */
static const struct drop_rule *rule_in(const uint8_t *bytes, size_t len, size_t mac_len,
				      const struct tree_facts *tree, bool to_listener)
{
	struct syn_layout l;

	if (syn_layout(bytes, len, mac_len, &l) || !l.family || l.tcp_len < 20 ||
	    l.tcp_off + l.tcp_len > len)
		return NULL;
	return rule_of_bytes(bytes, &l, tree, to_listener);
}

const char *listener_drop_rule(const uint8_t *bytes, size_t len, size_t mac_len,
			       const struct tree_facts *tree)
{
	const struct drop_rule *r = rule_in(bytes, len, mac_len, tree, true);

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
	const struct drop_rule *r = rule_in(in->bytes, in->len, in->mac_len, in->tree,
					    in->to_listener);
	const char *rr = r ? rule_reason(r, in->tree) : NULL;

	if (rr && !strcmp(rr, name))
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
				    rule_in(in->bytes, in->len, in->mac_len, in->tree,
					    in->to_listener);

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
	else if (!consumed && in->drops < in->copies && in->copies == UINT_MAX)
		snprintf(buf, n, "yet only %u of its 255 or more copies were dropped", in->drops);
	else if (!consumed && in->drops < in->copies)
		snprintf(buf, n, "yet only %u of its %u copies were dropped", in->drops, in->copies);
	else
		return NULL;
	return buf;
}

int judge_unbound(const struct unbound_input *in, struct compare_result *out)
{
	/* a drop is explained only by the kernel's own reason, which a witness without drop
	 * reasons cannot read, whatever name reached it */
	const char *why = !in->drops ? consumed_evidence(in) :
			  in->no_drop_reasons ? NULL : drop_evidence(in, in->drop_reason);
	const char *how = in->drops ? in->drop_reason : "consumed";
	bool must_drop = in->declared == DECLARES_DROP;
	bool must_connect = in->declared != DECLARES_NOTHING && !must_drop;
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
	if (!in->drops) {
		/* what it did with the SYN instead, where the witness saw it */
		const char *t = taken_after_all(in, true, taken, sizeof(taken));

		snprintf(out->detail, sizeof(out->detail), "no socket took this SYN and the kernel "
			 "reported no drop of it%s%s%.70s", must_drop ? " (declared must-drop)" : "",
			 t ? "; " : "", t ? t : "");
	}
	else if (must_connect)
		snprintf(out->detail, sizeof(out->detail), "the kernel dropped a SYN its generator "
			 "made to connect (%s, %u cop%s)", in->drop_reason ? in->drop_reason : "?",
			 in->drops, in->drops == 1 ? "y" : "ies");
	else if (in->no_drop_reasons)
		snprintf(out->detail, sizeof(out->detail), "dropped by the kernel (%u cop%s), for a "
			 "reason the witness cannot read on this kernel (kfree_skb without drop "
			 "reasons): not explained", in->drops, in->drops == 1 ? "y" : "ies");
	else
		snprintf(out->detail, sizeof(out->detail), "dropped by the kernel (%s) with no "
			 "validity check in its bytes to show for it",
			 in->drop_reason ? in->drop_reason : "unknown reason");
	return 1;
}
