/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a merged run's records count that its shards' counts cannot add up to: the distinct SYN
 * shapes and the fingerprints per generator, counted again by the run's own code (summary.c's
 * shape set, fp_record.c's choice of fingerprint and its table), from the records' JSONL fields.
 */
#ifndef SYNTWIN_MERGE_RECOUNT_H
#define SYNTWIN_MERGE_RECOUNT_H

#include <stdint.h>

struct recount;

/* The record fields a recount reads, "" where a record has none. */
enum recount_field {
	RF_JA4T_NATIVE, RF_P0F_NATIVE, RF_LABEL_NATIVE, RF_JA4T_BPF, RF_P0F_BPF, RF_LABEL_BPF,
	RF_MAX
};
extern const char *const recount_field_names[RF_MAX];

/* A new, empty recount, or NULL (out of memory). */
struct recount *recount_new(void);
void recount_free(struct recount *rc);
/* One record: its generator and direction, its fingerprint fields, its shape (hex) or NULL. */
void recount_add(struct recount *rc, const char *gen, const char *direction,
		 const char *const field[RF_MAX], const char *shape);
uint64_t recount_shapes(const struct recount *rc);
/* summary.json's fingerprints.generators for the records added, as JSON text (the caller frees
 * it), or NULL (out of memory). */
char *recount_fp_generators(const struct recount *rc);

#endif
