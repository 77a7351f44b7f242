// SPDX-License-Identifier: GPL-2.0
/*
 * The judge, table-driven: each reason a verdict can give (and each unexplained verdict), and
 * next to it its near misses: the same observation with one byte off or one proof missing,
 * which must not be explained. Every case starts from one observation (a socket whose saved
 * SYN equals the witness's one copy) and changes only what it names.
 */
#include <errno.h>
#include <linux/types.h>
#include <stdio.h>
#include <string.h>

#include "capture.h"
#include "check.h"
#include "inet_csum.h"
#include "judge.h"
#include "syn_fixtures.h"

#define MAXLEN 128

/* The tree the drop rules are read from (compare/tree_facts.h). */
static const struct tree_facts tree61 = { .major = 6, .minor = 1 };

struct fixture {
	uint8_t native[MAXLEN];
	uint8_t copy_bytes[3][MAXLEN];
	struct copy_view copy[3];
	struct syn_reads reads;
	struct observation ob;
};

/* The label of generator @gen (NULL: none): its name, and what it declares (gen/registry.h). */
static void label(struct fixture *f, const char *gen)
{
	f->ob.gen = gen;
	f->ob.declares = gen_declares_of(gen);
}

/* A socket's saved SYN, mode 1, and the witness's one copy of it: byte for byte the same. */
static void base(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	memcpy(f->native, syn_full, sizeof(syn_full));
	memcpy(f->copy_bytes[0], syn_full, sizeof(syn_full));
	f->copy[0] = (struct copy_view){ .data = f->copy_bytes[0], .len = sizeof(syn_full),
					 .net_len = 32, .tcp_len = 40 };
	f->ob = (struct observation){ .socket = true, .mode = 1, .native = f->native,
				      .native_len = sizeof(syn_full), .copy = f->copy, .n = 1,
				      .env = &run_env, .tree = &tree61, .gen = "sockets",
				      .declares = DECLARES_CONNECT,
				      .knobs = "plain" };
}

/* The kernel's IPv4 option rewrite applied to the saved copy. */
static void rewrite(struct fixture *f)
{
	base(f);
	memcpy(f->copy_bytes[0], syn_rr, sizeof(syn_rr));
	rewritten_rr(f->native);
}

/* Mode 2: the kernel's copy has a 14-byte MAC header; the witness's has a QinQ inner tag
 * after it (18 bytes), which the kernel takes into skb metadata before it saves. */
static void vlan(struct fixture *f)
{
	uint8_t *t = f->copy_bytes[0];

	base(f);
	memset(f->native, 0, 14);
	f->native[0] = 0x02, f->native[12] = 0x08;
	memcpy(f->native + 14, syn_full, sizeof(syn_full));
	memcpy(t, f->native, 12);
	t[12] = 0x81, t[13] = 0x00, t[14] = 0x00, t[15] = 20;
	memcpy(t + 16, f->native + 12, 14 + sizeof(syn_full) - 12);
	f->copy[0] = (struct copy_view){ .data = t, .len = 18 + sizeof(syn_full), .mac_len = 18,
					 .net_len = 32, .tcp_len = 40 };
	f->ob.mode = 2;
	f->ob.native_len = 14 + sizeof(syn_full);
}

/* Mode 2 behind an in-band tag, with RR options the kernel rewrote: both explained. */
static void vlan_rewrite(struct fixture *f)
{
	vlan(f);
	memcpy(f->copy_bytes[0] + 18, syn_rr, sizeof(syn_rr));
	rewritten_rr(f->native + 14);
}

/* ... but the kernel's MAC header kept the in-band tag: wrong, whatever the options say. */
static void tag_kept(struct fixture *f)
{
	memcpy(f->native, f->copy_bytes[0], 18);
	rewritten_rr(f->native + 18);
	f->ob.native_len = 18 + sizeof(syn_rr);
}

/* Two copies: the first (IP ID 0x1234) made the request, the second (IP ID 0x1235) the kernel
 * dropped; the kernel saved the first. */
