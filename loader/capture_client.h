/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace access to the witness's pinned maps: what the comparator links to. */
#ifndef SYNTWIN_CAPTURE_CLIENT_H
#define SYNTWIN_CAPTURE_CLIENT_H

#include <linux/types.h>
#include <stdbool.h>

#include "capture.h"
#include "flow_take.h"

struct ring_buffer;
struct bound_table;

struct capture_client {
	int by_flow_fd, counters_fd, errors_fd, copies_fd, events_fd, late_fd;
	struct ring_buffer *ring;	/* syn_events, read in place */
	struct bound_table *bound;	/* records the ring delivered, not yet taken, by cookie */
	__u64 taken_flow;		/* flow entries this client removed, for eviction counts */
	__u32 capacity;			/* max_entries of syn_by_flow */
	struct flow_take take;		/* the take without allocation (flow_take.h) */
};

/* Open the maps pinned under CAPTURE_PIN_DIR. Returns 0 or -errno (message printed). */
int capture_client_open(struct capture_client *c);
void capture_client_close(struct capture_client *c);

/* The ring buffer's size for @entries flow entries (CAPTURE_RING_MIN..MAX, a power of two). */
__u32 capture_ring_bytes(__u32 entries);

/* Read what the ring holds into the bound table (memory reads, no system call). The ring sends
 * no wakeups: a consumer drains it whenever it takes a record, and now and then. Returns the
 * number of records read, or -errno. */
int capture_drain(struct capture_client *c);

/* The capture bound to socket @cookie as the ring delivered it, left in place (no system
 * call). Returns 0 or -ENOENT. */
int capture_peek_bound(struct capture_client *c, __u64 cookie, struct capture_rec *out);

/*
 * The capture bound to @cookie, taken: out of the bound table, and its flow entry out of
 * syn_by_flow (so a later copy of the SYN starts a new capture), by the take_flow program where
 * this thread has a slot (no allocation: struct take_slot), else by bpf()'s lookup-and-delete. When
 * that entry still holds the same SYN, *@out is the entry as it is now: its fate noted since the
 * bind (a drop, an allocation) and any copies that came after it, which the judge must see.
 * *@reads (NULL: not wanted): what the in-kernel readers returned when sockops bound it.
 * Returns 0, -ENOENT if nothing was bound to @cookie, or another -errno.
 */
int capture_take_bound(struct capture_client *c, __u64 cookie, struct capture_rec *out,
		       struct syn_reads *reads);

/* By hand (syntwin-loader lookup, dump): the capture in syn_by_flow bound to @cookie, found by
 * a walk of the map. Returns 0, -ENOENT, or another -errno. */
int capture_find_cookie(struct capture_client *c, __u64 cookie, struct capture_rec *out);

/* Bound records the ring delivered that nothing took (a second child of one SYN that was never
 * accepted), counted and forgotten. */
long capture_forget_bound(struct capture_client *c);

/* The earlier copies of capture @r (the last of r->copies, flagged CAP_F_RECAPTURED), in
 * arrival order, removed from syn_copies: up to @max into @out. Returns how many were found
 * (fewer than r->copies - 1 if some were cut or evicted), or -errno. */
int capture_take_copies(struct capture_client *c, const struct capture_rec *r,
			struct capture_rec *out, int max);

/* When the first copy of capture @r's SYN arrived (bpf_ktime_get_ns(): CLOCK_MONOTONIC): the
 * earliest kept in syn_copies, else @r's own. */
__u64 capture_first_ts(struct capture_client *c, const struct capture_rec *r);

/* The kernel dropped every copy of capture @r's SYN the witness saw (its kfree_skb count): no
 * request can have come of it. */
static inline bool capture_all_dropped(const struct capture_rec *r)
{
	return r->drops > 0 && r->drops >= r->copies;
}

/* The capture of flow @k in syn_by_flow, left in place. Returns 0, -ENOENT, or another -errno. */
int capture_peek_flow(struct capture_client *c, const struct capture_key *k,
		      struct capture_rec *out);

/* The capture of flow @k still waiting in syn_by_flow (no socket took it), removed. Returns 0,
 * -ENOENT if there is none, or another -errno. */
int capture_take_flow(struct capture_client *c, const struct capture_key *k,
		      struct capture_rec *out);

/* The name of drop reason @v (enum skb_drop_reason in the running kernel's BTF, without its
 * SKB_DROP_REASON_ prefix), or NULL if the kernel has no such value or no BTF. */
const char *capture_drop_reason_name(unsigned int v);

/* The syn_by_flow key of a capture, rebuilt from its bytes. Returns 0 or -EINVAL. */
int capture_key_of(const struct capture_rec *r, struct capture_key *k);

/* Whether the drop program the loader attached reads the kernel's drop reason (syn_drop) or
 * not (syn_drop_no_reason, where the kernel has none): 1 or 0, -1 if it cannot be read. What
 * the witness notes, from the witness itself, not from a second reading of the kernel. */
int capture_drops_with_reason(void);

/* Counters summed over CPUs into @out[CNT_MAX]. Returns 0 or -errno. */
int capture_counters(struct capture_client *c, __u64 *out);

/* The copies parked in syn_late (struct take_slot: a later copy that came while take_flow took
 * its entry and could not wait for it) moved into syn_by_flow, where bpf()'s take would have
 * left them, if their key is free (the take moves them itself, unless a later copy made the
 * key first, or the copy was parked after it looked). Returns how many are left parked. */
int capture_unpark(struct capture_client *c);

/* take_state of a record capture_each_unbound() visits in syn_late */
#define CAPTURE_PARKED_REC (~0ull)

/* Visit every entry still in syn_by_flow: captures no consumer took (never bound to a socket,
 * or bound to one nothing took; rec->cookie says which), then every copy still parked in
 * syn_late (rec->take_state CAPTURE_PARKED_REC), a capture of its own. Changes nothing.
 * @fn returning nonzero stops. Returns the number visited or -errno. */
int capture_each_unbound(struct capture_client *c,
			 int (*fn)(const struct capture_key *, const struct capture_rec *, void *),
			 void *arg);

/*
 * Records the witness lost so far: flow entries the LRU map evicted (what went in less what
 * this client took and what is still there, in syn_by_flow or parked in syn_late; exact when
 * nothing is in flight and this client is the only consumer; iterates the maps) and bound
 * records the ring had no room for. Returns the count, or -errno.
 */
long long capture_evictions(struct capture_client *c);

/* A capture capture_each_unbound() visited (@k, @r), removed from the map it was in into
 * @out, and counted taken. Returns 0 or -errno. */
int capture_take_left(struct capture_client *c, const struct capture_key *k,
		      const struct capture_rec *r, struct capture_rec *out);

/* capture_evictions()'s count from the counters @cnt (summed over CPUs), the entries this
 * client took (@taken) and those in the maps (@in_flow: syn_by_flow and syn_late): the flow
 * keys that came to be (a capture makes one, a recapture takes the place of one, but a
 * recapture_new_key or a take_parked makes one), less those taken and still there, plus the
 * ring's drops. */
long long capture_lost_of(const __u64 *cnt, __u64 taken, long long in_flow);

/* Kernel memory charged to syn_by_flow and the ring (fdinfo memlock; preallocated, so constant
 * for a run), or -1 if unreadable. */
long long capture_map_bytes(struct capture_client *c);

/* The last BPF-side error of program kind @slot (0 tc, 1 sockops); line 0 means none. */
int capture_error(struct capture_client *c, __u32 slot, struct bpf_error *out);

extern const char *const capture_counter_names[CNT_MAX];

#endif
