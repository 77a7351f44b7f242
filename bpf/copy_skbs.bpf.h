/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which sk_buff is a copy's own: the address of each copy's sk_buff as tc ingress saw it, kept
 * until that sk_buff's life ends, so that the kfree_skb program counts a drop on a flow only
 * for the copy tc counted, not for a clone of it. A clone carries the copy's headers, tag and
 * skb_iif (a Fast Open SYN's clone queued to a child never accepted and purged with it, a raw
 * socket's clone, a non-mmap packet socket's), and counted as a drop it would stand in for a
 * copy the kernel never dropped (syn_drops.bpf.c says what a judge then explains). The record
 * also names which copy (its incarnation), so that the drop marks that one, and the memory
 * follower the one whose sk_buff TCP saves from: the tag names every copy of the same bytes in
 * it, and copies can differ outside it (TTL, TOS, IP options, a MAC header).
 *
 * A clone is made while its copy lives, so it never has the copy's address. What an address
 * match must not take for the copy is a later sk_buff at the same address (sk_buffs are reused
 * at once, last freed first given): the record of an address ends where the copy's sk_buff
 * does, or where another is seen at that address:
 * - the drop of that copy (the kfree_skb program, which counts it);
 * - tc ingress seeing any packet at the address: a packet that came in (another copy, which
 *   records the address again, or any other);
 * - the kernel's functions that make an sk_buff from another with its headers (skb_clone,
 *   skb_copy, __pskb_copy_fclone, skb_copy_expand, skb_morph: fexit programs, in twin pairs
 *   as the drop program is) returning that address.
 * A copy TCP consumes ends with no event here (a program on consume_skb would run for every
 * packet): its address stays recorded until one of the above sees it again. What is left
 * unseen is an sk_buff at a recorded address, with a witness device's skb_iif and the copy's
 * flow and tag, that passed no tc and came from none of the five: a frame dropped after the
 * receive path set skb_iif and before tc (generic XDP's drop or failed redirect, a failed
 * VLAN untag: a same-flow frame of the same bytes must land on the consumed copy's address),
 * or one built by a function that copies another's header fields itself (skb_segment() of a
 * GSO SYN queued or forwarded, a few drivers). Each needs another copy of the same SYN at the
 * consumed copy's address, and none is on the testbed's path: its XDP point passes every
 * frame, no SYN is GSO, and the copy-on-write behind XDP that is (veth's on a cloned frame,
 * 6.1's skb_copy_header() and 6.12's skb_pp_cow_data(); generic XDP's on 6.12) makes its new
 * sk_buff before tc, which records that one, and consumes the old.
 *
 * An IPv6 listener that keeps the SYN's options (IPV6_RECV* set, or flow label reflection)
 * takes a reference on the copy: its request frees that with kfree_skb (a drop of the copy's
 * own sk_buff, as the rule reads it), and a Fast Open child's clone of it is made while shared.
 * Nothing in syntwin sets either.
 *
 * Where IP goes on with a clone rather than the copy (skb_share_check(): a second handler for
 * the frame's protocol on the device), the copy's own sk_buff is the one another handler
 * holds: syn_drops.bpf.c counts such a clone, and the run fails.
 */
#ifndef SYNTWIN_COPY_SKBS_BPF_H
#define SYNTWIN_COPY_SKBS_BPF_H

#include <stdbool.h>

#include "addr_bits.bpf.h"
#include "syn_maps.bpf.h"

/* The copy whose sk_buff is at an address: its flow and tag, whether the tag names it (not
 * where its TCP header runs past the packet or the capture: tc's tag then covers bytes it did
 * not load, and the drop program's bytes it reads past the header), and which copy it is
 * (copy_incarnation(): the tag is every copy's with the same bytes in it). */
struct copy_skb {
	struct capture_key flow;
	__u32 tag;
	__u32 any_tag;
	__u64 incarnation;
};

/* By sk_buff address. An LRU: records whose copy TCP consumed stay until their address comes
 * back (sk_buffs are reused at once, so most do soon; slab pages given back and taken anew
 * add addresses over a long run); a live copy's record is among the newest, which the LRU
 * (approximate, its evictions uncounted) evicts about last, and an eviction of one would
 * only lose its drop (drop_not_a_copy: the SYN unexplained), never add one. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, struct copy_skb);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} copy_skbs SEC(".maps");

/* Addresses ever recorded (addr_bits.bpf.h, 2^16 bits): an address whose bit is clear has no
 * record, so tc's look at every packet and the clone programs' at every clone return before
 * any hash-map lookup. */
#define COPY_SKB_BITS_LOG2 16
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1u << (COPY_SKB_BITS_LOG2 - 6));
	__type(key, __u32);
	__type(value, __u64);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} copy_skb_seen SEC(".maps");