static void retransmit(struct fixture *f)
{
	base(f);
	memcpy(f->copy_bytes[1], syn_full, sizeof(syn_full));
	f->copy_bytes[1][5] = 0x35;
	f->copy[1] = (struct copy_view){ .data = f->copy_bytes[1], .len = sizeof(syn_full),
					 .dropped = true, .drop_reason = "TCP_FLAGS" };
	f->ob.n = 2;
}

/* The cookie tc validated, and the ISN of a socket made from it. */
#define COOKIE_ISN 0x5eed1234u

/* No saved copy, and the witness saw the flow's ACK validated as a syncookie, the socket's own
 * ISN that cookie, on a connection the plan made while syncookies were forced. */
static void cookie(struct fixture *f)
{
	base(f);
	f->ob.native = NULL;
	f->ob.native_len = 0;
	f->ob.syncookie_proven = true;
	f->ob.cookie_isn = f->ob.socket_isn = COOKIE_ISN;
	f->ob.cookie_due = true;
}

/* A syncookie connection whose SYN came twice, the memory follower running: the second copy
 * came after the cookie window and made a request (the witness saw its SYN-ACK leave a request
 * socket), which saved a copy of its own. */
static void cookie_then_request(struct fixture *f)
{
	cookie(f);
	memcpy(f->copy_bytes[1], syn_full, sizeof(syn_full));
	f->copy[1] = (struct copy_view){ .data = f->copy_bytes[1], .len = sizeof(syn_full),
					 .net_len = 32, .tcp_len = 40, .saved = true,
					 .saved_size = SAVED_SYN_HDR + sizeof(syn_full) };
	f->ob.n = 2;
	f->ob.mem_followed = true;
	f->ob.request_seen = true;
	f->ob.have_tsecr = true; /* the request's SYN-ACK echoes the copy's TSval, 1 */
	f->ob.tsecr = 1;
}

/* A socket connection the plan made while syncookies were forced. */
static void cookie_due(struct fixture *f)
{
	base(f);
	f->ob.cookie_due = true;
}

/* A SYN no socket took: the generator declared it must-drop (its TCP checksum is wrong) and
 * the kernel dropped it for that reason. */
static void rejected(struct fixture *f)
{
	base(f);
	f->ob.socket = false;
	f->ob.native = NULL;
	f->ob.native_len = 0;
	label(f, "rejected");
	f->ob.drops = 1;
	f->ob.drop_reason = "TCP_CSUM";
}

/* rejected(), with the TCP checksum made right: the drop reason has nothing to show for it. */
static void right_checksum(struct fixture *f)
{
	uint8_t *b = f->copy_bytes[0];
	uint16_t c = tcp_csum4(b + 12, b + 16, b + 32, sizeof(syn_full) - 32);

	memcpy(b + 32 + 16, &c, 2);
}

/* rejected() on a kernel where the witness reads no drop reasons (kfree_skb without them):
 * the drop's reason unknown, as the comparator names DROP_REASON_UNKNOWN. */
static void no_drop_reasons(struct fixture *f)
{
	f->ob.drop_reason = NULL;
	f->ob.no_drop_reasons = true;
}

static void reason_named_none_read(struct fixture *f)
{
	f->ob.no_drop_reasons = true;
}

/* A planned abandoned handshake, reset by its peer: saved once (struct saved_syn + 72 header
 * bytes) and freed. */
static void abandoned(struct fixture *f)
{
	rejected(f);
	label(f, "abandon-rst");
	f->ob.drops = 0;
	f->ob.drop_reason = NULL;
	f->ob.rst_seen = true;
	f->ob.synacks = 1;
	f->ob.listener_mode = 1;
	f->copy[0].saved = true;
	f->copy[0].saved_size = SAVED_SYN_HDR + sizeof(syn_full);
}

