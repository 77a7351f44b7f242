/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The run's statistics and what is written of them: summary.json (a partial one every few
 * seconds, the final one at the end) and the one result line a run ends with. The counts are
 * made here as records are recorded (summary_count()); what the summary says of the witness and
 * the kernel's counters is a snapshot the comparator takes (struct summary_now).
 */
#ifndef SYNTWIN_SUMMARY_H
#define SYNTWIN_SUMMARY_H

#include <linux/types.h>
#include <stdbool.h>
#include <stdint.h>

#include "capture.h"
#include "expect.h"
#include "fp_record.h"
#include "point_stats.h"
#include "provides.h"
#include "registry.h"
#include "report.h"
#include "saved_syn_mem.h"
#include "tree_facts.h"
#include "verdict.h"
#include "witness_features.h"

/* TcpExt counters reported as growth over the run (summary_tcpext()). */
#define TCPEXT_N 4
extern const char *const tcpext_names[TCPEXT_N];

struct run_stats {
	uint64_t conns, verdict[V_MAX], reason[R_MAX], unexplained, small_buffer_checks;
	uint64_t active, compared;
	uint64_t lost;		/* bpf-missing records put down to map eviction (R_EVICTED) */
	long long evictions;	/* capture_evictions() at the end; -1 while running */
	long long slab_start, slab_end, syn_slab_start, syn_slab_end; /* bytes, -1 unknown */
	int write_errno;	/* a results file could not be written: the run stops */
	uint64_t shapes, gen[GEN_MAX];	/* records by their generator (registry.h): passive
					 * ones, and the active planned ones (dup-synack) */
	uint64_t *shape_set;		/* SHAPE_SET slots: the distinct shapes seen */
	uint64_t duplicate_children;	/* second sockets from one SYN (labels.h) */
	uint64_t client_failed;		/* socket connections that failed in the client */
	uint64_t client_failed_proven;	/* ... whose failure the wire explains (judge.c) */
	uint64_t active_unrecorded;	/* ... that failed before their SYN-ACK was saved: no
					 * active record comes for them */
	uint64_t test_corrupted;	/* records --test-corrupt-covered made wrong */
	uint64_t corrupt_seen;		/* records with both copies (--test-corrupt counts them) */
	uint64_t late_captures;		/* captures of connections judged bpf-missing */
	uint64_t late_copies;		/* --netem: copies the wire delivered after their
					 * connection was judged (same flow and ISN) */
	uint64_t late_answers;		/* --netem: SYN-ACKs answering a late copy of a judged
					 * SYN, dropped by the client (late_answer()) */
	uint64_t active_ts;		/* active records whose SYN-ACK (the one that made the
					 * connection) carried a timestamp */
	uint64_t active_answered;	/* ... of those, with the client's first ACK's TSecr seen */
	uint64_t gave_up;		/* SYNs a generator gave up on (no SYN-ACK came) */
	uint64_t gave_up_dropped;	/* ... whose every copy the witness saw the kernel drop
					 * (the tun peer gives those up at once) */
	int64_t unclaimed_bindings;	/* bound records the ring delivered that no socket took
					 * (a second child of one SYN, never accepted); -1 until
					 * the end */
	uint64_t bad_labels;		/* labels that named no valid flow, or no memory */
	int64_t cookies_base, tcpext_base[TCPEXT_N];
	const char *cookie_counter; /* the TcpExt counter that cross-checks syncookie proofs */
	uint64_t records_written; /* JSONL records on disk (report.lines_written) */
	uint64_t proven[GEN_MAX];	/* planned records proven as planned (judge_as_planned()) */
	struct mem_counts mem;		/* the memory follower at the end */
	uint64_t mem_settle_ms;		/* waited for the last requests to go */
	uint64_t mem_leaks;		/* memory verdicts: outstanding at the end, freed twice */
	uint64_t mem_double_unconfirmed; /* freed again from another function (judge_memory()) */
	uint64_t mem_double_confirmed;	/* freed twice in one function: a verdict each */
	uint64_t mem_double_reused;	/* freed again from another function, the address owned by
					 * another slab cache by then (judge_memory()) */
	struct fp_stats fp;		/* fingerprints through both witnesses (fp_record.h) */
	bool partial;
	bool keys_lost;			/* a judged key not kept (out of memory) */
	uint64_t cookie_due;		/* passive socket records in the plan's forced-cookie window */
	uint64_t active_allocs;		/* saved-copy allocations tied to SYN-ACK copies */
	uint64_t cookie_due_reopened;	/* ... not a cookie: their 4-tuple reopened (judge.h) */
	bool counter_present[PROVIDES_MAX]; /* each declared counter, at the start */
	int64_t synack_saved_base;	/* TCPSynAckSaved at the start, -1 absent */
	struct expect_list expect;	/* the run's expectations, at its end (expect.h) */
	struct points_summary points;	/* the capture points beside tc (point_stats.h) */
};

/* What the run was asked to be: from its options and plan. */
struct run_meta {
	uint64_t connections, active, held_back, abandoned, dup_synack;
	const uint64_t *own;		/* the plan's generators of their own (plan.h), or NULL */
	const struct provides *decl;
	const struct tree_facts *tree;
	const char *series_hash, *mix, *rerun_of, *shard, *netem, *netem_back;
	uint64_t seed;
};

/* What the witness and the kernel's counters say now. */
struct summary_now {
	__u64 cnt[CNT_MAX];		/* the witness's counters */
	const char *const *cnt_names;
	uint64_t waiting;		/* captures still waiting for a socket */
	long long map_bytes;
	struct bpf_error err[2];	/* the last helper failure of tc and sockops (line 0: none) */
	int64_t tcpext[TCPEXT_N];	/* -1: absent */
	int64_t cookie_counter;		/* st->cookie_counter now, -1 absent */
	const struct witness_features *features;	/* what the witness has of the kernel */
	uint64_t taken_by_program;	/* flow entries take_flow took (capture.h: take_slot) */
	uint64_t take_fallbacks;	/* ... that it left to bpf() */
};

/* Zeroed statistics with their shape set. Returns 0, or -1 (out of memory). */
int stats_init(struct run_stats *st);
/* The shape of a SYN (@len bytes from the MAC header, @mac of them link layer), counted if new;
 * 0 when it has none. */
uint64_t stats_count_shape(struct run_stats *st, const uint8_t *b, size_t len, size_t mac);
/* Count a shape by its hash (a record's "shape", as `syntwin merge` reads it back). */
uint64_t stats_count_shape_hash(struct run_stats *st, uint64_t h);
/* A judged record: its verdict, reason, whether it failed (@bad). */
void stats_count_verdict(struct run_stats *st, const struct compare_result *res, int bad);
/* A record of generator @g; a planned one proven as planned counts as proven too. */
void stats_count_gen(struct run_stats *st, enum gen_id g, const struct compare_result *res);
/* Cookie children the witness proved: first children (syncookie) and later ones of a SYN
 * already judged (syncookie-repeat); the kernel's counter counts both. */
uint64_t stats_cookies_proven(const struct run_stats *st);

/* summary.json in @dir (atomically); @final: the run's end (memory, expectations, the
 * cross-check's result). Returns 0, or -1 with errno. */
int summary_write(const char *dir, const struct run_meta *m, const struct run_stats *st,
		  const struct summary_now *now, bool final);
/* The one line a run ends with: counts by verdict and explained reason. */
void summary_print_result(const struct run_stats *st, bool active);

#endif
