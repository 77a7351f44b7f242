// SPDX-License-Identifier: GPL-2.0
/*
 * The capture points' judge (judge/judge_point.h), table-driven like unit.judge: each verdict a
 * point can get beside its near miss; the userspace copy tag and flow (common/copy_tag.h) the
 * wire files its copies under; and the --capture-points list (common/point_names.h).
 */
#include <linux/types.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "capture.h"
#include "check.h"
#include "copy_tag.h"
#include "judge_point.h"
#include "point_names.h"
#include "syn_fixtures.h"

#define MAXLEN 160

struct fixture {
	uint8_t native[MAXLEN], copy[MAXLEN];
	struct point_input in;
};

/* Mode 1, a point before IP whose copy (with a 14-byte Ethernet header) is the kernel's. */
static void base(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	memcpy(f->native, syn_full, sizeof(syn_full));
	f->copy[12] = 0x08;
	memcpy(f->copy + 14, syn_full, sizeof(syn_full));
	f->in = (struct point_input){ .mode = 1, .native = f->native,
				      .native_len = sizeof(syn_full), .copy_named = true,
				      .copy = f->copy, .len = 14 + sizeof(syn_full), .mac_len = 14,
				      .env = &run_env };
}

/* The wire's copy of an RR option as received; the kernel saved it rewritten. */
static void rewrite(struct fixture *f)
{
	base(f);
	memcpy(f->copy + 14, syn_rr, sizeof(syn_rr));
	rewritten_rr(f->native);
}

/* ... and at TCP the point sees it rewritten, as the kernel saved it. */
static void rewrite_at_tcp(struct fixture *f)
{
	rewrite(f);
	rewritten_rr(f->copy + 14);
	f->in.after_ip = true;
}

/* Mode 2 with a QinQ frame as the wire shows it: both tags in-band (22-byte MAC header). */
static void qinq(struct fixture *f)
{
	base(f);
	f->in.mode = 2;
	memset(f->native, 0, 14);
	f->native[12] = 0x08;
	memcpy(f->native + 14, syn_full, sizeof(syn_full));
	f->in.native_len = 14 + sizeof(syn_full);
	memset(f->copy, 0, 12);
	memcpy(f->copy + 12, (uint8_t[]){ 0x88, 0xa8, 0, 10, 0x81, 0x00, 0, 20, 0x08, 0 }, 10);
	memcpy(f->copy + 22, syn_full, sizeof(syn_full));
	f->in.len = 22 + sizeof(syn_full);
	f->in.mac_len = 22;
}

/* QinQ on the wire with RR options the kernel rewrote: both explained. */
static void qinq_rr(struct fixture *f)
{
	qinq(f);
	memcpy(f->copy + 22, syn_rr, sizeof(syn_rr));
	rewritten_rr(f->native + 14);
}

/* ... but the kernel's MAC header kept the inner tag (18 bytes): wrong whatever the options. */
static void inner_tag_kept(struct fixture *f)
{
	memcpy(f->native, f->copy, 12);
	memcpy(f->native + 12, f->copy + 16, 6);
	rewritten_rr(f->native + 18);
	f->in.native_len = 18 + sizeof(syn_rr);
}

/* Mode 1 on QinQ: no MAC header compared, the tags out of the way. */
static void qinq_mode1(struct fixture *f)
{
	qinq(f);
	f->in.mode = 1;
	memcpy(f->native, syn_full, sizeof(syn_full));
	f->in.native_len = sizeof(syn_full);
}

/* One option byte changed before IP: no rewrite the kernel makes. */
static void rr_byte_off(struct fixture *f) { f->copy[14 + 21] ^= 0x10; }

struct judge_case {
	const char *name;
	void (*setup)(struct fixture *f);
	void (*change)(struct fixture *f);
	enum point_verdict verdict;
	enum reason reason;
	int bad;
	const char *detail;		/* in the detail, or NULL */
};

static void ttl(struct fixture *f) { f->copy[14 + 8] ^= 1; }
static void no_copy(struct fixture *f) { f->in.copy = NULL; }
static void no_copy_lost(struct fixture *f) { f->in.copy = NULL; f->in.point_lost = true; }
static void cut(struct fixture *f) { f->in.cut = true; }
static void no_native(struct fixture *f) { f->in.native = NULL; f->in.native_len = 0; }
static void unnamed(struct fixture *f) { f->in.copy_named = false; }
static void after_ip(struct fixture *f) { f->in.after_ip = true; }
static void qinq_ttl(struct fixture *f) { f->copy[22 + 8] ^= 1; }
static void one_tag_left(struct fixture *f) { f->native[12] = 0x81; }
static void nothing(struct fixture *f) { (void)f; }
static void ttl_after_ip(struct fixture *f) { after_ip(f); ttl(f); }

