/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The plan of a run: how many connections each generator makes, with which seed, and what the
 * server waits for. A pure function of the run's size, seed and mix (and, for a replay or a
 * rerun, of the counts the generators report for their input), written first as plan.json:
 * syntwin-server (gen/driver.c) starts the generators from it, and tests read their
 * expected counts from it instead of repeating the arithmetic.
 */
#ifndef SYNTWIN_PLAN_H
#define SYNTWIN_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "registry.h"

struct provides;

struct plan_input {
	uint64_t connections;	/* the size asked for */
	uint64_t seed;
	const char *mix;	/* default, sockets, crafted, fuzz, plain, replay */
	bool active;		/* the series declares the SYN-ACK save (provides.h): every
				 * socket connection is checked in the active direction too */
	const struct provides *declared; /* the series' declaration for plan.json, or NULL */
	/* replay: the SYNs in the capture; rerun: what each generator selects of the earlier
	 * run's records (its --count), for a rerun of that mix */
	bool rerun;
	uint64_t replay, rerun_crafted, rerun_fuzz, rerun_tap, rerun_sockets;
	/* a shard (shards > 1): the generators make the indexes i % shards == shard of the whole
	 * run's sequences, their counts given as for a rerun (selected); the planned handshakes
	 * are all made by shard 0 */
	bool selected;		/* the rerun_* counts hold what each generator makes */
	uint64_t shard, shards;
};

struct plan {
	/* connections per generator */
	uint64_t crafted, fuzz, tap, sockets;
	uint64_t cookie_tail, cookie_at;	/* socket connections with syncookies forced: the
						 * last cookie_tail from number cookie_at on */
	uint64_t held_back, abandoned, dup_synack, replay;	/* planned handshakes (gen/planned.c) */
	uint64_t own[GEN_MAX], own_seed[GEN_MAX];	/* the generators of their own (registry.h:
							 * per_run): connections, seed */
	/* what the server waits for: passive records and active ones */
	uint64_t expect, expect_active;
	/* each generator's seed */
	uint64_t seed_sockets, seed_crafted, seed_planned, seed_fuzz, seed_tap;
	const char *client_mix;			/* the socket client's knob mix */
};

/* Fills @p. Returns 0, or -1 with the reason in @err (an unknown mix). */
int plan_make(const struct plan_input *in, struct plan *p, char *err, size_t errlen);

/* @p as a JSON document (with @in's size, seed and mix), or NULL when out of memory; free(). */
char *plan_json(const struct plan_input *in, const struct plan *p);

#endif
