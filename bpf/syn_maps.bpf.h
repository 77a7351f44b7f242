/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Maps shared by syn_capture.bpf.c and syn_sockops.bpf.c. Both objects declare them identically
 * and pin them by name under CAPTURE_PIN_DIR, so the second object to load reuses the first's.
 * The loader sets max_entries of syn_by_flow and the size of syn_events before load.
 */
#ifndef SYNTWIN_SYN_MAPS_BPF_H
#define SYNTWIN_SYN_MAPS_BPF_H

#include <linux/ipv6.h>

#include "capture.h"
#include "copy_tag.bpf.h"

/* tc ingress → sockops: captures waiting for their socket. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct capture_key);
	__type(value, struct capture_rec);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} syn_by_flow SEC(".maps");

/* The devices whose tc ingress the witness holds, and the VLAN devices over them, by ifindex:
 * their namespace's number (ns.inum), 0 where devices of two namespaces share the index. The
 * loader's, at attach: a drop counts on a flow only if its skb came in through one of them
 * (syn_drops.bpf.c). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, __u32);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} witness_ingress SEC(".maps");

/* sockops → userspace: each capture as it is bound to a socket (its cookie in the record, the
 * one getsockopt(SO_COOKIE) returns), in the order bound. Userspace reads it in place (mmap),
 * with no system call per record. The loader sets its size (CAPTURE_RING_MIN..MAX). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, CAPTURE_RING_MIN);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} syn_events SEC(".maps");

/* Every earlier copy of a SYN captured again (a retransmission or a duplicate), by flow and
 * arrival number; userspace takes them with the last copy (capture_take_copies()). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, struct copy_key);
	__type(value, struct capture_rec);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} syn_copies SEC(".maps");

/* The consumers' slots for take_flow (struct take_slot): mapped by them, no bpf() per take. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TAKE_SLOTS);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct take_slot);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} syn_take SEC(".maps");

/* Later copies of a SYN that came while the consumer was taking its flow entry (keep_copy()
 * found it TAKE_TAKEN), by flow: each a key of its own, as after bpf()'s take, until moved into
 * syn_by_flow (by take_flow, by park(), or by the consumer: capture_unpark()). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, struct capture_key);
	__type(value, struct capture_rec);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} syn_late SEC(".maps");

/* tc → the memory follower: the packet this CPU is processing (struct cur_copy). */
/* Cookie ACKs validated after their SYN's capture was taken, by flow and ISN (struct
 * cookie_ack): tc notes them, sockops takes them for the passive sockets they make. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct capture_key);
	__type(value, struct cookie_ack);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} cookie_acks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cur_copy);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} cur_copy SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} counters SEC(".maps");

/* Last unexpected helper failure, per program kind (0 = tc, 1 = sockops). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct bpf_error);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} errors SEC(".maps");

static __always_inline void count(__u32 which)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &which);

	if (c)
		(*c)++;
}

static __always_inline void record_error(__u32 slot, __u32 line, long err)
{
	struct bpf_error e = { .line = line, .err = (__s32)err };

	bpf_map_update_elem(&errors, &slot, &e, BPF_ANY);
	count(CNT_BPF_ERRORS);
}

/* Flow @key's entry, NULL if none: one the consumer has claimed (TAKE_TAKEN) is gone as of the
 * claim, as after bpf()'s take (struct take_slot). */
static __always_inline struct capture_rec *flow_entry(const struct capture_key *key)
{
	struct capture_rec *rec = bpf_map_lookup_elem(&syn_by_flow, key);

	if (rec && (*(volatile __u64 *)&rec->take_state & TAKE_TAKEN))
		return NULL;
	return rec;
}

/*
 * Claims @p, found under @key in syn_by_flow, with @claim (enum take_state): its take_state from
 * unclaimed to claimed in one compare-and-swap, and only while it is @key's entry in the same
 * incarnation (struct take_slot in capture.h). Returns 0 (claimed: the element stays @key's until
 * its claimer deletes or replaces it, or the LRU evicts it), the claim another holds
 * (TAKE_REPLACING, TAKE_TAKEN), or -1 if the entry changed under it (look it up again). *@was
 * receives the state claimed from, for the claimer's release.
 */
