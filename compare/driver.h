/* SPDX-License-Identifier: GPL-2.0 */
/*
 * syntwin-server as the guest's driver (--run-connections N ...): it plans the run itself
 * (plan.h; the counts of a rerun, a shard or a replay asked of the generators' --count, as
 * the guest script did), writes plan.json before anything runs, starts the one generator that
 * stays a process of its own (syntwin-crafted: the planned handshakes, or a replay), and runs
 * every other generator in its own event loop (generators.h) once that one is done.
 */
#ifndef SYNTWIN_DRIVER_H
#define SYNTWIN_DRIVER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "plan.h"

struct driver_args {
	uint64_t connections, seed, parallel;
	const char *mix, *out;
	bool active;		/* the kernel saves SYN-ACKs (run-guest.sh: TCPSynAckSaved) */
	const char *rerun;	/* an earlier run's records (DIR/rerun.jsonl) */
	const char *shard;	/* "I/N", or NULL */
};

/* The plan into @p (and DIR/plan.json). Returns 0, or -1 (printed). */
int driver_plan(const struct driver_args *a, struct plan_input *in, struct plan *p);
/* Starts the planned handshakes or the replay, if the plan has any: *@pid, or 0 for none.
 * Returns 0, or -1 (printed). */
int driver_spawn(const struct driver_args *a, const struct plan *p, pid_t *pid);
/* Has child @*pid ended (without waiting)? Then *@pid is 0, and a failure counted in
 * *@errors. Returns true once there is no child. */
bool driver_child_done(pid_t *pid, uint64_t *errors);

#endif