/* The memory follower ran and saw the one allocation the saved copy needs. */
static void followed(struct fixture *f)
{
	base(f);
	f->ob.mem_followed = true;
	f->copy[0].saved = true;
	f->copy[0].saved_size = SAVED_SYN_HDR + sizeof(syn_full);
}

/* No capture at all for a socket. */
static void no_capture(struct fixture *f)
{
	base(f);
	f->ob.n = 0;
	f->ob.map_entries = 16;
}

/* A passive socket with no SYN captured, made by a cookie ACK tc validated after the SYN's
 * capture was taken, for a flow and ISN an earlier connection was judged a syncookie for; the
 * kernel saved nothing. */
static void cookie_repeat(struct fixture *f)
{
	no_capture(f);
	f->ob.native = NULL;
	f->ob.native_len = 0;
	f->ob.cookie_child = true;
	f->ob.cookie_isn = f->ob.socket_isn = COOKIE_ISN;
	f->ob.cookie_conn_judged = true;
	f->ob.cookie_due = true;
}

/* A socket-knob SYN no socket took, answered with a syncookie (its SYN-ACK's ISN validated),
 * no ACK validated after it, the memory follower running and no allocation seen. */
static void cookie_no_child(struct fixture *f)
{
	rejected(f);
	label(f, "sockets");
	f->ob.drops = 0;
	f->ob.drop_reason = NULL;
	f->ob.synack_cookie = true;
	f->ob.synacks = 1;
	f->ob.mem_followed = true;
	f->ob.cookie_due = true;
}

/* An active socket (its saved SYN-ACK equal to the witness's copy) whose connection was then
 * reset: ECONNRESET, and the witness saw the server's RST reach the client. */
static void reset_after_synack(struct fixture *f)
{
	base(f);
	f->ob.active = true;
	f->ob.client_errno = ECONNRESET;
	f->ob.rst_seen = true;
}

/* What the kernel's in-kernel readers return of the fixture's saved copy when sockops binds it:
 * its regions by the witness's split (copy 0), the MAC header only in mode 2; every one -ENOENT
 * when no copy was saved. */
static void read_back(struct fixture *f)
{
	size_t n = f->ob.native ? f->ob.native_len : 0, tcp = f->copy[0].tcp_len;
	size_t ip = f->copy[0].net_len + tcp;

	f->reads = (struct syn_reads){ .tcp.len = -ENOENT, .ip.len = -ENOENT, .mac.len = -ENOENT };
	if (n) {
		f->reads.tcp.len = (int)tcp;
		memcpy(f->reads.tcp.b, f->native + n - tcp, tcp);
		f->reads.ip.len = (int)ip;
		memcpy(f->reads.ip.b, f->native + n - ip, ip);
	}
	if (n && f->ob.mode == 2) {
		f->reads.mac.len = (int)n;
		memcpy(f->reads.mac.b, f->native, n);
	}
	f->ob.reads = &f->reads;
}

static void readers_base(struct fixture *f) { base(f); read_back(f); }
static void readers_vlan(struct fixture *f) { vlan(f); read_back(f); }
static void readers_cookie(struct fixture *f) { cookie(f); read_back(f); }

struct judge_case {
	const char *name;
	void (*make)(struct fixture *f);
	void (*tweak)(struct fixture *f);	/* the near miss's one change, or NULL */
	enum verdict verdict;
	enum reason reason;
	const char *detail;			/* a part of the detail, or NULL */
};

