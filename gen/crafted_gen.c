// SPDX-License-Identifier: GPL-2.0
/*
 * The crafted phase in syntwin-server's event loop (crafted_gen.h). Each run: the device
 * opened, the walk's selected SYNs (or the capture's, for a replay) written one at a time (a
 * must-drop one and the next at once; a good one waits up to 3 s for its SYN-ACK, then the ACK,
 * or less: once the witness saw the kernel drop it, no SYN-ACK can come),
 * the closes of its connections awaited (at most 1.5 s), its line printed, the device closed;
 * then the next run. A replayed SYN declares nothing: one that gets no SYN-ACK is given up on
 * and judged by the server from the kernel's drop reason, not counted as a failure here.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "crafted_gen.h"
#include "generators.h"
#include "mono_time.h"
#include "net_helpers.h"
#include "parse_num.h"

#define SYNACK_WAIT_MS 3000
#define CLOSES_WAIT_MS 1500
/* While a SYN waits: how often the witness is asked whether the kernel dropped it */
#define DROP_POLL_MS 5

static const char *const kind_names[CRAFTED_KINDS] = { "crafted", "fuzz", "tap", "replay" };
/* the generator names an earlier run's records carry, for --rerun */
static const char *const rerun_gens[CRAFTED_KINDS] = { "crafted,rejected", "fuzz",
							"crafted-tap,rejected", "replay" };
static struct shape_set shapes; /* the profiles, loaded once */

int crafted_opt(struct crafted_opts *o, const char *name, const char *v)
{
	char a[64], err[256];

	snprintf(a, sizeof(a), "--%s", name);
	for (int k = 0; k < CRAFTED_KINDS; k++) {
		char want[32];
		uint64_t *to = NULL;

		snprintf(want, sizeof(want), "%s-connections", kind_names[k]);
		if (!strcmp(name, want))
			to = &o->n[k];
		snprintf(want, sizeof(want), "%s-seed", kind_names[k]);
		if (!strcmp(name, want))
			to = &o->seed[k];
		if (!to)
			continue;
		if (parse_u64_range(a, v, 0, to == &o->n[k] ? 1000000 : UINT64_MAX, to, err,
				    sizeof(err)) == 0)
			return 1;
		fprintf(stderr, "syntwin-server: %s\n", err);
		return -1;
	}
	if (!strcmp(name, "crafted-profiles"))
		o->profiles = v;
	else if (!strcmp(name, "crafted-rerun"))
		o->rerun = v;
	else if (!strcmp(name, "crafted-shard"))
		o->shard = v;
	else if (!strcmp(name, "replay-file"))
		o->replay = v;
	else
		return 0;
	return 1;
}

bool crafted_any(const struct crafted_opts *o)
{
	for (int k = 0; k < CRAFTED_KINDS; k++)
		if (o->n[k])
			return true;
	return false;
}

static int crafted_gen_open(struct crafted_gen *g, const struct crafted_opts *o,
		     gen_sink sink, void *ctx, int ep,
		     uint32_t tag)
{
	memset(g, 0, sizeof(*g));
	g->o = *o;
	g->ep = ep;
	g->tag = tag;
	peer_sink = sink;
	peer_sink_ctx = ctx;
	if (o->n[CRAFTED_REPLAY] && !o->replay) {
		fprintf(stderr, "syntwin-server: a replay needs --replay-file\n");
		return -1;
	}
	if (!o->n[CRAFTED_TUN] && !o->n[CRAFTED_FUZZ] && !o->n[CRAFTED_TAP])
		return 0; /* (a replay alone needs no profiles) */
	return walk_load_profiles(o->profiles ? o->profiles : "/src/gen/profiles", o->tree,
				  &shapes);
}

/* The selection of run @k (--rerun, --shard) into g->only. Returns 0 or -1 (printed). */
static int load_selection(struct crafted_gen *g, int k)
{
	char err[128];

	free(g->only.idx);
	g->only = (struct rerun_set){ 0 };
	if (g->o.rerun && rerun_load(g->o.rerun, rerun_gens[k], &g->only))
		return -1;
	if (g->o.shard && shard_parse(g->o.shard, &g->only, err, sizeof(err))) {
		fprintf(stderr, "syntwin-server: crafted: %s\n", err);
		return -1;
	}
	return 0;
}

