/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The judge's rules that are not about one connection's bytes (judge.h is): decided once the
 * comparator has gathered their facts, pure, every one reached from here.
 *
 *   judge_client_failed()   a socket connection that failed in the client before its SYN-ACK
 *                           was saved: connection-failed (nothing on the wire shows why)
 *   judge_memory()          a saved copy still allocated at the end, or freed twice: differ;
 *                           a second free from another function is not judged
 *   judge_cookie_counter()  the kernel's syncookie counter against the witness's proofs
 *   judge_leftover()        a capture no socket took, left at the end: judged, or counted as
 *                           a late copy, a late answer or a late capture of a judged connection
 *   judge_as_planned()      a planned handshake's record, proven as its generator declared
 *   judge_run_partial(), judge_run_status()  the run as a whole: partial, and its exit status
 */
#ifndef SYNTWIN_RUN_VERDICTS_H
#define SYNTWIN_RUN_VERDICTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "registry.h"
#include "verdict.h"

/* A socket connection whose connect() failed in the client before its SYN-ACK was saved. */
struct client_failure {
	const char *gen, *knobs;
	uint64_t index;
	int err;			/* the socket's error */
};

/* Fills @res (connection-failed, the error named); returns 1: always a failure. */
int judge_client_failed(const struct client_failure *f, struct compare_result *res);

/* What the memory follower holds of one saved copy at the end of the run. */
enum mem_finding_kind { MEM_OUTSTANDING, MEM_FREED_TWICE };
struct mem_finding {
	enum mem_finding_kind kind;
	uint64_t bytes;
	uint32_t isn;			/* of the SYN it was allocated for */
	const char *free_site;		/* MEM_FREED_TWICE: both kfree call sites, "func+0x1f" */
	const char *free2_site;
	bool other_owner;		/* MEM_FREED_TWICE: another slab cache owned the address at
					 * the second kfree than at the first (a page given back
					 * and taken: a new object of that cache) */
};

/*
 * Returns 1 with @res filled (differ: a leak, or a double free in one function: one path freed
 * it twice, whoever owns the address by then), or 0 when it is not judged: freed again from
 * another function, where the address may have been handed out again by an allocation the
 * tracepoints did not report, or was (other_owner: @res says so).
 */
int judge_memory(const struct mem_finding *f, struct compare_result *res);
/* other_owner from what the follower read at a second kfree (enum mem_owner): another cache's
 * object there, and nothing else (unread, kmalloc's, no slab, no object of it). */
bool mem_other_owner(uint64_t owner2);


/*
 * The syncookie cross-check. Syncookie explanations rest on the witness's per-connection proof;
 * the kernel's counter is a cross-check. With the series' TCPSynNotSavedCookie (it counts
 * exactly the accepted cookie children of TCP_SAVE_SYN listeners) the two must be equal, but for
 * connections whose capture the witness lost (their proof went with it): proven <= growth <=
 * proven + lost. With only SyncookiesRecv (every validated cookie, accepted or not) the proofs
 * may not exceed it.
 */
struct cookie_counts {
	const char *counter;		/* "TCPSynNotSavedCookie" or "SyncookiesRecv" */
	int64_t growth;			/* over the run, -1 unknown (a failure) */
	uint64_t proven;		/* syncookie + syncookie-repeat */
	uint64_t lost;			/* records lost to the witness's map eviction */
};
bool judge_cookie_counter(const struct cookie_counts *c);
/* The rule judge_cookie_counter() applied, in words. */
const char *cookie_counter_rule(const struct cookie_counts *c);

/* A capture no socket took, left in the witness's flow map at the end of the run. */
enum leftover { LEFT_JUDGE, LEFT_LATE_COPY, LEFT_LATE_ANSWER, LEFT_LATE_CAPTURE };
struct leftover_facts {
	bool wire_faults;		/* --netem: the wire delivers late copies */
	bool key_judged;		/* its flow and ISN were judged with a socket */
	bool answers_judged;		/* it answers a late copy of a judged SYN (late_answer()) */
	bool flow_missing;		/* its flow's connection was judged bpf-missing */
};
enum leftover judge_leftover(const struct leftover_facts *f);

/* Is @res as generator @row plans its records (gen/registry.h)? Explained by its planned
 * reason; for a generator of its own that plans none, identical; never for one that plans
 * nothing. */
bool judge_as_planned(const struct gen_row *row, const struct compare_result *res);

/* The run's end. */
struct run_end {
	uint64_t passive_paid;		/* passive connections paid for (passive_paid()) */
	uint64_t passive_planned;	/* ... the plan's */
	uint64_t active, active_unrecorded, active_planned;
	long long evictions;		/* the witness's maps' evictions */
	uint64_t lost;			/* records lost to them */
	bool write_failed;		/* a results file could not be written */
	bool keys_lost;			/* a judged key not kept (out of memory) */
	uint64_t unexplained;
	size_t expectations_failed;
	uint64_t points_lost;		/* the capture points' copies lost to their own stores
					 * (their failures are in unexplained) */
};
/* Passive connections paid: each planned connection pays once; a second child of one SYN does
 * not pay for another's, and, once every capture is judged (@judged), a connection proven to
 * have no child (syncookie-no-child) pays without one. */
uint64_t passive_paid(uint64_t conns, uint64_t duplicate_children, uint64_t cookie_no_child,
		      bool judged);
/* Partial: something owed never came, or the witness or the disk lost some of the run. */
bool judge_run_partial(const struct run_end *e);
/* 0: every record identical or explained, every expectation held, nothing partial; 1: not;
 * 2: the results could not be written. */
int judge_run_status(const struct run_end *e, bool partial);

#endif