static const struct judge_case cases[] = {
	{ "identical", base, nothing, PV_IDENTICAL, R_NONE, 0, NULL },
	{ "identical after IP", base, after_ip, PV_IDENTICAL, R_NONE, 0, NULL },
	{ "a byte off", base, ttl, PV_DIFFER, R_NONE, 1, "ipv4.ttl" },
	{ "a byte off after IP", base, ttl_after_ip, PV_DIFFER, R_NONE, 1, "ipv4.ttl" },
	{ "no copy", base, no_copy, PV_MISSING, R_NONE, 1, "no copy" },
	{ "no copy, the point's store lost some", base, no_copy_lost, PV_LOST, R_NONE, 0, NULL },
	{ "cut short", base, cut, PV_TRUNCATED, R_NONE, 1, "cut short" },
	{ "no kernel copy", base, no_native, PV_NOT_COMPARED, R_NONE, 0, "no copy" },
	{ "no copy named", base, unnamed, PV_NOT_COMPARED, R_NONE, 0, "bound no copy" },
	{ "options as received, before IP", rewrite, nothing, PV_EXPLAINED,
	  R_IPV4_OPTION_REWRITE, 0, NULL },
	{ "options as received, at TCP", rewrite, after_ip, PV_DIFFER, R_NONE, 1,
	  "after IP receive processing" },
	{ "options rewritten, at TCP", rewrite_at_tcp, nothing, PV_IDENTICAL, R_NONE, 0, NULL },
	{ "options rewritten, a byte off, at TCP", rewrite_at_tcp, ttl, PV_DIFFER, R_NONE, 1, NULL },
	{ "two in-band tags", qinq, nothing, PV_EXPLAINED, R_VLAN_OFFLOAD, 0, "two in-band" },
	{ "two in-band tags, a byte off", qinq, qinq_ttl, PV_DIFFER, R_NONE, 1, NULL },
	{ "two in-band tags, the kernel kept one", qinq, one_tag_left, PV_DIFFER, R_NONE, 1, NULL },
	{ "two in-band tags at TCP", qinq, after_ip, PV_DIFFER, R_NONE, 1, NULL },
	{ "two tags and the rewrite", qinq_rr, nothing, PV_EXPLAINED, R_IPV4_OPTION_REWRITE, 0,
	  NULL },
	{ "two tags and the rewrite, the inner tag kept", qinq_rr, inner_tag_kept, PV_DIFFER,
	  R_NONE, 1, "kept the capture's in-band VLAN tag" },
	{ "two tags, mode 1", qinq_mode1, nothing, PV_IDENTICAL, R_NONE, 0, NULL },
	{ "options as received, one of their bytes off", rewrite, rr_byte_off, PV_DIFFER, R_NONE, 1,
	  NULL },
};

static void judge_cases(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct judge_case *c = &cases[i];
		struct point_result r;
		struct fixture f;
		int bad;

		c->setup(&f);
		c->change(&f);
		bad = judge_point(&f.in, &r);
		CHECK(r.verdict == c->verdict, "%s: %s (%s)", c->name,
		      point_verdict_names[r.verdict], r.detail);
		CHECK(r.verdict != PV_EXPLAINED || r.reason == c->reason, "%s: reason %s", c->name,
		      reason_names[r.reason]);
		CHECK_EQ_INT(bad, c->bad);
		if (c->detail)
			CHECK_STR_CONTAINS(r.detail, c->detail);
	}
}

