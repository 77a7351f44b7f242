// SPDX-License-Identifier: GPL-2.0
/* The run's generators, one after the other (generators.h). */
#include <stdio.h>
#include <stdlib.h>

#include "generators.h"
#include "own_phases.h" /* made by the build from gen/own/: OWN_PHASES, every NAME_ops there */
#include "registry.h"

/* The run's generators, in the order they run: the planned handshakes first (they hold back
 * and abandon handshakes the rest must not disturb), then the generators of their own
 * (gen/own/, in file-name order), the crafted phase or a replay, the socket connections. */
const struct gen_ops *const gen_phases[] = {
	&planned_ops,		/* the planned handshakes (planned.h) */
	OWN_PHASES		/* gen/own/NAME.c: NAME_ops, each */
	&crafted_ops,		/* the crafted phase or a replay (crafted_gen.h) */
	&sock_gen_ops,		/* the socket-knob connections (sock_gen.h) */
	NULL,
};

int generators_check(const struct gen_ops *const *phases_in)
{
	int rc = 0;

	for (int r = 0; r < GEN_MAX; r++) {
		int phases = 0;

		for (int p = 0; phases_in[p]; p++)
			phases += phases_in[p]->own == r;
		if (gen_rows[r].per_run && phases != 1) {
			fprintf(stderr, "syntwin-server: generator %s (registry.h) makes %llu "
				"connections a run, but %d file(s) of gen/own/ are its\n",
				gen_rows[r].name, (unsigned long long)gen_rows[r].per_run, phases);
			rc = -1;
		}
		if (!gen_rows[r].per_run && r && phases) {
			fprintf(stderr, "syntwin-server: a file of gen/own/ is generator %s's, which "
				"is not a generator of its own (per_run 0, registry.h)\n",
				gen_rows[r].name);
			rc = -1;
		}
	}
	return rc;
}

void generators_init(struct generators *g, const struct gen_opts *o, gen_sink sink, void *ctx,
		     int ep)
{
	*g = (struct generators){ .phase = -1, .o = *o, .sink = sink, .ctx = ctx, .ep = ep };
}

/* The phase under way finished: closed, its failures counted, its state freed. */
static void end_phase(struct generators *g)
{
	if (!g->ops)
		return;
	g->errors += g->ops->close(g->state);
	free(g->state);
	g->state = NULL;
	g->ops = NULL;
}

/* Opens @ops. Returns 0, or -1 (printed, counted): the phase is passed over. */
static int open_phase(struct generators *g, const struct gen_ops *ops)
{
	g->state = calloc(1, ops->size);
	if (g->state && ops->open(g->state, &g->o, g->sink, g->ctx, g->ep, ops->tag) == 0) {
		g->ops = ops;
		return 0;
	}
	free(g->state);
	g->state = NULL;
	fprintf(stderr, "syntwin-server: %s could not start\n", ops->what);
	g->errors++;
	return -1;
}

/* The next phase that was asked for, started; none when the table is done. */
static void next_phase(struct generators *g)
{
	while (gen_phases[++g->phase])
		if (gen_phases[g->phase]->asked(&g->o) && open_phase(g, gen_phases[g->phase]) == 0)
			return;
}

/* The phase under way, one step: true once it has finished (or failed). */
static bool phase_step(struct generators *g)
{
	bool bad = g->ops->step(g->state) != 0;

	g->errors += bad;
	return bad || g->ops->finished(g->state);
}

bool generators_round(struct generators *g)
{
	if (g->phase >= 0 && !gen_phases[g->phase])
		return false; /* done in an earlier round */
	if (g->phase < 0)
		next_phase(g);
	while (g->ops && phase_step(g)) {
		end_phase(g);
		next_phase(g);
	}
	return !g->ops;
}

void generators_event(struct generators *g, uint32_t tag)
{
	if (g->ops && tag >= g->ops->tag && tag - g->ops->tag < g->ops->tags)
		g->ops->event(g->state, tag);
}

int generators_wait_ms(const struct generators *g)
{
	return g->ops && g->ops->wait_ms ? g->ops->wait_ms(g->state) : 1000;
}

uint64_t generators_close(struct generators *g)
{
	end_phase(g);
	if (g->phase < 0)
		g->phase = 0;
	while (gen_phases[g->phase])
		g->phase++;
	return g->errors;
}
