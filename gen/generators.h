/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The generators syntwin-server runs in its own event loop, one after the other in the order
 * of gen_phases[] (generators.c): the planned handshakes (planned.h), the generators of their
 * own (gen/own/), the crafted phase
 * (crafted_gen.h: tun0, fuzzed, tap0, or a capture's SYNs replayed), then the socket-knob
 * connections (sock_gen.h). Each is a struct gen_ops (generator.h).
 */
#ifndef SYNTWIN_GENERATORS_H
#define SYNTWIN_GENERATORS_H

#include <stdbool.h>
#include <stdint.h>

#include "generator.h"

/* epoll data.u32 of the tun peer's device (planned and crafted phases), and of the socket
 * generator's first slot; below GEN_TAG_FIRST: the loop's own (its listeners) */
#define GEN_TAG_FIRST 8
#define GEN_TAG_CRAFTED 8
#define GEN_TAG_SOCKETS 16

struct generators {
	int phase;		/* the row of gen_phases[] under way; -1 before the first */
	const struct gen_ops *ops;	/* ... its calls, NULL before and after */
	void *state;
	struct gen_opts o;
	gen_sink sink;
	void *ctx;
	int ep;
	uint64_t errors;	/* the generators' own failures: they fail the run */
};

/* The generators in order, NULL-terminated. */
extern const struct gen_ops *const gen_phases[];

/* Every generator of its own in the registry (per_run > 0) has exactly one file of gen/own/ in
 * table @phases (gen_phases), and each such file a row that is one. Returns 0, or -1
 * (printed). */
int generators_check(const struct gen_ops *const *phases);

void generators_init(struct generators *g, const struct gen_opts *o, gen_sink sink, void *ctx,
		     int ep);
/* The generators' turn in a round of the loop. Returns true in the round the last one
 * finished (or at once when none was asked for). */
bool generators_round(struct generators *g);
/* An epoll event whose data.u32 @tag is at or past GEN_TAG_FIRST. */
void generators_event(struct generators *g, uint32_t tag);
/* How long the loop may sleep before the phase under way has a deadline (at most 1000 ms). */
int generators_wait_ms(const struct generators *g);
/* The run ends, whatever phase it is in: what runs is closed. Returns the failures. */
uint64_t generators_close(struct generators *g);

#endif
