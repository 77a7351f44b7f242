// SPDX-License-Identifier: GPL-2.0
/*
 * Each kind of connection, one way through the stages (run.h): gathered (gather.h), judged
 * (judge.h, run_verdicts.h), recorded (writer.h, summary.h). A passive socket, an active
 * record, a socket connection that failed in the client, a SYN a generator gave up on, and a
 * capture no socket took, left at the end.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "decode.h"
#include "fnv.h"
#include "gather.h"
#include "native_read.h"
#include "net_helpers.h"
#include "point_names.h"
#include "registry.h"
#include "rng.h"
#include "run.h"
#include "run_verdicts.h"
#include "test_hooks.h"
#include "which_copy.h"

/* Per mille of passive connections whose saved SYN is first read with too small a buffer. */
#define SMALL_BUFFER_PERMILLE 50

/* After the judge: what later connections and the end of the run need to know of this one. */
static void remember(struct run *R, const struct conn_record *c, const struct socket_seen *g,
		     const struct compare_result *res)
{
	struct capture_key k;

	if (g->have_bpf && R->wire_faults && !capture_key_of(&g->rec, &k) &&
	    keyset_add(&R->judged_keys, &k)) {
		/* out of memory: a late copy of this one would go unrecognized, and count against
		 * the run as unbound; the run is said to be partial */
		fprintf(stderr, "syntwin: out of memory keeping judged keys\n");
		R->st.keys_lost = true;
	}
	/* out of memory: a later child of this SYN would be unexplained (a failure, never a
	 * false pass) */
	if (g->have_bpf && res->reason == R_SYNCOOKIE && !capture_key_of(&g->rec, &k) &&
	    keyset_add(&R->cookie_keys, &k))
		fprintf(stderr, "syntwin: out of memory keeping syncookie keys\n");
	if (res->verdict == V_BPF_MISSING)
		labels_put(&R->missing_flows, &(struct label){ .flow = c->flow });
}

/* The statistics of a judged socket record. */
static void count_socket(struct run *R, struct conn_record *c, const struct socket_seen *g,
			 const struct compare_result *res, int bad)
{
	struct run_stats *st = &R->st;

	if (res->reason == R_EVICTED)
		st->lost++;
	if (!strcmp(c->direction, "active")) {
		int made = copy_that_created(g->cp.view, g->cp.n);
		uint32_t tv;

		st->active++;
		for (int i = 0; i < g->cp.n; i++)
			st->active_allocs += g->cp.view[i].saved + g->cp.view[i].saved_again;
		/* the TSecr cross-check's own input: a SYN-ACK with a timestamp, and the client's
		 * first ACK answering it seen (an expectation: expect.c) */
		if (made >= 0 && copy_tsval(&g->cp.view[made], &tv)) {
			st->active_ts++;
			st->active_answered += g->ob.have_tsecr;
		}
		if (gen_id_of(c->gen) == GEN_DUP_SYNACK)
			stats_count_gen(st, GEN_DUP_SYNACK, res);
	} else {
		st->conns++;
		if (g->have_bpf)
			c->shape = stats_count_shape(st, g->rec.data, g->rec.cap_len, g->rec.mac_len);
		stats_count_gen(st, gen_id_of(c->gen), res);
	}
	stats_count_verdict(st, res, bad);
	st->client_failed_proven += c->client_errno && res->failure_proven;
}

/* The record shows the copy the bytes were judged against, else the bound one. */
static void record_copies(struct conn_record *c, const struct socket_seen *g)
{
	const struct capture_rec *r = g->judged >= 0 ? &g->cp.rec[g->judged] : &g->rec;

	c->native = g->ob.native;
	c->native_len = g->ob.native_len;
	c->copies = g->have_bpf ? g->rec.copies : 0;
	c->bpf = g->have_bpf ? r->data : NULL;
	c->bpf_len = g->have_bpf ? r->cap_len : 0;
	c->bpf_mac_len = g->have_bpf ? r->mac_len : 0;
	c->reads = g->have_reads ? &g->reads : NULL;
	if (g->have_bpf && g->rec.vlan_present)
		snprintf(c->bpf_vlan, sizeof(c->bpf_vlan), "%04x:%u", ntohs(g->rec.vlan_proto),
			 g->rec.vlan_tci & 0x0fffu);
}