static void ttl_off(struct fixture *f) { f->native[8] ^= 1; }
static void rr_slot_off(struct fixture *f) { f->native[26] ^= 1; }
static void tag_and_tcp_off(struct fixture *f) { f->native[14 + 60] ^= 1; }
static void second_not_dropped(struct fixture *f) { f->copy[1].dropped = false; }
static void proof_missing(struct fixture *f) { f->ob.syncookie_proven = false; }
static void on_active(struct fixture *f) { f->ob.active = true; }
static void no_drop_seen(struct fixture *f) { f->ob.drops = 0; }
static void must_connect(struct fixture *f) { label(f, "sockets"); }
static void replayed(struct fixture *f) { label(f, "replay"); }
static void no_rst(struct fixture *f) { f->ob.rst_seen = false; }
static void leaked(struct fixture *f) { f->ob.leaked_at = "tcp_conn_request+0x42"; }
static void saved_twice(struct fixture *f) { f->copy[0].saved_again = true; }
static void saved_size_off(struct fixture *f) { f->copy[0].saved_size++; }
static void evicted(struct fixture *f) { f->ob.evicted = true; }
static void not_a_socket(struct fixture *f) { f->ob.socket = false; f->ob.isn = 1; }
/* the witness counted a copy more than it kept (cut), which was not dropped */
static void one_more_counted(struct fixture *f) { f->ob.copies = 2; f->ob.cut = true; }
/* ... 255 or more: its count saturated */
static void count_saturated(struct fixture *f) { f->ob.copies = 255; f->ob.cut = true; }
static void small_broken(struct fixture *f) { f->ob.small_buffer = "returned 0, not EINVAL"; }
static void small_ok(struct fixture *f) { f->ob.small_buffer = "ok"; }
static void not_due(struct fixture *f) { f->ob.cookie_due = false; }
static void truncated(struct fixture *f) { f->copy[0].truncated = true; }
static void followed_none(struct fixture *f) { f->ob.mem_followed = true; }
static void followed_saved(struct fixture *f)
{
	f->ob.mem_followed = true;
	f->copy[0].saved = true;
	f->copy[0].saved_size = SAVED_SYN_HDR + sizeof(syn_full);
}
static void flow_reused(struct fixture *f) { f->ob.flow_reused = true; }
/* hdrlen-split-wrong: the network header recorded 4 bytes longer, the TCP header 4 shorter */
static void split_off(struct fixture *f)
{
	f->reads.tcp.len = 36;
	memcpy(f->reads.tcp.b, f->native + 36, 36);
}
static void read_byte_off(struct fixture *f) { f->reads.ip.b[5] ^= 1; }
static void mac_in_mode1(struct fixture *f)
{
	f->reads.mac.len = 72;
	memcpy(f->reads.mac.b, f->native, 72);
}
static void no_mac_in_mode2(struct fixture *f) { f->reads.mac.len = -ENOENT; }
static void read_where_none(struct fixture *f) { f->reads.tcp.len = 40; }
static void read_cut(struct fixture *f) { f->reads.ip.len = -ENOSPC; }
static void isn_not_cookie(struct fixture *f) { f->ob.socket_isn = COOKIE_ISN + 1; }
static void no_request_seen(struct fixture *f) { f->ob.request_seen = false; }
static void first_saved_too(struct fixture *f) { followed_saved(f); }
static void request_saved_twice(struct fixture *f) { f->copy[1].saved_again = true; }
static void request_copy_dropped(struct fixture *f) { f->copy[1].dropped = true; }
static void request_save_size_off(struct fixture *f) { f->copy[1].saved_size++; }
static void request_synack_echoes_other(struct fixture *f) { f->ob.tsecr = 2; }

static void due_on_active(struct fixture *f) { f->ob.active = true; }
static void must_drop_taken(struct fixture *f) { label(f, "rejected"); }
static void unlabelled(struct fixture *f) { label(f, NULL); f->ob.drops = 0; }
static void no_native(struct fixture *f) { f->ob.native = NULL; f->ob.native_len = 0; }
static void first_not_judged(struct fixture *f) { f->ob.cookie_conn_judged = false; }
static void copy_saved(struct fixture *f) { f->copy[0].saved = true; }
static void not_followed(struct fixture *f) { f->ob.mem_followed = false; }
static void ack_validated(struct fixture *f) { f->ob.syncookie_proven = true; }
static void no_synack_cookie(struct fixture *f) { f->ob.synack_cookie = false; }
static void declared_must_drop(struct fixture *f) { label(f, "rejected"); }
static void no_cookie_ack(struct fixture *f) { f->ob.cookie_child = false; }
static void timed_out(struct fixture *f) { f->ob.client_errno = ETIMEDOUT; }
static void on_passive(struct fixture *f) { f->ob.active = false; f->ob.rst_seen = false; }
static void saved_for_child(struct fixture *f) { f->ob.native = f->native; f->ob.native_len = 40; }
static void answered(struct fixture *f) { f->ob.synacks = 1; }
/* The SYN carries FIN too (the kernel's copy and the witness's alike; checksum aside), and a
 * replay made it: no generator declared anything, yet the bytes forbid a connection. */