/*
 * Where an sk_buff is, as a number: its distance from a fixed address, the first word of the
 * pinned copy_skb_seen (one map, so one address, for every program that keeps records). The
 * verifier keeps a pointer a pointer through every move and refuses hashing it, but one
 * pointer less another is a number where pointers may leak (the loader runs as root). No
 * helper call: an array lookup is inlined. 0 where the base is missing (no record matches it).
 */
static __always_inline __u64 addr_of(const void *p)
{
	__u32 zero = 0;
	__u64 *base = bpf_map_lookup_elem(&copy_skb_seen, &zero);

	if (!base)
		return 0;
	return (__u64)(long)p - (__u64)(long)base;
}

/* addr_of() of an sk_buff address held as a number (the memory follower keeps the packets TCP
 * is processing so): one pointer less another is a number, a number less a pointer is refused,
 * so the base goes through @slot, a word of map memory (a pointer stored there reads back as a
 * number; every run stores the same). */
static __always_inline __u64 addr_of_number(__u64 p, __u64 *slot)
{
	__u32 zero = 0;
	__u64 *base = bpf_map_lookup_elem(&copy_skb_seen, &zero);

	if (!base || !p)
		return 0;
	*(volatile __u64 *)slot = (__u64)(long)base;
	return p - *(volatile __u64 *)slot;
}

static __always_inline __u64 *copy_skb_word(__u64 a, __u64 *bit)
{
	__u32 w = addr_bit(a, COPY_SKB_BITS_LOG2, bit);

	return bpf_map_lookup_elem(&copy_skb_seen, &w);
}

/* false only if no copy was ever recorded at @a (a missing word: maybe, to be safe) */
static __always_inline bool copy_skb_maybe(__u64 a)
{
	__u64 bit, *w = copy_skb_word(a, &bit);

	return !w || (*w & bit);
}

/* tc: copy @rec of flow @key has its sk_buff at @a (any earlier record of @a is over: its
 * sk_buff was freed, or this is it, seen again). Returns the update's error. */
static __always_inline long copy_skb_note(__u64 a, const struct capture_key *key,
					  const struct capture_rec *rec)
{
	struct copy_skb c = { .flow = *key, .tag = rec->tag,
			      .any_tag = !!(rec->flags & (CAP_F_PARSE_ERR | CAP_F_TRUNCATED)),
			      .incarnation = copy_incarnation(rec) };
	__u64 bit, *w = copy_skb_word(a, &bit);

	if (w)
		__sync_fetch_and_or(w, bit);
	return bpf_map_update_elem(&copy_skbs, &a, &c, BPF_ANY);
}

/* Another sk_buff is at @a: whatever copy was recorded there is over. The lookup first (no
 * lock), the delete only where there is a record. */
static __always_inline void copy_skb_end(__u64 a)
{
	if (a && copy_skb_maybe(a) && bpf_map_lookup_elem(&copy_skbs, &a))
		bpf_map_delete_elem(&copy_skbs, &a);
}

static __always_inline bool same_key(const struct capture_key *a, const struct capture_key *b)
{
	const __u32 *x = (const __u32 *)a, *y = (const __u32 *)b;
	int i;

	/* whole words: every key is made zeroed, its padding too */
	for (i = 0; i < (int)(sizeof(*a) / 4); i++)
		if (x[i] != y[i])
			return false;
	return true;
}

/* The drop of the sk_buff at @a, a packet of flow @key with tag @tag: the incarnation of the
 * copy tc recorded there if it is that copy (its record ends with it), else 0. */
static __always_inline __u64 copy_skb_dropped(__u64 a, const struct capture_key *key, __u32 tag)
{
	struct copy_skb *c;
	__u64 own = 0;

	if (!a || !copy_skb_maybe(a))
		return 0;
	c = bpf_map_lookup_elem(&copy_skbs, &a);
	if (!c)
		return 0;
	if ((c->any_tag || c->tag == tag) && same_key(&c->flow, key))
		own = c->incarnation;
	bpf_map_delete_elem(&copy_skbs, &a);
	return own;
}

/* The copy of flow @key with tag @tag whose own sk_buff is at @a, still live (the memory
 * follower: the packet TCP is processing): its incarnation, 0 if none is recorded there. */
static __always_inline __u64 copy_skb_at(__u64 a, const struct capture_key *key, __u32 tag)
{
	struct copy_skb *c;

	if (!a || !copy_skb_maybe(a))
		return 0;
	c = bpf_map_lookup_elem(&copy_skbs, &a);
	return c && (c->any_tag || c->tag == tag) && same_key(&c->flow, key) ? c->incarnation : 0;
}

#endif
