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

struct fp_one {
	char ja4t[JA4T_MAX], p0f[P0F_SIG_MAX], label[P0F_LABEL_MAX]; /* "" where none */
};

struct record_fp {
	struct fp_one native, bpf;
};

struct conn_record;

/* Both copies' fingerprints (a missing copy's are ""), each from its IP header on. */
void record_fp_compute(const struct p0f_db *db, const struct conn_record *c,
		       struct record_fp *fp);

/*
 * A record's profile: the knobs' first word where that names a profile ("fuzz/android:opts
 * ttl=..." is "fuzz/android:opts"), else the knobs whole ("mss=536", "plain").
 */
void fp_profile_of(const char *knobs, char *out, size_t n);

/* Distinct (generator, profile, fingerprint) groups kept; more are counted as dropped. */
#define FP_GROUPS_MAX 512

struct fp_group {
	char gen[24], profile[64], direction[8];
	char ja4t[JA4T_MAX], label[P0F_LABEL_MAX];
	uint64_t records;
};

/* One row of "changed": records with both copies under one verdict or reason. */
struct fp_change {
	uint64_t records, ja4t, p0f, label;
};

struct fp_stats {
	uint64_t both;			/* records with a fingerprint through both witnesses */
	uint64_t ja4t_agree, p0f_agree, label_agree;
	struct fp_change by_reason[R_MAX], by_verdict[V_MAX];
	struct fp_group *groups;	/* FP_GROUPS_MAX of them, allocated on first use */
	uint64_t ngroups, groups_dropped;
};

/* Count record @c: its groups by the witness's fingerprint (the native's where the witness has
 * none), and whether the two agree. */
void fp_stats_add(struct fp_stats *s, const struct conn_record *c, const struct record_fp *fp);
void fp_stats_json(struct json_out *j, const struct fp_stats *s);
void fp_stats_free(struct fp_stats *s);

#endif