/* Failures the capture points found on record @c, said as the witness's are. */
static void say_points(const struct conn_record *c, const struct point_record *pr)
{
	char saddr[46], daddr[46];

	flow_text(&c->flow, saddr, daddr);
	for (int pt = 0; pt < PT_MAX; pt++) {
		enum point_verdict v = pr->r[pt].verdict;

		if (pr->mask & (1u << pt) &&
		    (v == PV_DIFFER || v == PV_MISSING || v == PV_TRUNCATED))
			fprintf(stderr, "syntwin: %s passive %s:%u mode %d: capture point %s: %s: %s\n",
				c->family == AF_INET6 ? "IPv6" : "IPv4", saddr, ntohs(c->flow.sport),
				c->mode, point_names[pt], point_verdict_names[v], pr->r[pt].detail);
	}
}

/*
 * The capture points' copies of passive record @c's SYN, judged against the kernel's: the copy
 * the witness judged (its tag), else the one it bound; none for a cookie child's record (no
 * SYN). The record carries each point's verdict; the witness's own (@res, @bad) is counted as
 * tc's, on the same records.
 */
static void compare_points(struct run *R, struct conn_record *c, const struct socket_seen *g,
			   const struct compare_result *res, int bad)
{
	static struct point_record pr;
	const struct capture_rec *r = g->judged >= 0 ? &g->cp.rec[g->judged] : &g->rec;
	struct capture_key k;
	bool named = g->have_bpf && !(g->rec.flags & CAP_F_NO_SYN) && !capture_key_of(r, &k);

	int failed = points_compare(&R->points, &k, r->tag, named, c->mode, g->ob.native,
				    g->ob.native_len, &R->env, res, bad, &pr);

	/* a point's failure is the run's, as the witness's are: summary.json's "unexplained",
	 * which a merge, report.txt and KTAP read, counts it */
	R->st.unexplained += (uint64_t)failed;
	if (failed)
		say_points(c, &pr);
	c->points = &pr;
}

/*
 * A connection with a socket, passive or active: its native headers (@n bytes, 0 none, -1 too
 * long) against the witness's capture bound to @c->cookie: gathered, judged, counted, recorded.
 */
static void compare_one(struct run *R, struct conn_record *c, const uint8_t *native, int n,
			const char *small)
{
	static struct socket_seen g;
	struct compare_result res;
	uint8_t corrupted[1024];
	int bad;

	gather_socket(R, c, native, n, small, &g);
	R->st.compared++;
	/* (a second child of a cookie SYN carries its first's label: counted once, there) */
	R->st.cookie_due += g.ob.cookie_due && !g.ob.cookie_child;
	test_corrupt_copy(&R->o, &R->st, &g);
	bad = judge(&g.ob, &res);
	R->st.cookie_due_reopened += g.ob.cookie_due && g.ob.flow_reused &&
				     res.reason != R_SYNCOOKIE;
	bad = test_corrupt_covered(&R->o, &R->st, &g.ob, &res, corrupted, bad);
	remember(R, c, &g, &res);
	c->res = &res;
	count_socket(R, c, &g, &res, bad);
	if (bad) {
		bool active = !strcmp(c->direction, "active");
		char saddr[46], daddr[46];

		flow_text(&c->flow, saddr, daddr);
		fprintf(stderr, "syntwin: %s %s %s:%u mode %d: %s: %s\n",
			c->family == AF_INET6 ? "IPv6" : "IPv4", c->direction, active ? daddr : saddr,
			ntohs(active ? c->flow.dport : c->flow.sport), c->mode,
			verdict_names[res.verdict], res.detail);
	}
	record_copies(c, &g);
	if (R->points.mask && !strcmp(c->direction, "passive"))
		compare_points(R, c, &g, &res, bad);
	c->small_buffer = small;
	writer_record(&R->out, c, &R->st.fp);
}

/*
 * Is this passive connection's saved SYN also read with a too-small buffer? Drawn from the run's
 * seed and the connection's own label (generator and index), so that a connection is checked
 * alike in every run of the seed, sharded or not, in whatever order the accepts come; a
 * connection without a label draws from the server's own sequence.
 */
static bool small_buffer_check(struct run *R, const struct conn_record *c)
{
	uint64_t s;

	if (!c->gen)
		return rng_permille(&R->rng, SMALL_BUFFER_PERMILLE);
	s = fnv1a_str(R->o.seed ^ (c->gen_index + 1) * 0x9e3779b97f4a7c15ull, c->gen);
	return rng_permille(&s, SMALL_BUFFER_PERMILLE);
}

