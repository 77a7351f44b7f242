/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The planned handshakes as a module of syntwin-server's event loop (gen/planned.c): each with
 * an outcome fixed in advance that the judge must prove from the witness's evidence, made one
 * at a time through the tun peer (tun_peer.h) on tun0, whose fd is on the loop. Labels and the
 * dup-synack records go to the server's handler in memory (peer_sink).
 *
 * The loop's part is planned_ops (generator.h): step every round (it starts what may start, and
 * times out), event when the device (epoll data.u32 = its tag) is readable.
 */
#ifndef SYNTWIN_PLANNED_H
#define SYNTWIN_PLANNED_H

#include <stdbool.h>
#include <stdint.h>

#include "events.h"
#include "craft.h"
#include "tun_peer.h"

struct planned {
	uint64_t held_back;	/* SYN retransmitted into its request (first SYN-ACK held back) */
	uint64_t abandoned;	/* in groups of four: reset, left to expire, listener closed */
	uint64_t dup_synack;	/* active: a socket here gets its SYN-ACK twice */
};
#define PLAN_MAX 7000		/* held-back + abandoned: ports PLAN_SPORT.. */

/* A Linux-like SYN with timestamps, TSval @tsval, IP ID (and IPv6 flow label) @ipid: MSS,
 * SACK-permitted, TS, NOP, WS 7 ("plan/linux-ts"). */
void planned_shape(int family, uint32_t tsval, uint16_t ipid, struct syn_shape *s);

enum plan_kind { PLAN_HELD_BACK, PLAN_ABANDON_RST, PLAN_ABANDON_EXPIRE, PLAN_ABANDON_CLOSE,
		 PLAN_DUP_SYNACK };

struct planned_gen {
	struct planned p;
	uint64_t rng;
	int ep;
	uint32_t tag;
	bool running, finished;
	uint64_t i;		/* the handshake under way: passive ones first, then dup-synack */
	int st;			/* its step (planned.c) */
	bool waiting;		/* for a segment planned.c's want accepts, until deadline_ms */
	uint64_t deadline_ms;
	bool (*want)(const struct seg *g, const void *arg);
	const void *want_arg;
	struct synack_of sa_of;	/* want's argument for a SYN-ACK of ours */
	uint16_t w_port;	/* and for the dup-synack socket's segments: its port, the ACK */
	uint32_t w_ack;
	struct seg got;
	/* the handshake under way */
	enum plan_kind kind;
	uint32_t isn, tsval;
	struct syn_shape s;
	struct flow f;
	int fd, af, mode;	/* dup-synack: our socket, its family and TCP_SAVE_SYN mode */
	struct seg syn;		/* dup-synack: its SYN */
	/* abandon-close: the group's listeners and when its first SYN went */
	int lfd[4];
	uint64_t t0;
	uint64_t bad, unanswered, dup_made;
};

#endif