/* x86-64 (the witness's target) keeps loads in order; a weakly ordered CPU would need the first
 * read of the state acquired. */
static __always_inline int claim_entry(const struct capture_key *key, struct capture_rec *p,
				       __u64 claim, __u64 *was)
{
	__u64 v = *(volatile __u64 *)&p->take_state;

	/* still the key's, and still the incarnation read: an element handed to another entry
	 * meanwhile is not the key's, or carries another incarnation */
	if (bpf_map_lookup_elem(&syn_by_flow, key) != p || *(volatile __u64 *)&p->take_state != v)
		return -1;
	if (v & TAKE_CLAIMS)
		return (int)(v & TAKE_CLAIMS);
	if (__sync_val_compare_and_swap(&p->take_state, v, v | claim) != v)
		return -1;
	*was = v;
	return 0;
}

/* The claim made by claim_entry() on @p given back (from @was | @claim to @was: an element
 * handed to another entry since carries another incarnation, and keeps its state). */
static __always_inline void release_entry(struct capture_rec *p, __u64 was, __u64 claim)
{
	__sync_val_compare_and_swap(&p->take_state, was | claim, was);
}

/*
 * A later copy parked while @key's entry was being taken (park() in syn_capture.bpf.c): moved
 * into syn_by_flow where the key is free, as the entry the take deleted would have been
 * replaced; left parked for the consumer (capture_unpark()) where a newer copy made the key
 * first. By the take behind its delete, and by park() once the take is done. The lookup first:
 * an insert into an LRU map takes a free element, evicting another flow's entry if the map is
 * full, before it finds the key there.
 */
static __always_inline void unpark(const struct capture_key *key)
{
	struct capture_rec *late = bpf_map_lookup_elem(&syn_late, key);

	if (late && !bpf_map_lookup_elem(&syn_by_flow, key) &&
	    !bpf_map_update_elem(&syn_by_flow, key, late, BPF_NOEXIST))
		bpf_map_delete_elem(&syn_late, key);
}

/*
 * The kept copy of flow @key whose incarnation is @inc (copy_incarnation(): which copy, where
 * the tag names every copy of the same bytes in it, and copies can differ outside it: TTL, TOS,
 * IP options, the MAC header): the latest (in syn_by_flow), an earlier one in syn_copies, or one
 * parked in syn_late; NULL if none (@inc 0: no copy named). *@latest receives the latest copy
 * (the flow's record), NULL if the flow has none. Where the flow's entry is gone (taken), a copy
 * parked in syn_late since is the flow's record.
 */
static __always_inline struct capture_rec *find_copy(struct capture_key *key, __u64 inc,
						     struct capture_rec **latest)
{
	struct capture_rec *rec = flow_entry(key), *c;
	struct copy_key ck = {};
	__u32 n;

	if (!rec) {
		/* taken: a later copy parked meanwhile is the flow's record now */
		rec = bpf_map_lookup_elem(&syn_late, key);
		*latest = rec;
		return inc && rec && copy_incarnation(rec) == inc ? rec : NULL;
	}
	*latest = rec;
	if (!inc)
		return NULL;
	if (copy_incarnation(rec) == inc)
		return rec;
	ck.flow = *key;
	for (n = 0; n < CAPTURE_MAX_COPIES - 1; n++) {
		if (n + 1 >= rec->copies)
			break;
		ck.n = n;
		c = bpf_map_lookup_elem(&syn_copies, &ck);
		if (c && copy_incarnation(c) == inc)
			return c;
	}
	/* parked while a newer copy made the key (park()) */
	c = bpf_map_lookup_elem(&syn_late, key);
	return c && copy_incarnation(c) == inc ? c : NULL;
}

#endif