void passive_socket(struct run *R, int fd, int family, int mode)
{
	struct conn_record c = { .family = family, .mode = mode, .direction = "passive" };
	socklen_t cl = sizeof(c.cookie);
	struct label keep;
	uint8_t native[1024];
	char small[160];
	bool check;
	int n;

	flow_of_socket(fd, true, &c.flow);
	getsockopt(fd, SOL_SOCKET, SO_COOKIE, &c.cookie, &cl);
	gather_label(R, &c, &keep);
	check = small_buffer_check(R, &c);
	R->st.small_buffer_checks += check;
	n = read_native_checked(fd, check, native, sizeof(native), small, sizeof(small));
	compare_one(R, &c, native, n, small);
	test_reset(&R->o, fd, &c);
}

/*
 * A SYN no socket took, flow @k, capture @r, label @l (NULL: none): judged and recorded as one
 * connection.
 */
static void judge_capture(struct run *R, const struct capture_key *k, const struct capture_rec *r,
			  const struct label *l)
{
	struct observation ob = { .gen = l ? l->gen : NULL,
				  .declares = gen_declares_of(l ? l->gen : NULL),
				  .knobs = l ? l->knobs : NULL,
				  .cookie_due = l && cookie_due_of(R, l->gen, l->index) };
	struct compare_result res;
	char site[160];
	struct conn_record c = { .family = k->family, .mode = 0, .direction = "passive",
				 .flow = *k, .bpf = r->data, .bpf_len = r->cap_len, .bpf_mac_len = r->mac_len,
				 .res = &res, .gen = l ? l->gen : NULL, .knobs = l ? l->knobs : NULL,
				 .gen_index = l ? l->index : 0, .gen_seed = l ? l->seed : 0,
				 .copies = r->copies };
	int bad;

	gather_unbound(R, k, r, &ob, site, sizeof(site));
	bad = judge(&ob, &res);
	stats_count_verdict(&R->st, &res, bad);
	stats_count_gen(&R->st, gen_id_of(c.gen), &res);
	if (bad) {
		char text[512], saddr[46], daddr[46];
		struct syn_layout lay;

		syn_layout(r->data, r->cap_len, r->mac_len, &lay);
		syn_decode_text(r->data, &lay, text, sizeof(text));
		flow_text(k, saddr, daddr);
		fprintf(stderr, "syntwin: %s passive %s:%u > %s:%u isn %u (%s): %s: %s; %s\n",
			k->family == AF_INET6 ? "IPv6" : "IPv4", saddr, ntohs(k->sport), daddr,
			ntohs(k->dport),
			k->seq, c.knobs ? c.knobs : "no generator named it",
			verdict_names[res.verdict], res.detail, text);
	}
	writer_record(&R->out, &c, &R->st.fp);
}

/* A generator gave up on a SYN (no SYN-ACK came): its capture judged now, as one connection. */
static void gave_up(struct run *R, const struct gen_event *e)
{
	const struct capture_key *k = &e->flow;
	struct capture_rec r;
	struct label l, *lp = NULL;
	bool dup;

	if (!e->has_isn)
		return;
	if (labels_take(&R->labels, k, true, k->seq, 0, &l, &dup) == 0)
		lp = &l;
	R->st.conns++;
	R->st.gave_up++;
	if (capture_take_flow(&R->cc, k, &r) == 0) {
		R->st.gave_up_dropped += capture_all_dropped(&r);
		judge_capture(R, k, &r, lp);
		return;
	}
	/* The generator wrote a SYN that the witness never saw. */
	struct observation ob = { .isn = k->seq, .gen = lp ? lp->gen : NULL,
				  .declares = gen_declares_of(lp ? lp->gen : NULL),
				  .knobs = lp ? lp->knobs : NULL };
	struct compare_result res;
	struct conn_record c = { .family = k->family, .direction = "passive", .flow = *k,
				 .res = &res, .gen = lp ? lp->gen : NULL,
				 .knobs = lp ? lp->knobs : NULL, .gen_index = lp ? lp->index : 0,
				 .gen_seed = lp ? lp->seed : 0 };
	int bad = judge(&ob, &res);
	char saddr[46], daddr[46];

	flow_text(k, saddr, daddr);
	R->st.verdict[res.verdict]++;
	R->st.unexplained += bad;
	fprintf(stderr, "syntwin: %s %s:%u: bpf-missing: %s\n", k->family == AF_INET6 ? "IPv6" :
		"IPv4", saddr, ntohs(k->sport), res.detail);
	writer_record(&R->out, &c, &R->st.fp);
}

/*
 * A socket connection that failed in the client: its label, if no socket took it yet, moves
 * from its flow to failed_labels (a later connection reusing the port cannot take it; its SYN's
 * capture or its child finds it there). With @recorded, its active record came with the
 * failure and is judged with it; without, nothing but the client's word shows why it failed.
 */
