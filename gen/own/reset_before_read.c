// SPDX-License-Identifier: GPL-2.0
/*
 * reset-before-read, a generator of its own (registry.h: its row is all the rest): handshakes
 * through the tun peer on tun0 that the peer completes and resets at once, before the server's
 * application has read the saved SYN: the SYN, its SYN-ACK, then the ACK and an RST (seq
 * ISN + 1) written together. The ACK makes the child; the RST resets it in the accept queue
 * (tcp_reset() -> tcp_done(): the socket is closed, not freed, and keeps its copy), so the
 * server's read after accept() must still return the SYN: each record identical, which the
 * plan's expectation holds it to ("reset-before-read proven"). A kernel that frees the copy
 * when the connection is reset (mutant reset-frees-copy) fails every run here.
 *
 * One handshake at a time, both families, both listener modes in turn; the next begins as soon
 * as the last one's RST is written.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <unistd.h>

#include "generators.h"
#include "mono_time.h"
#include "net_helpers.h"
#include "plan.h"
#include "planned.h"
#include "rng.h"
#include "topology.h"

#define RESET_SPORT 65100	/* above the planned handshakes' (58000 + PLAN_MAX) */
#define RESET_MAX 400
#define ANSWER_WAIT_MS 3000	/* for the SYN-ACK */

struct reset_gen {
	uint64_t n, i, rng, made, bad;
	int ep;
	uint32_t tag;
	bool running, waiting, finished;
	uint64_t deadline_ms;
	/* the handshake under way */
	struct synack_of sa_of;
	struct syn_shape s;
	struct flow f;
	uint32_t isn, tsval;
};

/* Handshake g->i: its label, then its SYN; its SYN-ACK is awaited. 0 or -1. */
static int reset_begin(struct reset_gen *g)
{
	uint64_t k = g->i;
	int family = k % 2 ? 6 : 4;
	uint16_t sport = (uint16_t)(RESET_SPORT + k), dport = (uint16_t)(TOPO_PORT_BASE + (k / 2) % 2);
	struct gen_event e = { .index = k, .seed = run_seed,
			       .gen = gen_rows[GEN_RESET_BEFORE_READ].name };
	uint8_t pkt[CRAFT_MAX];
	size_t len;

	g->isn = (uint32_t)rng_next(&g->rng);
	g->tsval = (uint32_t)rng_next(&g->rng) >> 1;
	planned_shape(family, g->tsval, (uint16_t)(k * 5 + 3), &g->s);
	g->f = flow_of(&g->s, sport, dport);
	e.knobs = g->s.name;
	port_tsval[sport] = g->tsval + 1;
	len = craft_syn(&g->s, &g->f, g->isn, pkt);
	if (tell_flow(EV_LABEL, family, sport, dport, g->isn, &e) ||
	    dev_write(pkt, len) != (ssize_t)len)
		return -1;
	g->sa_of = (struct synack_of){ sport, g->isn };
	g->waiting = true;
	g->deadline_ms = mono_ms() + ANSWER_WAIT_MS;
	return 0;
}

/* Its SYN-ACK @sa came: the ACK that makes the child, and the RST right behind it. 0 or -1. */
static int reset_complete(struct reset_gen *g, const struct seg *sa)
{
	uint8_t pkt[CRAFT_MAX];
	size_t n;

	n = craft_segment(&g->s, &g->f, 0x10, g->isn + 1, sa->seq + 1, g->tsval + 1,
			  sa->has_ts ? sa->tsval : 0, pkt);
	if (dev_write(pkt, n) != (ssize_t)n)
		return -1;
	n = craft_segment(&g->s, &g->f, 0x04, g->isn + 1, 0, 0, 0, pkt);
	return dev_write(pkt, n) == (ssize_t)n ? 0 : -1;
}

/* Handshake g->i is over (@rc < 0: it failed, said); the next is due. */
static void reset_end(struct reset_gen *g, int rc)
{
	if (rc < 0) {
		fprintf(stderr, "syntwin-server: reset-before-read handshake %llu (port %llu) "
			"failed\n", (unsigned long long)g->i,
			(unsigned long long)(RESET_SPORT + g->i));
		g->bad++;
	} else {
		g->made++;
	}
	g->i++;
	g->waiting = false;
}