static void syn_fin_replayed(struct fixture *f)
{
	f->native[32 + 13] |= 0x01;
	f->copy_bytes[0][32 + 13] |= 0x01;
	label(f, "replay");
}

static const struct judge_case cases[] = {
	{ "identical", base, NULL, V_IDENTICAL, R_NONE, NULL },
	{ "identical, ttl off", base, ttl_off, V_DIFFER, R_NONE, "ipv4.ttl" },
	{ "ipv4-option-rewrite", rewrite, NULL, V_EXPLAINED, R_IPV4_OPTION_REWRITE, NULL },
	{ "rewrite, slot byte off", rewrite, rr_slot_off, V_DIFFER, R_NONE, "RR (kind 7)" },
	{ "vlan-offload", vlan, NULL, V_EXPLAINED, R_VLAN_OFFLOAD, NULL },
	{ "vlan, a TCP byte off too", vlan, tag_and_tcp_off, V_DIFFER, R_NONE, NULL },
	{ "vlan and the option rewrite", vlan_rewrite, NULL, V_EXPLAINED, R_IPV4_OPTION_REWRITE,
	  NULL },
	{ "vlan and the rewrite, the tag kept", vlan_rewrite, tag_kept, V_DIFFER, R_NONE,
	  "kept the capture's in-band VLAN tag" },
	{ "syn-retransmit", retransmit, NULL, V_EXPLAINED, R_RETRANSMIT, NULL },
	{ "retransmit, no drop proven", retransmit, second_not_dropped, V_DIFFER, R_NONE, NULL },
	{ "syncookie", cookie, NULL, V_EXPLAINED, R_SYNCOOKIE, NULL },
	{ "syncookie, proof missing", cookie, proof_missing, V_NATIVE_MISSING, R_NONE, NULL },
	{ "syncookie, on an active socket", cookie, on_active, V_NATIVE_MISSING, R_NONE, NULL },
	/* the proof is the socket's: a cookie validated for the flow, and its own ISN that cookie */
	{ "syncookie, socket ISN not the cookie", cookie, isn_not_cookie, V_NATIVE_MISSING, R_NONE,
	  "but this socket's own ISN is 1592594997" },
	{ "syncookie, a later copy's request saved", cookie_then_request, NULL, V_EXPLAINED,
	  R_SYNCOOKIE, "copy 2 of 2 made a request of its own" },
	{ "later copy saved, no request seen", cookie_then_request, no_request_seen, V_DIFFER,
	  R_NONE, "while processing copy 2 of 2, yet TCP_SAVED_SYN returned nothing" },
	{ "later copy saved, the first too", cookie_then_request, first_saved_too, V_DIFFER, R_NONE,
	  "yet TCP_SAVED_SYN returned nothing" },
	{ "later copy saved twice", cookie_then_request, request_saved_twice, V_DIFFER, R_NONE,
	  "yet TCP_SAVED_SYN returned nothing" },
	{ "later copy saved, yet dropped", cookie_then_request, request_copy_dropped, V_DIFFER,
	  R_NONE, "yet TCP_SAVED_SYN returned nothing" },
	{ "later copy saved, a byte more", cookie_then_request, request_save_size_off, V_DIFFER,
	  R_NONE, "yet TCP_SAVED_SYN returned nothing" },
	{ "later copy saved, the SYN-ACK echoes another", cookie_then_request,
	  request_synack_echoes_other, V_DIFFER, R_NONE, "which-copy proofs disagree" },
	{ "later copy saved, socket ISN not the cookie", cookie_then_request, isn_not_cookie,
	  V_NATIVE_MISSING, R_NONE, "own ISN is" },
	{ "syncookie-repeat", cookie_repeat, NULL, V_EXPLAINED, R_COOKIE_REPEAT, "second child" },
	{ "repeat, no first child judged", cookie_repeat, first_not_judged, V_BPF_MISSING, R_NONE,
	  "no earlier syncookie connection" },
	{ "repeat, no cookie ACK seen", cookie_repeat, no_cookie_ack, V_BPF_MISSING, R_NONE,
	  "no BPF capture" },
	{ "repeat, bytes saved", cookie_repeat, saved_for_child, V_DIFFER, R_NONE,
	  "40 saved bytes" },
	{ "repeat, on an active socket", cookie_repeat, on_active, V_BPF_MISSING, R_NONE, NULL },
	{ "repeat, socket ISN not the cookie", cookie_repeat, isn_not_cookie, V_BPF_MISSING, R_NONE,
	  "but its own ISN is 1592594997" },
	{ "syncookie-no-child", cookie_no_child, NULL, V_EXPLAINED, R_COOKIE_NO_CHILD,
	  "nothing was saved" },
	{ "no child, a copy saved", cookie_no_child, copy_saved, V_DIFFER, R_NONE,
	  "allocated a saved copy" },
	{ "no child, saved and never freed", cookie_no_child, leaked, V_DIFFER, R_NONE,
	  "never freed" },
	{ "no child, memory not followed", cookie_no_child, not_followed, V_UNBOUND, R_NONE,
	  "without the memory follower" },
	{ "no child, yet an ACK validated", cookie_no_child, ack_validated, V_UNBOUND, R_NONE, NULL },
	{ "no child, no cookie in its SYN-ACK", cookie_no_child, no_synack_cookie, V_UNBOUND, R_NONE,
	  NULL },
	{ "no child, declared must-drop", cookie_no_child, declared_must_drop, V_DIFFER, R_NONE,
	  "must drop" },
	{ "native-missing", base, no_native, V_NATIVE_MISSING, R_NONE, "no syncookie" },
	/* a cookie only where the plan forced them, and one wherever it did */
	{ "syncookie, not due", cookie, not_due, V_COOKIE_NOT_DUE, R_NONE,
	  "plan forced no syncookies" },
	{ "repeat, not due", cookie_repeat, not_due, V_COOKIE_NOT_DUE, R_NONE,
	  "explained as syncookie-repeat" },
	{ "no child, not due", cookie_no_child, not_due, V_COOKIE_NOT_DUE, R_NONE,
	  "explained as syncookie-no-child" },
	{ "syncookie, followed, nothing saved", cookie, followed_none, V_EXPLAINED, R_SYNCOOKIE,
	  NULL },
	{ "syncookie, yet a copy saved", cookie, followed_saved, V_DIFFER, R_NONE,
	  "yet TCP_SAVED_SYN returned nothing" },
	{ "capture cut at CAPTURE_MAX", base, truncated, V_TRUNCATED, R_NONE,
	  "nothing past that can be compared" },
	{ "cut capture of a SYN no socket took", rejected, truncated, V_TRUNCATED, R_NONE, NULL },
	{ "cookie due, SYN saved", cookie_due, NULL, V_COOKIE_MISSING, R_NONE,
	  "made a request and saved its SYN" },
	{ "cookie due, 4-tuple reopened", cookie_due, flow_reused, V_IDENTICAL, R_NONE, NULL },
	{ "cookie due, an active record", cookie_due, due_on_active, V_IDENTICAL, R_NONE, NULL },
	{ "cookie due, bytes differ", cookie_due, ttl_off, V_DIFFER, R_NONE, "ipv4.ttl" },
	{ "rejected-by-kernel", rejected, NULL, V_EXPLAINED, R_REJECTED, "TCP checksum wrong" },
	{ "rejected, a copy not kept and not dropped", rejected, one_more_counted, V_UNBOUND,
	  R_NONE, "only 1 of its 2 copies were dropped" },
	{ "rejected, the copies' count saturated", rejected, count_saturated, V_UNBOUND, R_NONE,
	  "only 1 of its 255 or more copies were dropped" },
	{ "rejected, checksum right", rejected, right_checksum, V_UNBOUND, R_NONE,
	  "no validity check" },
	/* the checksum wrong, but no reason to hold it to: not explained, and said why */
	{ "rejected, witness without drop reasons", rejected, no_drop_reasons, V_UNBOUND, R_NONE,
	  "a reason the witness cannot read on this kernel" },
	/* a reason's name with the witness saying it has none: the name is not taken */
	{ "rejected, a reason named but none read", rejected, reason_named_none_read, V_UNBOUND,
	  R_NONE, "a reason the witness cannot read on this kernel" },
	{ "rejected, no drop seen", rejected, no_drop_seen, V_UNBOUND, R_NONE, "reported no drop" },
	{ "rejected, declared must-connect", rejected, must_connect, V_UNBOUND, R_NONE,
	  "made to connect" },
	{ "dropped-by-kernel (replay)", rejected, replayed, V_EXPLAINED, R_DROPPED, NULL },
	/* a drop is explained only when nothing says the kernel took the SYN after all */
	{ "rejected, yet answered", rejected, answered, V_UNBOUND, R_NONE,
	  "yet the witness saw 1 SYN-ACK answer it" },
	{ "rejected, yet saved", rejected, copy_saved, V_UNBOUND, R_NONE,
	  "yet the kernel allocated a saved copy" },
	{ "a replayed SYN|FIN made a connection", base, syn_fin_replayed, V_DIFFER, R_NONE,
	  "a SYN its listener must drop (syn-fin" },
	{ "abandoned", abandoned, NULL, V_EXPLAINED, R_ABANDONED, "reset by its peer" },
	{ "abandoned, no RST seen", abandoned, no_rst, V_DIFFER, R_NONE, "no RST" },
	{ "abandoned, never freed", abandoned, leaked, V_DIFFER, R_NONE, "never freed" },
	{ "allocation as expected", followed, NULL, V_IDENTICAL, R_NONE, NULL },
	{ "allocation, twice", followed, saved_twice, V_DIFFER, R_NONE, "two saved-SYN" },
	{ "allocation, one byte more", followed, saved_size_off, V_DIFFER, R_NONE, "allocated 85" },
	{ "bpf-missing", no_capture, NULL, V_BPF_MISSING, R_NONE, "no BPF capture" },
	{ "witness-map-eviction", no_capture, evicted, V_BPF_MISSING, R_EVICTED, "16 entries" },
	{ "gave up, never captured", no_capture, not_a_socket, V_BPF_MISSING, R_NONE,
	  "no SYN-ACK came" },
	{ "small-buffer contract broken", base, small_broken, V_DIFFER, R_NONE,
	  "read contract: returned 0" },
	{ "small-buffer contract kept", base, small_ok, V_IDENTICAL, R_NONE, NULL },
	{ "must-drop SYN a socket took", base, must_drop_taken, V_DIFFER, R_NONE,
	  "accepted a SYN it must drop (plain)" },
	{ "unbound: no label, no drop", rejected, unlabelled, V_UNBOUND, R_NONE, "reported no drop" },
	{ "reset after the SYN-ACK, RST seen", reset_after_synack, NULL, V_IDENTICAL, R_NONE,
	  "then reset by the server" },
	{ "reset, no RST seen", reset_after_synack, no_rst, V_CONN_FAILED, R_NONE,
	  "saw no RST from the server" },
	{ "failed another way, an RST seen", reset_after_synack, timed_out, V_CONN_FAILED, R_NONE,
	  "nothing on the wire explains it" },
	{ "reset, RST seen, a byte off", reset_after_synack, ttl_off, V_DIFFER, R_NONE, "ipv4.ttl" },
	/* the client's error is an active socket's only: a passive record never carries one */
	{ "client error on a passive record", reset_after_synack, on_passive, V_IDENTICAL, R_NONE,
	  NULL },
	/* the in-kernel readers of the copy: its userspace read, split where the witness's is */
	{ "readers agree", readers_base, NULL, V_IDENTICAL, R_NONE, NULL },
	{ "readers, split 4 bytes off", readers_base, split_off, V_READER_DIFFERS, R_NONE,
	  "TCP_BPF_SYN returned 36, want 40 bytes" },
	{ "readers, a byte off", readers_base, read_byte_off, V_READER_DIFFERS, R_NONE,
	  "TCP_BPF_SYN_IP: byte 5 is 0x35, the same byte of TCP_SAVED_SYN's read 0x34" },
	{ "readers, a MAC header in mode 1", readers_base, mac_in_mode1, V_READER_DIFFERS, R_NONE,
	  "TCP_BPF_SYN_MAC returned 72, want -ENOENT (mode 1 keeps no MAC header)" },
	{ "readers, -ENOSPC", readers_base, read_cut, V_READER_DIFFERS, R_NONE,
	  "TCP_BPF_SYN_IP returned -28, want 72 bytes" },
	{ "readers, mode 2 behind an offloaded tag", readers_vlan, NULL, V_EXPLAINED,
	  R_VLAN_OFFLOAD, NULL },
	{ "readers, mode 2 without the MAC", readers_vlan, no_mac_in_mode2, V_READER_DIFFERS,
	  R_NONE, "TCP_BPF_SYN_MAC returned -2, want 86 bytes" },
	{ "readers, nothing for a cookie child", readers_cookie, NULL, V_EXPLAINED, R_SYNCOOKIE,
	  NULL },
	{ "readers, a copy for a cookie child", readers_cookie, read_where_none, V_READER_DIFFERS,
	  R_NONE, "TCP_BPF_SYN returned 40, want -ENOENT (TCP_SAVED_SYN returned nothing)" },
};

