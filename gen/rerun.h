/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which connections of its seeded sequence a generator makes: all of them, or a selection.
 * `syntwin run --rerun DIR`: exactly the connections of an earlier run that were not identical
 * (the gen_index of every non-identical record of one generator in that run's
 * connections.jsonl). `syntwin run --shard I/N`: the I-th of N disjoint slices, the indexes with
 * i % N == I. Either way the generator walks its whole sequence as before and makes only the
 * selected connections, drawing everything else, so each connection is the one the full run
 * makes.
 */
#ifndef SYNTWIN_RERUN_H
#define SYNTWIN_RERUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rerun_set {
	uint64_t *idx;
	size_t n;
	bool from_run;		/* idx holds an earlier run's selection */
	uint64_t shard, shards;	/* shards > 1: only the indexes with i % shards == shard */
};

/* Loads the indexes of @gen's non-identical records ("a,b" names several). Returns 0 or -1. */
int rerun_load(const char *jsonl, const char *gen, struct rerun_set *set);
/* "I/N" (0 <= I < N <= 1024) into @set. Returns 0, or -1 with the reason in @err. */
int shard_parse(const char *v, struct rerun_set *set, char *err, size_t errlen);
/* Is anything selected, rather than the whole sequence? */
bool rerun_active(const struct rerun_set *set);
/* Is connection @i of the sequence selected? */
bool rerun_has(const struct rerun_set *set, uint64_t i);

#endif