/* The end: its line, the device closed. */
static void reset_finish(struct reset_gen *g)
{
	printf("reset-before-read: %llu handshakes reset by the peer right after their ACK, before "
	       "the read, %llu failed\n", (unsigned long long)g->made, (unsigned long long)g->bad);
	fflush(stdout);
	tun_off_loop();
	g->running = false;
	g->finished = true;
}

/* Goes on as far as it can without waiting: handshakes begun, the end. */
static void reset_run(struct reset_gen *g)
{
	while (g->running && !g->waiting) {
		if (g->i == g->n) {
			reset_finish(g);
			return;
		}
		if (reset_begin(g))
			reset_end(g, -1);
	}
}

/* tun0 (in this process's netns: the server's) opened and on the loop. 0 or -1. */
static int reset_start(struct reset_gen *g)
{
	if (tun_on_loop(g->ep, g->tag))
		return -1;
	g->running = true;
	return 0;
}

/* --- the generator's calls for the run's loop (generator.h) ------------------------------ */

static bool ops_asked(const struct gen_opts *o)
{
	return o->plan && o->plan->own[GEN_RESET_BEFORE_READ];
}

static int ops_open(void *state, const struct gen_opts *o, gen_sink sink, void *ctx, int ep,
		    uint32_t tag)
{
	struct reset_gen *g = state;

	*g = (struct reset_gen){ .n = o->plan->own[GEN_RESET_BEFORE_READ],
				 .rng = o->plan->own_seed[GEN_RESET_BEFORE_READ], .ep = ep,
				 .tag = tag };
	if (g->n > RESET_MAX) {
		fprintf(stderr, "syntwin-server: reset-before-read handshakes: at most %d\n",
			RESET_MAX);
		return -1;
	}
	peer_sink = sink;
	peer_sink_ctx = ctx;
	run_seed = o->plan->own_seed[GEN_RESET_BEFORE_READ];
	return 0;
}

static int ops_step(void *state)
{
	struct reset_gen *g = state;

	if (g->finished)
		return 0;
	if (!g->running && reset_start(g)) {
		g->finished = true;
		return -1;
	}
	if (g->waiting && mono_ms() >= g->deadline_ms)
		reset_end(g, -1); /* no SYN-ACK came */
	reset_run(g);
	return 0;
}

static void ops_event(void *state, uint32_t tag)
{
	struct reset_gen *g = state;
	struct seg sa;

	(void)tag;
	if (!g->running)
		return;
	if (!g->waiting) {
		pump_ready(NULL, NULL, &sa); /* anything else the guest sends: read, FINs answered */
		return;
	}
	if (!pump_ready(is_synack_of, &g->sa_of, &sa))
		return;
	reset_end(g, reset_complete(g, &sa));
	reset_run(g);
}

static bool ops_finished(const void *state)
{
	return ((const struct reset_gen *)state)->finished;
}

static int ops_wait_ms(const void *state)
{
	const struct reset_gen *g = state;

	return mono_wait_ms(g->running && g->waiting, false, g->deadline_ms);
}

static uint64_t ops_close(void *state)
{
	struct reset_gen *g = state;

	if (g->running) {
		fprintf(stderr, "syntwin-server: the reset-before-read handshakes were cut short (at "
			"%llu of %llu)\n", (unsigned long long)g->i, (unsigned long long)g->n);
		reset_finish(g);
	}
	peer_sink = NULL;
	return g->bad;
}

const struct gen_ops reset_before_read_ops = {
	.what = "the reset-before-read handshakes", .own = GEN_RESET_BEFORE_READ,
	.size = sizeof(struct reset_gen),
	.tag = GEN_TAG_CRAFTED, .tags = 1, .asked = ops_asked, .open = ops_open, .step = ops_step,
	.event = ops_event, .finished = ops_finished, .wait_ms = ops_wait_ms, .close = ops_close,
};
