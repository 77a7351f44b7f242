/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `syntwin run --rerun DIR`: the generators replay exactly the connections of an earlier run
 * that were not identical. This reads that run's connections.jsonl and keeps the gen_index of
 * every non-identical record of one generator; the generator then walks its seeded sequence as
 * before and makes only those connections (drawing everything else, so the rest stays equal).
 */
#ifndef SYNTWIN_RERUN_H
#define SYNTWIN_RERUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rerun_set {
	uint64_t *idx;
	size_t n;
};

/* Loads the indexes of @gen's non-identical records ("a,b" names several). Returns 0 or -1. */
int rerun_load(const char *jsonl, const char *gen, struct rerun_set *set);
bool rerun_has(const struct rerun_set *set, uint64_t i);

#endif