static void client_failed(struct run *R, const struct gen_event *e, bool recorded)
{
	struct label l;
	bool dup;

	R->st.client_failed++;
	if (!recorded) {
		struct client_failure cf = { .gen = e->gen, .knobs = e->knobs, .index = e->index,
					     .err = e->err };
		struct compare_result res;

		R->st.active_unrecorded += R->o.active > 0;
		/* (a verdict without a record: counted, nothing recorded) */
		R->st.unexplained += judge_client_failed(&cf, &res);
		R->st.verdict[res.verdict]++;
		fprintf(stderr, "syntwin: %s\n", res.detail);
	}
	/* the flow is live in one connection at a time: the failed one's label is its newest */
	if (labels_take(&R->labels, &e->flow, false, 0, UINT64_MAX, &l, &dup))
		return;
	if (labels_put(&R->failed_labels, &l))
		fprintf(stderr, "syntwin: out of memory keeping the label of failed connection "
			"%s #%llu\n", l.gen, (unsigned long long)l.index);
}

/* An active record: the SYN-ACK headers the client's kernel saved; the server sent them. */
static void active_record(struct run *R, const struct gen_event *e)
{
	struct conn_record c = { .family = e->flow.family, .mode = e->mode, .direction = "active",
				 .cookie = e->cookie, .gen = e->gen, .knobs = e->knobs,
				 .gen_index = e->index, .gen_seed = e->seed };

	flow_set(&c.flow, e->flow.family, e->flow.daddr, ntohs(e->flow.dport), e->flow.saddr,
		 ntohs(e->flow.sport), 0);
	if (e->err) { /* failed after its SYN-ACK was saved */
		client_failed(R, e, true);
		c.client_errno = e->err;
	}
	R->st.small_buffer_checks += e->small && e->small[0];
	compare_one(R, &c, e->native, e->native_len > 1024 ? -1 : e->native_len, e->small);
}

/* A label: filed by flow (labels.h) until its SYN's socket or capture takes it. */
static void file_label(struct run *R, const struct gen_event *e)
{
	struct label l = { .flow = e->flow, .has_isn = e->has_isn, .isn = e->flow.seq,
			   .index = e->index, .seed = e->seed, .t_ns = e->t_ns };

	snprintf(l.gen, sizeof(l.gen), "%s", e->gen ? e->gen : "");
	snprintf(l.knobs, sizeof(l.knobs), "%s", e->knobs ? e->knobs : "");
	if ((l.flow.family != AF_INET && l.flow.family != AF_INET6) || labels_put(&R->labels, &l))
		R->st.bad_labels++;
}

int generator_message(void *run, const struct gen_event *e)
{
	struct run *R = run;

	switch (e->kind) {
	case EV_LABEL:
		file_label(R, e);
		break;
	case EV_GAVE_UP:
		gave_up(R, e);
		break;
	case EV_FAILED:
		client_failed(R, e, false);
		break;
	case EV_RECORD:
		active_record(R, e);
		break;
	case EV_DONE: /* the records are counted as they come */
		break;
	}
	return 0;
}

/* At the end: every capture no socket took, each with its label if a generator gave one. */
int judge_left(const struct capture_key *k, const struct capture_rec *r, void *run)
{
	struct run *R = run;
	struct capture_rec gone;
	struct label l;
	bool dup, have;
	struct leftover_facts lf;

	lf = (struct leftover_facts){
		.wire_faults = R->wire_faults,
		.key_judged = R->wire_faults && keyset_has(&R->judged_keys, k),
		.answers_judged = R->wire_faults && late_answer(r, &R->judged_keys),
		.flow_missing = labels_peek(&R->missing_flows, k, false, 0, 0) != NULL };
	switch (judge_leftover(&lf)) {
	case LEFT_LATE_COPY:
		R->st.late_copies++;
		break;
	case LEFT_LATE_ANSWER:
		R->st.late_answers++;
		break;
	case LEFT_LATE_CAPTURE:
		labels_take(&R->missing_flows, k, false, 0, 0, &l, &dup);
		R->st.late_captures++;
		break;
	case LEFT_JUDGE:
		have = take_syn_label(R, k, true, k->seq, capture_first_ts(&R->cc, r), &l,
				      &dup) == 0 && !dup;
		judge_capture(R, k, r, have ? &l : NULL);
		break;
	}
	capture_take_left(&R->cc, k, r, &gone); /* judged or counted: no longer waiting */
	return 0;
}