/* Run g->kind begins: its device opened and on the loop, its walk from its seed (or the
 * capture's SYNs read). */
static int start_run(struct crafted_gen *g)
{
	int k = g->kind;
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = g->tag };
	char err[512];

	tap_mode = k == CRAFTED_TAP;
	run_seed = g->o.seed[k];
	if (load_selection(g, k) || peer_addresses(tap_mode))
		return -1;
	if (k == CRAFTED_REPLAY && replay_load(g->o.replay, &g->only, &g->replay, err, sizeof(err))) {
		fprintf(stderr, "syntwin: %s\n", err);
		return -1;
	}
	tun = open_tun(tap_mode ? "tap0" : "tun0");
	if (tun < 0)
		return -1;
	if (epoll_ctl(g->ep, EPOLL_CTL_ADD, tun, &ev)) {
		log_err("epoll_ctl %s", tap_mode ? "tap0" : "tun0");
		return -1;
	}
	if (k != CRAFTED_REPLAY)
		walk_init(&g->w, &shapes, g->o.n[k], g->o.seed[k], k == CRAFTED_FUZZ, &g->only);
	g->replay_next = 0;
	g->made = g->failed = g->rejected_sent = g->given_up = g->dropped = 0;
	g->running = true;
	return 0;
}

/* Run g->kind is over: its line, its device closed; the next run asked for is due. */
static void end_run(struct crafted_gen *g)
{
	int k = g->kind;

	if (k == CRAFTED_REPLAY) {
		replay_print(&g->replay, g->made, g->given_up, g->dropped);
		replay_free(&g->replay);
	} else {
		printf("%s: %llu connections from %zu %sshapes, %llu SYNs the kernel must drop, "
		       "%llu failed\n", k == CRAFTED_FUZZ ? "fuzz" : "crafted",
		       (unsigned long long)g->made, shapes.n, k == CRAFTED_FUZZ ? "fuzzed profile " : "",
		       (unsigned long long)g->rejected_sent, (unsigned long long)g->failed);
	}
	fflush(stdout);
	g->errors += g->failed;
	close(tun); /* (which takes it off the loop) */
	tun = -1;
	g->running = g->waiting = g->closing = false;
	while (++g->kind < CRAFTED_KINDS && !g->o.n[g->kind])
		;
}

/* The SYN just written awaits its SYN-ACK (3 s at most). */
static bool await_synack(struct crafted_gen *g)
{
	g->waiting = true;
	g->deadline_ms = mono_ms() + SYNACK_WAIT_MS;
	return true;
}

/* The capture's next SYN labelled and written: true if one is awaiting its SYN-ACK, false at
 * the end. */
static bool replay_send_next(struct crafted_gen *g)
{
	while (g->replay_next < g->replay.n) {
		const struct replay_syn *r = &g->replay.v[g->replay_next++];
		struct gen_event e;
		char knobs[208];

		replay_prepare(&g->replay, r, &e, knobs, sizeof(knobs), &g->out, g->name,
			       sizeof(g->name));
		if (tell_flow(EV_LABEL, r->family, r->sport, r->dport, r->isn, &e) ||
		    syn_write(&g->out)) {
			log_err("replay: %s", g->name);
			g->failed++;
			continue;
		}
		return await_synack(g);
	}
	return false;
}

/* The walk's next selected SYN written: true if one is awaiting its SYN-ACK, false at the
 * walk's end. Must-drop SYNs are written and passed at once. */
static bool send_next(struct crafted_gen *g)
{
	bool fuzz = g->kind == CRAFTED_FUZZ;

	if (g->kind == CRAFTED_REPLAY)
		return replay_send_next(g);
	while (walk_next(&g->w, &g->syn)) {
		const struct syn_shape *s = &g->syn.s;

		if (!g->syn.selected)
			continue; /* walked past as the whole run does, its draws made */
		syn_out_of_walk(&g->syn, &g->flow, g->pkt, &g->out);
		if (tell_shape(s, fuzz, g->syn.sport, g->syn.dport, g->syn.isn, g->syn.index) ||
		    syn_write(&g->out)) {
			log_err("crafted: %s", s->name);
			g->failed++;
			continue;
		}
		if (s->bad) {
			g->rejected_sent++;
			continue;
		}
		return await_synack(g);
	}
	return false;
}

