/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A record's fingerprints through each witness (JA4T/JA4TS, p0f raw_sig and label: ja4t.h,
 * p0f.h), and their counts over a run for summary.json's "fingerprints" block.
 */
#ifndef SYNTWIN_FP_RECORD_H
#define SYNTWIN_FP_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "classify.h"
#include "ja4t.h"
#include "json_out.h"
#include "p0f.h"
#include "registry.h"

struct fp_one {
	char ja4t[JA4T_MAX], p0f[P0F_SIG_MAX], label[P0F_LABEL_MAX]; /* "" where none */
};

struct record_fp {
	struct fp_one native, bpf;
	bool has_wire;			/* the run captured the wire and has this SYN's frame: */
	struct fp_one wire;		/* ... the packet the wire carried, payload and all */
};

struct conn_record;

/* Both copies' fingerprints (a missing copy's are ""), each from its IP header on; and the
 * wire's frame's, where the record has one (--capture-points wire). */
void record_fp_compute(const struct p0f_db *db, const struct conn_record *c,
		       struct record_fp *fp);

/*
 * A record's profile: the knobs' first word where that names a profile ("fuzz/android:opts
 * ttl=..." is "fuzz/android:opts"), else "" (socket-knob records: their knob combinations are
 * thousands, so they group under the generator alone).
 */
void fp_profile_of(const char *knobs, char *out, size_t n);

/*
 * summary.json counts fingerprints per generator and direction (the per-profile table is
 * `syntwin fingerprints`, from connections.jsonl): the summary stays small enough for the
 * space the server holds back for it on a full disk.
 */
#define FP_GENS_MAX 32		/* (generator, direction) entries; more are counted as dropped */
#define FP_DISTINCT_MAX 4096	/* distinct fingerprints counted exactly per entry */

struct fp_gen {
	char gen[GEN_NAME_MAX], direction[8];
	uint64_t records;
	uint64_t *hash, *count;		/* FP_DISTINCT_MAX * 2 slots, open addressing; 0: free */
	uint32_t distinct;
	bool more;			/* more than FP_DISTINCT_MAX distinct: a lower bound */
	char top_ja4t[JA4T_MAX], top_label[P0F_LABEL_MAX];
	uint64_t top_records;
};

/* One row of "changed": records with both copies under one verdict or reason. */
struct fp_change {
	uint64_t records, ja4t, p0f, label;
};

struct fp_stats {
	uint64_t both;			/* records with a fingerprint through both witnesses */
	uint64_t ja4t_agree, p0f_agree, label_agree;
	struct fp_change by_reason[R_MAX], by_verdict[V_MAX];
	struct fp_gen gens[FP_GENS_MAX];
	uint64_t ngens, gens_dropped;
};

/* Count record @c: its generator's fingerprints (fp_stats_add_gen()), and whether the two
 * copies' agree. */
void fp_stats_add(struct fp_stats *s, const struct conn_record *c, const struct record_fp *fp);
/* Count a record of generator @gen in @direction under the fingerprint it is known by: the
 * witness's copy's, the native's where the witness has none. (`syntwin merge` counts the
 * merged records again through this, from their JSONL fields.) */
void fp_stats_add_gen(struct fp_stats *s, const char *gen, const char *direction,
		      const struct record_fp *fp);
void fp_stats_json(struct json_out *j, const struct fp_stats *s);
/* The "generators" array alone (fp_stats_json() writes it inside "fingerprints"). */
void fp_gens_json(struct json_out *j, const struct fp_stats *s);
/* Release what fp_stats_add*() allocated. */
void fp_stats_free(struct fp_stats *s);

#endif
