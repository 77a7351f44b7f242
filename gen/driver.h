/* SPDX-License-Identifier: GPL-2.0 */
/*
 * syntwin-server as the guest's driver (--run-connections N ...): it plans the run itself
 * (plan.h; the counts of a rerun, a shard or a replay asked of the generators' --count, as
 * the guest script did), writes plan.json before anything runs, and runs every generator in
 * its own event loop (generators.h).
 */
#ifndef SYNTWIN_DRIVER_H
#define SYNTWIN_DRIVER_H

#include <stdbool.h>
#include <stdint.h>

#include "plan.h"

struct driver_args {
	uint64_t connections, seed, parallel;
	const char *mix, *out;
	bool active;		/* the series declares the SYN-ACK save (provides.h) */
	const struct provides *declared; /* the series' declaration, for plan.json */
	const char *rerun;	/* an earlier run's records (DIR/rerun.jsonl) */
	const char *shard;	/* "I/N", or NULL */
	const char *tree;	/* the kernel tree's facts file (tree_facts.h), for the counts */
};

/* The plan into @p (and DIR/plan.json). Returns 0, or -1 (printed). */
int driver_plan(const struct driver_args *a, struct plan_input *in, struct plan *p);
#endif