static void crafted_gen_step(struct crafted_gen *g)
{
	while (g->kind < CRAFTED_KINDS) {
		if (!g->o.n[g->kind]) {
			g->kind++;
			continue;
		}
		if (!g->running && start_run(g)) {
			g->errors++;
			g->kind = CRAFTED_KINDS;
			return;
		}
		if (g->waiting) {
			bool dropped = syn_dropped(&g->out);

			if (!dropped && mono_ms() < g->deadline_ms)
				return;
			syn_gave_up(&g->out, dropped); /* the server judges that SYN now */
			*(g->kind == CRAFTED_REPLAY ? &g->given_up : &g->failed) += 1;
			g->dropped += dropped;
			g->waiting = false;
		}
		if (g->closing) {
			if (peer_open_count() && mono_ms() < g->deadline_ms)
				return;
			end_run(g);
			continue;
		}
		if (send_next(g))
			return;
		g->closing = true; /* the last connections' FINs */
		g->deadline_ms = mono_ms() + CLOSES_WAIT_MS;
	}
}

static void crafted_gen_event(struct crafted_gen *g)
{
	struct synack_of w = { g->out.sport, g->out.isn };
	struct seg sa;

	if (!g->running)
		return;
	if (!g->waiting) {
		pump_ready(NULL, NULL, &sa); /* FINs answered, closes counted */
		return;
	}
	if (!pump_ready(is_synack_of, &w, &sa))
		return;
	g->waiting = false;
	if (syn_answer(&g->out, &sa))
		g->failed++;
	else
		g->made++;
}

static int crafted_gen_wait_ms(const struct crafted_gen *g)
{
	int ms = mono_wait_ms(g->running && g->waiting, g->running && g->closing, g->deadline_ms);

	return g->running && g->waiting && peer_drop_probe && ms > DROP_POLL_MS ? DROP_POLL_MS : ms;
}

static bool crafted_gen_finished(const struct crafted_gen *g)
{
	return g->kind >= CRAFTED_KINDS;
}

static uint64_t crafted_gen_close(struct crafted_gen *g)
{
	if (g->running) {
		fprintf(stderr, "syntwin-server: the crafted phase was cut short (%s)\n",
			kind_names[g->kind]);
		end_run(g);
	}
	free(g->only.idx);
	g->only.idx = NULL;
	replay_free(&g->replay);
	peer_sink = NULL;
	return g->errors;
}

/* The generator's calls for the run's loop (generator.h). */
static bool ops_asked(const struct gen_opts *o)
{
	return o->crafted && crafted_any(o->crafted);
}

static int ops_open(void *state, const struct gen_opts *o, gen_sink sink, void *ctx, int ep,
		    uint32_t tag)
{
	struct crafted_gen *g = state;

	return crafted_gen_open(g, o->crafted, sink, ctx, ep, tag);
}

static int ops_step(void *g)
{
	crafted_gen_step(g);
	return 0;
}

static void ops_event(void *g, uint32_t tag)
{
	(void)tag;
	crafted_gen_event(g);
}

static bool ops_finished(const void *g)
{
	return crafted_gen_finished(g);
}

static int ops_wait_ms(const void *g)
{
	return crafted_gen_wait_ms(g);
}

static uint64_t ops_close(void *g)
{
	return crafted_gen_close(g);
}

const struct gen_ops crafted_ops = {
	.what = "the crafted phase", .size = sizeof(struct crafted_gen), .tag = GEN_TAG_CRAFTED, .tags = 1,
	.asked = ops_asked, .open = ops_open, .step = ops_step, .event = ops_event,
	.finished = ops_finished, .wait_ms = ops_wait_ms, .close = ops_close,
};
