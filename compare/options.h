/* SPDX-License-Identifier: GPL-2.0 */
/*
 * syntwin-server's options, and the run's plan (driver.h) turned into what each generator
 * makes and what the run waits for.
 */
#ifndef SYNTWIN_OPTIONS_H
#define SYNTWIN_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "crafted_gen.h"
#include "driver.h"
#include "provides.h"
#include "sock_gen.h"
#include "tree_facts.h"

struct opts {
	const char *out, *series_hash, *mix, *rerun_of, *p0f_db;
	const char *generated_file;	/* the uptime every generator was done at, written here */
	const char *netem, *netem_back;	/* the wire's faults (tc netem), for the summary */
	const char *shard;	/* "I/N" of a sharded run (run-guest.sh), "" or "-": not one */
	uint64_t connections, seed, test_corrupt, active;
	uint64_t test_fault_after;	/* TEST ONLY: after this many records, test_fault */
	bool test_corrupt_covered;	/* TEST ONLY: corrupt_covered() */
	int64_t test_reset;		/* TEST ONLY: reset (SO_LINGER 0) the child of socket
					 * connection #test_reset; -1: none */
	const char *test_fault;		/* "kill-server" or "panic" */
	bool hex_all;
	unsigned int points;		/* --capture-points (point_names.h); tc always */
	const char *point_devs;		/* --point-devs: the server's devices */
	int test_point;			/* TEST ONLY: --test-corrupt-point's point, */
	uint64_t test_point_every;	/* ... and every how many of its copies */
	/* what the plan makes (driver_configure()) */
	uint64_t held_back, abandoned, dup_synack; /* planned handshakes (gen/planned.c) */
	bool sockets;			/* the socket generator runs in this loop */
	struct sock_gen_opts gen;	/* ... with these options */
	struct crafted_opts crafted;	/* the crafted phase's */
	uint64_t planned_seed;		/* the planned handshakes' */
	const char *provides;		/* --provides: the series' declaration, in @decl */
	struct provides decl;
	const char *tree_file;		/* --tree: the kernel tree's facts, in @tree */
	struct tree_facts tree;
	struct driver_args run;		/* ... with these */
};

/* The options into @o. Returns 0, or -1 (printed, with the usage where it helps). */
int options_parse(int argc, char **argv, struct opts *o);
/* The run's plan into @p (plan.json) and @o. Returns 0, or -1 (printed). */
int options_plan(struct opts *o, struct plan *p);

#endif
