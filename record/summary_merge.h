/* SPDX-License-Identifier: GPL-2.0 */
/*
 * summary.json of a sharded run from its shards' (`syntwin merge`): the counts the unsharded run
 * of the same seed and size has, count for count (tests/shards.sh proves it on a real run,
 * unit.merge rule by rule).
 * - counts add up; a null (not known) stays null; settle_ms (a wait) is the longest;
 * - what every shard shares (seed, mix, kernel, series hash, the witness's map size, ...) must be
 *   equal; a difference is written out ("shards differ: A vs B"), never hidden;
 * - booleans: "partial" (and any other flag) if any shard's is, "agree" only if every one's is;
 * - arrays are joined in shard order; bpf_last_error is each program's last shard's;
 * - each shard's expectations are its own, made in its run: kept, each naming its shard; the
 *   series' declaration is the first shard's (the caller checks they are one);
 * - snapshots of one guest (slab bytes at start and end) are not counts: null;
 * - what is not additive the caller computes again from the merged records (distinct shapes,
 *   the fingerprints per generator: record/fp_record.c's own counting) and hands in.
 */
#ifndef SYNTWIN_SUMMARY_MERGE_H
#define SYNTWIN_SUMMARY_MERGE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* What the merged records give (their counts do not add over shards). */
struct merge_recount {
	uint64_t distinct_syn_shapes;
	json_t *fp_generators;	/* summary.json's fingerprints.generators (a reference is taken) */
};

/* @v as text, as jq's string interpolation shows it: a string as it is, anything else as
 * compact JSON (NULL: "null"). The caller frees it; NULL if out of memory. */
char *summary_value_text(const json_t *v);

/*
 * The merged summary of @n shard summaries @shard (in shard order), or NULL (out of memory).
 * The shards' objects are not changed.
 */
json_t *summary_merge(json_t *const *shard, size_t n, const struct merge_recount *rc);

#endif
