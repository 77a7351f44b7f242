/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The generators syntwin-server runs in its own event loop, in order: the planned handshakes
 * (gen/planned.h), the crafted phase (gen/crafted_gen.h: tun0, fuzzed, tap0, or a capture's
 * SYNs replayed), then the socket-knob connections (gen/sock_gen.h). Their labels and records
 * go to the server's handler in memory (@sink).
 */
#ifndef SYNTWIN_GENERATORS_H
#define SYNTWIN_GENERATORS_H

#include <stdbool.h>
#include <stdint.h>

#include "crafted_gen.h"
#include "planned.h"
#include "sock_gen.h"

/* epoll data.u32 of the tun peer's device (planned and crafted phases), and of the socket
 * generator's first slot */
#define GEN_TAG_CRAFTED 8
#define GEN_TAG_SOCKETS 16

enum gen_phase { PHASE_WAITING, PHASE_PLANNED, PHASE_CRAFTED, PHASE_SOCKETS, PHASE_DONE };

/* What the server's generators make (NULL or all zero: a phase left out). */
struct gen_opts {
	const struct planned *planned;
	uint64_t planned_seed;
	const struct crafted_opts *crafted;
	const struct sock_gen_opts *sockets;
};

struct generators {
	enum gen_phase phase;
	struct gen_opts o;
	int (*sink)(void *ctx, const struct active_msg *m);
	void *ctx;
	int ep;
	uint64_t errors;	/* the generators' own failures: they fail the run */
	struct planned_gen planned;
	struct crafted_gen crafted;
	struct sock_gen sockets;
};

void generators_init(struct generators *g, const struct gen_opts *o,
		     int (*sink)(void *ctx, const struct active_msg *m), void *ctx, int ep);
/* The generators' turn in a round of the loop; @go: they may start. Returns true in the round
 * the last one finished (or none was asked for, once @go). */
bool generators_round(struct generators *g, bool go);
/* An epoll event whose data.u32 @tag is GEN_TAG_CRAFTED or past GEN_TAG_SOCKETS. */
void generators_event(struct generators *g, uint32_t tag);
/* How long the loop may sleep before the phase under way has a deadline (at most 1000 ms). */
int generators_wait_ms(const struct generators *g);
/* The run ends, whatever phase it is in: what runs is closed. Returns the failures. */
uint64_t generators_close(struct generators *g);

#endif