/* The copy tag: the flow and tag of a frame, its QinQ tags, and what is no SYN. */
static void copy_tags(void)
{
	uint8_t f[MAXLEN] = { 0 }, g[MAXLEN];
	struct capture_key k;
	size_t mac = 14, hl;
	uint32_t tag, tag2;

	f[12] = 0x08;
	memcpy(f + 14, syn_full, sizeof(syn_full));
	CHECK_EQ_INT(syn_copy_tag(f, 14 + sizeof(syn_full), &mac, &k, &tag, &hl), 0);
	CHECK_EQ_INT(mac, 14);
	CHECK_EQ_INT(hl, 14 + sizeof(syn_full));
	CHECK_EQ_INT(k.family, AF_INET);
	CHECK_EQ_INT(k.seq, 1);
	CHECK_EQ_INT(ntohs(k.sport), 40000);
	CHECK_EQ_INT(ntohs(k.dport), 7001);
	CHECK(!memcmp(k.saddr, (uint8_t[]){ 198, 18, 0, 1 }, 4), "saddr");
	/* FNV-1a by hand: over the ID (0x00 0x12 0x34) and the TCP header but bytes 16-17 */
	{
		uint32_t h = 2166136261u;
		const uint8_t id[3] = { 0, 0x12, 0x34 }, *t = f + 14 + 32;

		for (int i = 0; i < 3; i++)
			h = (h ^ id[i]) * 16777619u;
		for (int i = 0; i < 40; i++)
			if (i != 16 && i != 17)
				h = (h ^ t[i]) * 16777619u;
		CHECK_EQ_INT(tag, h);
	}
	/* the checksum is not in it; the IP ID is */
	memcpy(g, f, sizeof(g));
	g[14 + 32 + 16] ^= 0xff;
	mac = 14;
	CHECK_EQ_INT(syn_copy_tag(g, 14 + sizeof(syn_full), &mac, &k, &tag2, &hl), 0);
	CHECK_EQ_INT(tag2, tag);
	g[14 + 5] ^= 1;
	mac = 14;
	CHECK_EQ_INT(syn_copy_tag(g, 14 + sizeof(syn_full), &mac, &k, &tag2, &hl), 0);
	CHECK(tag2 != tag, "the IP ID is in the tag");
	/* two in-band tags: a 22-byte link layer, the same flow and tag */
	memcpy(g, f, 12);
	memcpy(g + 12, (uint8_t[]){ 0x88, 0xa8, 0, 10, 0x81, 0x00, 0, 20 }, 8);
	memcpy(g + 20, f + 12, 2 + sizeof(syn_full));
	mac = 14;
	CHECK_EQ_INT(syn_copy_tag(g, 22 + sizeof(syn_full), &mac, &k, &tag2, &hl), 0);
	CHECK_EQ_INT(mac, 22);
	CHECK_EQ_INT(tag2, tag);
	/* an ACK, a frame that is not IP, a copy cut inside its TCP header: none */
	memcpy(g, f, sizeof(g));
	g[14 + 32 + 13] = 0x12;
	mac = 14;
	CHECK_EQ_INT(syn_copy_tag(g, 14 + sizeof(syn_full), &mac, &k, &tag2, &hl), -1);
	memcpy(g, f, sizeof(g));
	g[12] = 0x08, g[13] = 0x06;
	mac = 14;
	CHECK_EQ_INT(syn_copy_tag(g, 14 + sizeof(syn_full), &mac, &k, &tag2, &hl), -1);
	mac = 14;
	CHECK_EQ_INT(syn_copy_tag(f, 14 + sizeof(syn_full) - 1, &mac, &k, &tag2, &hl), -1);
	/* IPv6 with extension headers, raw IP (tun); and one whose chain ends in UDP */
	memcpy(g, syn6, sizeof(syn6));
	mac = 0;
	CHECK_EQ_INT(syn_copy_tag(g, sizeof(syn6), &mac, &k, &tag2, &hl), 0);
	CHECK_EQ_INT(k.family, AF_INET6);
	CHECK_EQ_INT(hl, sizeof(syn6));
	g[48] = 17;
	mac = 0;
	CHECK_EQ_INT(syn_copy_tag(g, sizeof(syn6), &mac, &k, &tag2, &hl), -1);
}

/* The witness's verdict in a point's terms (its row beside the points'). */
static void witness_rows(void)
{
	struct compare_result id = { .verdict = V_IDENTICAL }, ex = { .verdict = V_EXPLAINED,
								    .reason = R_VLAN_OFFLOAD },
			      ev = { .verdict = V_BPF_MISSING, .reason = R_EVICTED },
			      mi = { .verdict = V_BPF_MISSING }, tr = { .verdict = V_TRUNCATED },
			      df = { .verdict = V_DIFFER };

	CHECK_EQ_INT(point_verdict_of_witness(&id, 0, true), PV_IDENTICAL);
	CHECK_EQ_INT(point_verdict_of_witness(&id, 0, false), PV_NOT_COMPARED);
	CHECK_EQ_INT(point_verdict_of_witness(&ex, 0, true), PV_EXPLAINED);
	CHECK_EQ_INT(point_verdict_of_witness(&ev, 0, true), PV_LOST);
	CHECK_EQ_INT(point_verdict_of_witness(&mi, 1, true), PV_MISSING);
	CHECK_EQ_INT(point_verdict_of_witness(&tr, 1, true), PV_TRUNCATED);
	CHECK_EQ_INT(point_verdict_of_witness(&df, 1, true), PV_DIFFER);
	CHECK_EQ_INT(point_verdict_of_witness(&ex, 1, true), PV_DIFFER);
}

static void point_lists(void)
{
	unsigned int m;
	char err[160], text[64];

	CHECK_EQ_INT(points_parse("xdp,wire", &m, err, sizeof(err)), 0);
	CHECK_EQ_INT(m, 1u << PT_XDP | 1u << PT_WIRE);
	points_text(m | 1u << PT_TC, text, sizeof(text));
	CHECK(!strcmp(text, "xdp,tc,wire"), "%s", text);
	CHECK_EQ_INT(points_parse("all", &m, err, sizeof(err)), 0);
	CHECK_EQ_INT(m, (1u << PT_MAX) - 1);
	CHECK_EQ_INT(points_parse("tc", &m, err, sizeof(err)), 0);
	CHECK_EQ_INT(m, 1u << PT_TC);
	CHECK_EQ_INT(points_parse("xdp,bogus", &m, err, sizeof(err)), -1);
	CHECK_STR_CONTAINS(err, "'bogus' is not a capture point");
	CHECK_EQ_INT(points_parse("xdp,", &m, err, sizeof(err)), -1);
	CHECK_STR_CONTAINS(err, "ends with a comma");
	CHECK_EQ_INT(points_parse(",xdp", &m, err, sizeof(err)), -1);
	CHECK_EQ_INT(points_parse("tcpx", &m, err, sizeof(err)), -1);
}

int main(void)
{
	judge_cases();
	copy_tags();
	witness_rows();
	point_lists();
	return check_report("points");
}
