/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The generators syntwin-server runs in its own event loop, in order, once the generators of
 * other processes (the planned handshakes, a replay) are done: the crafted phase
 * (gen/crafted_gen.h: tun0, fuzzed, tap0), then the socket-knob connections
 * (gen/sock_gen.h). Their labels and records go to the server's handler in memory (@sink).
 */
#ifndef SYNTWIN_GENERATORS_H
#define SYNTWIN_GENERATORS_H

#include <stdbool.h>
#include <stdint.h>

#include "crafted_gen.h"
#include "sock_gen.h"

/* epoll data.u32 of the crafted peer's device, and of the socket generator's first slot */
#define GEN_TAG_CRAFTED 8
#define GEN_TAG_SOCKETS 16

enum gen_phase { PHASE_WAITING, PHASE_CRAFTED, PHASE_SOCKETS, PHASE_DONE };

struct generators {
	enum gen_phase phase;
	const struct crafted_opts *crafted_opts;	/* NULL: no crafted phase */
	const struct sock_gen_opts *sock_opts;		/* NULL: no socket phase */
	int (*sink)(void *ctx, const struct active_msg *m);
	void *ctx;
	int ep;
	uint64_t errors;	/* the generators' own failures: they fail the run */
	struct crafted_gen crafted;
	struct sock_gen sockets;
};

void generators_init(struct generators *g, const struct crafted_opts *crafted,
		     const struct sock_gen_opts *sockets,
		     int (*sink)(void *ctx, const struct active_msg *m), void *ctx, int ep);
/* The generators' turn in a round of the loop; @go: the other processes' generators are done.
 * Returns true in the round the last one finished (or none was asked for, once @go). */
bool generators_round(struct generators *g, bool go);
/* An epoll event whose data.u32 @tag is GEN_TAG_CRAFTED or past GEN_TAG_SOCKETS. */
void generators_event(struct generators *g, uint32_t tag);
/* The run ends, whatever phase it is in: what runs is closed. Returns the failures. */
uint64_t generators_close(struct generators *g);

#endif
