/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A consumer's take of a flow entry without an allocation: this thread's slot of syn_take,
 * mapped, and the pinned take_flow program run on it (struct take_slot in capture.h).
 */
#ifndef SYNTWIN_FLOW_TAKE_H
#define SYNTWIN_FLOW_TAKE_H

#include <linux/types.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "capture.h"

struct flow_take {
	bool opened;			/* at the first take: a client that takes nothing (dump)
					 * holds no slot */
	int prog_fd;			/* take_flow, -1 where there is none or the slot is
					 * another thread's: the caller takes by bpf() */
	struct take_slot *slot;		/* this thread's slot, mapped */
	void *map;			/* the mapping, for close */
	size_t len;
	pthread_t thread;		/* the thread that claimed the slot ... */
	unsigned long forks;		/* ... and the process's forks then (a child's is not) */
	bool wanted;			/* the program was asked for (no SYNTWIN_TAKE_BY_MAP=1) */
	__u64 taken;			/* entries the program took */
	__u64 fallbacks;		/* takes it was asked for and left to bpf() (no slot for
					 * this thread, busy for about a second, or it failed) */
	__u64 busy;			/* runs that found a replacement under way (TAKE_BUSY) */
};

/* Whether this thread's takes go by the program: opens it and claims the slot as the first
 * take would. */
bool flow_take_ready(struct flow_take *t);

/* Gives the slot back, if the first take claimed one. */
void flow_take_close(struct flow_take *t);

/* Flow @k's entry taken into @out: 1 taken, 0 none, -EAGAIN if the program would not (no slot,
 * or a later copy's replacement of the entry did not end in time): take it by bpf(). The first
 * call opens the program and claims this thread's slot; SYNTWIN_TAKE_BY_MAP=1 asks for none
 * (every take then bpf()'s: docs/performance.md measures the two in one boot). */
int flow_take(struct flow_take *t, const struct capture_key *k, struct capture_rec *out);

#endif