/* A failure is any verdict but identical and explained, except the eviction: not a verdict on
 * the kernel, it makes the run partial instead. */
static int want_bad(const struct judge_case *c)
{
	return c->verdict != V_IDENTICAL && c->verdict != V_EXPLAINED && c->reason != R_EVICTED;
}

int main(void)
{
	static struct fixture f;
	struct compare_result r;
	int bad;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct judge_case *c = &cases[i];

		c->make(&f);
		if (c->tweak)
			c->tweak(&f);
		memset(&r, 0xa5, sizeof(r));
		bad = judge(&f.ob, &r);
		CHECK(r.verdict == c->verdict && r.reason == c->reason && bad == want_bad(c),
		      "%s: %s/%s bad %d, want %s/%s bad %d (%s)", c->name,
		      r.verdict < V_MAX ? verdict_names[r.verdict] : "?",
		      r.reason < R_MAX ? reason_names[r.reason] : "?", bad, verdict_names[c->verdict],
		      reason_names[c->reason], want_bad(c), r.detail);
		if (c->detail)
			CHECK(strstr(r.detail, c->detail) != NULL, "%s: detail '%s' lacks '%s'",
			      c->name, r.detail, c->detail);
	}
	CHECK_EQ_INT(gen_declares_of("rejected"), DECLARES_DROP);
	CHECK_EQ_INT(gen_declares_of("crafted"), DECLARES_CONNECT);
	CHECK_EQ_INT(gen_declares_of("abandon-close"), DECLARES_ABANDON_CLOSE);
	CHECK_EQ_INT(gen_declares_of("someone-elses"), DECLARES_CONNECT);
	CHECK(gen_declares_of("replay") == DECLARES_NOTHING && gen_declares_of(NULL) ==
	      DECLARES_NOTHING, "declares nothing");
	return check_report("judge");
}
