// SPDX-License-Identifier: GPL-2.0
/* The server's own generators, phase by phase (generators.h). */
#include <stdio.h>

#include "generators.h"

void generators_init(struct generators *g, const struct gen_opts *o,
		     int (*sink)(void *ctx, const struct active_msg *m), void *ctx, int ep)
{
	g->phase = PHASE_WAITING;
	g->o = *o;
	if (o->planned && !o->planned->held_back && !o->planned->abandoned &&
	    !o->planned->dup_synack)
		g->o.planned = NULL;
	if (o->crafted && !crafted_any(o->crafted))
		g->o.crafted = NULL;
	g->sink = sink;
	g->ctx = ctx;
	g->ep = ep;
	g->errors = 0;
}

/* Phase @p begins. Returns 0, or -1 (printed, counted): the phase is passed over. */
static int open_phase(struct generators *g, enum gen_phase p)
{
	static const char *const what[] = { [PHASE_PLANNED] = "the planned handshakes",
					    [PHASE_CRAFTED] = "the crafted phase",
					    [PHASE_SOCKETS] = "the socket generator" };
	int rc = -1;

	g->phase = p;
	if (p == PHASE_PLANNED)
		rc = planned_gen_open(&g->planned, g->o.planned, g->o.planned_seed, g->sink, g->ctx,
				      g->ep, GEN_TAG_CRAFTED);
	else if (p == PHASE_CRAFTED)
		rc = crafted_gen_open(&g->crafted, g->o.crafted, g->sink, g->ctx, g->ep,
				      GEN_TAG_CRAFTED);
	else if (p == PHASE_SOCKETS)
		rc = sock_gen_open(&g->sockets, g->o.sockets, g->sink, g->ctx, g->ep,
				   GEN_TAG_SOCKETS);
	if (rc) {
		fprintf(stderr, "syntwin-server: %s could not start\n", what[p]);
		g->errors++;
	}
	return rc;
}

/* The phase after the current one that was asked for, started; PHASE_DONE when none is left. */
static void next_phase(struct generators *g)
{
	const void *asked[] = { [PHASE_PLANNED] = g->o.planned, [PHASE_CRAFTED] = g->o.crafted,
				[PHASE_SOCKETS] = g->o.sockets };

	for (enum gen_phase p = g->phase + 1; p < PHASE_DONE; p++)
		if (asked[p] && open_phase(g, p) == 0)
			return;
	g->phase = PHASE_DONE;
}

/* The phase under way finished: closed, its failures counted. */
static void end_phase(struct generators *g)
{
	if (g->phase == PHASE_PLANNED)
		g->errors += planned_gen_close(&g->planned);
	else if (g->phase == PHASE_CRAFTED)
		g->errors += crafted_gen_close(&g->crafted);
	else if (g->phase == PHASE_SOCKETS)
		g->errors += sock_gen_close(&g->sockets);
}

/* The phase under way, one step: true once it has finished. */
static bool phase_step(struct generators *g)
{
	bool bad;

	switch (g->phase) {
	case PHASE_PLANNED:
		planned_gen_step(&g->planned);
		return planned_gen_finished(&g->planned);
	case PHASE_CRAFTED:
		crafted_gen_step(&g->crafted);
		return crafted_gen_finished(&g->crafted);
	case PHASE_SOCKETS:
		bad = sock_gen_step(&g->sockets) != 0;
		g->errors += bad;
		return bad || sock_gen_finished(&g->sockets);
	default:
		return true;
	}
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
	while (g->phase != PHASE_DONE && phase_step(g)) {
		end_phase(g);
		next_phase(g);
	}
	return g->phase == PHASE_DONE;
}

void generators_event(struct generators *g, uint32_t tag)
{
	if (tag == GEN_TAG_CRAFTED && g->phase == PHASE_PLANNED)
		planned_gen_event(&g->planned);
	else if (tag == GEN_TAG_CRAFTED && g->phase == PHASE_CRAFTED)
		crafted_gen_event(&g->crafted);
	else if (tag >= GEN_TAG_SOCKETS && g->phase == PHASE_SOCKETS)
		sock_gen_event(&g->sockets, tag);
}

int generators_wait_ms(const struct generators *g)
{
	if (g->phase == PHASE_PLANNED)
		return planned_gen_wait_ms(&g->planned);
	if (g->phase == PHASE_CRAFTED)
		return crafted_gen_wait_ms(&g->crafted);
	return 1000;
}

uint64_t generators_close(struct generators *g)
{
	end_phase(g);
	g->phase = PHASE_DONE;
	return g->errors;
}
