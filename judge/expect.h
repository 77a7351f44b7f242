/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The run's exact expectations, checked inside every run on every kernel (the reference, a
 * mutant, a reviewer's): what the plan (plan.h) and the series' declaration (provides.h) fix,
 * against what the run saw. Nothing here comes from the kernel under test: its counters are
 * *checked* against numbers the plan, the witness and the records fix, never used to decide
 * what is checked. A failed expectation fails the run (exit 1) with its line, e.g.
 * "active records 0, want 9216 (planned: every socket connection; declared synack-save)".
 *
 * Each expectation holds under a condition, said in its `when` (docs/verdicts.md has the
 * table): always; where the series declares a feature; on a whole run (not a rerun, a shard
 * or a replay, whose generators make a selection); on a wire without faults (no --netem).
 */
#ifndef SYNTWIN_EXPECT_H
#define SYNTWIN_EXPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "provides.h"

struct json_out;
struct plan;

#define EXPECT_MAX 64

/* What the run saw, gathered by the server at its end (a counter: -1 if absent). */
struct expect_facts {
	const struct plan *plan;	/* NULL: no plan (a server run by hand): only the
					 * declaration's and the run's own checks apply */
	const struct provides *decl;
	bool whole_run;			/* not a rerun, shard or replay */
	bool wire_faults;		/* --netem or --netem-back */
	bool counter_present[PROVIDES_MAX];	/* decl->counter[i] was in /proc/net/netstat at the start */
	/* records */
	uint64_t passive, active, active_unrecorded, records;
	uint64_t gen_sockets, gen_crafted, gen_tap, gen_fuzz, gen_replay, gen_held_back;
	uint64_t gen_dup_synack;
	uint64_t abandon_rst, abandon_expire, abandon_close;
	uint64_t proven_held_back, proven_dup_synack, proven_rst, proven_expire, proven_close;
	/* records per generator (gen_rows[] order) and those proven as planned: the generators
	 * of their own are held to these (registry.h: per_run); NULL: none counted */
	const uint64_t *gen_records, *gen_proven;
	uint64_t syncookie, cookie_repeat, cookie_no_child, rejected, duplicate_children;
	uint64_t dropped;		/* passive connections whose SYN the kernel dropped, proven
					 * (dropped-by-kernel: a replayed SYN; no socket, no copy) */
	uint64_t cookie_not_due;	/* cookie children where the plan forced none (judge.h) */
	uint64_t cookie_due;		/* passive socket records the plan put under forced cookies */
	uint64_t cookie_due_reopened;	/* ... that reopened a 4-tuple judged before (TIME_WAIT:
					 * the kernel answers from it, without a cookie) */
	/* the kernel's TcpExt growth over the run (server netns), -1 absent */
	int64_t tcp_syn_saved, tcp_synack_saved, tcp_cookie_not_saved, tcp_tw_overflow;
	/* the memory follower */
	uint64_t mem_allocs, mem_frees, mem_double, mem_unattributed, mem_untracked;
	uint64_t mem_verdicts, mem_ctx_overflow, mem_outside_ctx;
	bool mem_owner_read;		/* the follower reads an address's owner (no kmem_cache_alloc
					 * program) ... */
	uint64_t mem_owner_check;	/* ... and read this of the first copy freed (mem_owner) */
	uint64_t mem_double_unrecorded;	/* second kfrees the follower could not record */
	uint64_t mem_double_elsewhere;	/* freed again from another function (unconfirmed) */
	uint64_t active_allocs;		/* ... those the follower tied to SYN-ACK copies */
	uint64_t mem_missed;		/* the follower's allocation and kfree runs the kernel
					 * skipped (tcp_rcv_state_process()'s are not reuses) */
	int64_t mem_live;
	/* the witness */
	uint64_t bound, bind_miss, active_bound, active_bind_miss, ring_drops, records_lost;
	uint64_t unbound, waiting;
	/* the drop rule (bpf/copy_skbs.bpf.h): copies cloned while shared, whose drops prove
	 * nothing */
	uint64_t copy_shared_clones;
	int64_t unclaimed;
	/* active records whose SYN-ACK carried a timestamp, and those with the client's first
	 * ACK seen answering it (the TSecr cross-check's input) */
	uint64_t active_ts, active_answered;
};

struct expectation {
	char name[48];
	const char *when;		/* the condition it holds under */
	int64_t want, got;
	bool ok;
};

struct expect_list {
	struct expectation e[EXPECT_MAX];
	size_t n, failed;
};

/* Every expectation that applies to @f, into @out. */
void expect_all(const struct expect_facts *f, struct expect_list *out);
/* "NAME GOT, want WANT (WHEN)" of @e, into @buf. */
void expect_line(const struct expectation *e, char *buf, size_t len);
/* @l as an array named "expectations", each {name, when, want, got, ok}. */
void expect_json(struct json_out *j, const struct expect_list *l);

#endif
