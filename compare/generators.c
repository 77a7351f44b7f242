// SPDX-License-Identifier: GPL-2.0
/* The server's own generators, phase by phase (generators.h). */
#include <stdio.h>

#include "generators.h"

void generators_init(struct generators *g, const struct crafted_opts *crafted,
		     const struct sock_gen_opts *sockets,
		     int (*sink)(void *ctx, const struct active_msg *m), void *ctx, int ep)
{
	g->phase = PHASE_WAITING;
	g->crafted_opts = crafted && crafted_any(crafted) ? crafted : NULL;
	g->sock_opts = sockets;
	g->sink = sink;
	g->ctx = ctx;
	g->ep = ep;
	g->errors = 0;
}

/* The phase after @p that was asked for, started; PHASE_DONE when none is left. */
static void next_phase(struct generators *g)
{
	if (g->phase == PHASE_WAITING && g->crafted_opts) {
		g->phase = PHASE_CRAFTED;
		if (crafted_gen_open(&g->crafted, g->crafted_opts, g->sink, g->ctx, g->ep,
				     GEN_TAG_CRAFTED) == 0)
			return;
		fprintf(stderr, "syntwin-server: the crafted phase could not start\n");
		g->errors++;
	}
	if (g->phase < PHASE_SOCKETS && g->sock_opts) {
		g->phase = PHASE_SOCKETS;
		if (sock_gen_open(&g->sockets, g->sock_opts, g->sink, g->ctx, g->ep,
				  GEN_TAG_SOCKETS) == 0)
			return;
		fprintf(stderr, "syntwin-server: the socket generator could not start\n");
		g->errors++;
	}
	g->phase = PHASE_DONE;
}

/* The phase under way finished: closed, its failures counted. */
static void end_phase(struct generators *g)
{
	if (g->phase == PHASE_CRAFTED)
		g->errors += crafted_gen_close(&g->crafted);
	else if (g->phase == PHASE_SOCKETS)
		g->errors += sock_gen_close(&g->sockets);
}

bool generators_round(struct generators *g, bool go)
{
	if (g->phase == PHASE_DONE)
		return false;
	if (g->phase == PHASE_WAITING) {
		if (!go)
			return false;
		next_phase(g);
	}
	if (g->phase == PHASE_CRAFTED) {
		crafted_gen_step(&g->crafted);
		if (!crafted_gen_finished(&g->crafted))
			return false;
		end_phase(g);
		next_phase(g);
	}
	if (g->phase == PHASE_SOCKETS) {
		bool bad = sock_gen_step(&g->sockets) != 0;

		g->errors += bad;
		if (!bad && !sock_gen_finished(&g->sockets))
			return false;
		end_phase(g);
		g->phase = PHASE_DONE;
	}
	return g->phase == PHASE_DONE;
}

void generators_event(struct generators *g, uint32_t tag)
{
	if (tag == GEN_TAG_CRAFTED && g->phase == PHASE_CRAFTED)
		crafted_gen_event(&g->crafted);
	else if (tag >= GEN_TAG_SOCKETS && g->phase == PHASE_SOCKETS)
		sock_gen_event(&g->sockets, tag);
}

uint64_t generators_close(struct generators *g)
{
	end_phase(g);
	g->phase = PHASE_DONE;
	return g->errors;
}
