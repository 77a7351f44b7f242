// SPDX-License-Identifier: GPL-2.0
/*
 * tp_btf/kfree_skb: when the kernel drops a SYN (or SYN-ACK) the tc program captured, note its
 * drop reason on that capture (the first reason, and how many copies were dropped), so a SYN no
 * socket took is judged by the kernel's own stated reason rather than guessed at. The dropped
 * packet's flow and copy come from its own headers (skb_flow.bpf.h).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "copy_skbs.bpf.h"
#include "skb_flow.bpf.h"

/* The fields the check below reads, CO-RE against the running kernel (no vmlinux.h). */
struct ns_common___drop {
	unsigned int inum;
} __attribute__((preserve_access_index));

struct net___drop {
	struct ns_common___drop ns;
} __attribute__((preserve_access_index));

struct net_device___drop {
	int ifindex;
	struct {
		struct net___drop *net;
	} nd_net;
} __attribute__((preserve_access_index));

struct refcount___drop {
	struct {
		int counter;
	} refs;
};

struct sk_buff___drop {
	struct net_device___drop *dev;
	int skb_iif;
	struct refcount___drop users;
} __attribute__((preserve_access_index));

/*
 * Whether @skb came in through a device whose tc ingress the witness holds (or a VLAN device
 * over one, which receives only what its real device received, whose tc ingress saw the
 * frame with its tag), that is, whether it is a copy the witness counted. The receive path
 * sets skb_iif to the receiving device's index just before tc ingress runs
 * (__netif_receive_skb_core()), and a veth crossing clears it (skb_scrub_packet()): a copy
 * lost on the sender's side (netem's loss on the client's egress, a qdisc) or before the
 * receive path (a full backlog) has none, one received on another device another. TCP clears
 * skb->dev once it has looked the socket up; where the device is still there, its namespace
 * is checked too (ifindexes are per namespace).
 */
static __always_inline bool via_witness_ingress(struct sk_buff *skb)
{
	struct sk_buff___drop *s = (struct sk_buff___drop *)skb;
	__u32 iif = (__u32)BPF_CORE_READ(s, skb_iif), *netns;
	struct net_device___drop *dev;

	netns = iif ? bpf_map_lookup_elem(&witness_ingress, &iif) : NULL;
	if (!netns)
		return false;
	dev = BPF_CORE_READ(s, dev);
	if (!dev || !*netns || (__u32)BPF_CORE_READ(dev, ifindex) != iif)
		return true;
	return BPF_CORE_READ(dev, nd_net.net, ns.inum) == *netns;
}

/*
 * The kernel dropped @skb: if it is a copy of a captured SYN (or SYN-ACK) that came in through
 * the witness's tc ingress, the very sk_buff tc counted (copy_skbs.bpf.h), that copy's fate is
 * "dropped, for @reason" (the copy that sk_buff was, by the incarnation tc recorded with its
 * address: not every copy of the same tag, which can differ outside it; CNT_FATE_UNMATCHED if
 * it is no longer kept), and the flow counts one more drop. A drop of the same headers
 * anywhere else (CNT_DROP_ELSEWHERE), or of another sk_buff with them, a clone of a copy say
 * (CNT_DROP_NOT_COPY), is no copy the witness counted: counted on the flow, it would stand in
 * for a copy that was never dropped.
 *
 * Each program in a twin pair, as the memory follower's: the kernel skips a program's run
 * nested in itself on a CPU (a softirq's drop while a task drops from a socket's backlog), so
 * the twins run one after the other and a nested drop finds one idle. The first run of a drop
 * ends the copy's record (copy_skb_dropped()), so the @twin run acts only where it finds the
 * record still there: the first run skipped. (It does not count drops of other sk_buffs: the
 * first run may have.)
 */
static __always_inline void note_drop(struct sk_buff *skb, __u16 reason, bool twin)
{
	struct capture_key key = {};
	struct capture_rec *rec, *copy;
	struct tcphdr th;
	__u64 own;
	__u32 tag = 0;

	if (syn_flow_of_skb(skb, &key, &th, &tag))
		return;
	/* first, for every drop of a SYN's headers: the record of its address ends here */
	own = copy_skb_dropped(addr_of(skb), &key, tag);
	if (twin && !own)
		return;
	/* the very copy whose sk_buff this is (none where it is not a copy's) */
	copy = find_copy(&key, own, &rec);
	if (!rec)
		return;
	if (!via_witness_ingress(skb)) {
		count(CNT_DROP_ELSEWHERE);
		return;
	}
	if (!own) {
		count(CNT_DROP_NOT_COPY);
		return;
	}
	if (!rec->drops)
		rec->drop_reason = reason;
	rec->drops++;
	count(CNT_SYN_DROPPED);
	if (!copy) {
		count(CNT_FATE_UNMATCHED);
		return;
	}
	copy->flags |= CAP_F_DROPPED;
	copy->fate_reason = reason;
}

SEC("tp_btf/kfree_skb")
int BPF_PROG(syn_drop, struct sk_buff *skb, void *location, int reason)
{
	note_drop(skb, (__u16)reason, false);
	return 0;
}

SEC("tp_btf/kfree_skb")
int BPF_PROG(syn_drop_twin, struct sk_buff *skb, void *location, int reason)
{
	note_drop(skb, (__u16)reason, true);
	return 0;
}

/* A kernel whose kfree_skb has no reason (before 5.17: skb and location; the loader chooses,
 * loader/witness_features.c): the drop noted with DROP_REASON_UNKNOWN, which names no reason,
 * so nothing is explained by one. */
SEC("tp_btf/kfree_skb")
int BPF_PROG(syn_drop_no_reason, struct sk_buff *skb, void *location)
{
	note_drop(skb, DROP_REASON_UNKNOWN, false);
	return 0;
}

SEC("tp_btf/kfree_skb")
int BPF_PROG(syn_drop_no_reason_twin, struct sk_buff *skb, void *location)
{
	note_drop(skb, DROP_REASON_UNKNOWN, true);
	return 0;
}

/*
 * The kernel's functions that make an sk_buff from another, with its headers: the one they
 * return (skb_morph(), the one it rewrites) is at an address whose recorded copy, if any, is
 * over (copy_skbs.bpf.h). The loader attaches them with the drop program, before tc. Each in
 * a twin pair (a clone in a softirq while a task's clone runs its program: netem's duplicate,
 * a retransmission, a Fast Open child's clone); an end is idempotent.
 */
#define MADE_PAIR(fn, made, ...)						\
	SEC("fexit/" #fn)							\
	int BPF_PROG(made_##fn, __VA_ARGS__)					\
	{									\
		copy_skb_end(addr_of(made));					\
		return 0;							\
	}									\
	SEC("fexit/" #fn)							\
	int BPF_PROG(made_##fn##_twin, __VA_ARGS__)				\
	{									\
		copy_skb_end(addr_of(made));					\
		return 0;							\
	}

MADE_PAIR(skb_copy, ret, const struct sk_buff *skb, unsigned int gfp, struct sk_buff *ret)
MADE_PAIR(__pskb_copy_fclone, ret, struct sk_buff *skb, int headroom, unsigned int gfp,
	  bool fclone, struct sk_buff *ret)
MADE_PAIR(skb_copy_expand, ret, const struct sk_buff *skb, int newheadroom, int newtailroom,
	  unsigned int gfp, struct sk_buff *ret)
MADE_PAIR(skb_morph, dst, struct sk_buff *dst, struct sk_buff *src, struct sk_buff *ret)

/*
 * A clone of a copy made while the copy is shared: where a second handler holds the frame
 * (a packet socket bound to the device for one protocol, delivered beside IP), IP's
 * skb_share_check() clones it and goes on with the clone, and the copy's own sk_buff stays
 * with the other handler, which may drop it later (a purge on close) while TCP consumed the
 * clone. Which of the two the stack went on with, nothing here can tell (a packet socket's
 * own clone of a shared frame is the reverse), so such a clone is counted
 * (CNT_COPY_SHARED_CLONE, by each twin run that sees it) and fails the run: its drops prove
 * nothing. A capture by the mmap ring (libpcap's, the wire's) holds the frame only while it
 * copies it, and clones nothing.
 */
static __always_inline void clone_made(struct sk_buff *skb, struct sk_buff *ret)
{
	struct capture_key key = {};
	__u64 a = addr_of(skb);
	struct copy_skb *c;
	struct tcphdr th;
	__u32 tag;

	copy_skb_end(addr_of(ret));
	c = a && copy_skb_maybe(a) ? bpf_map_lookup_elem(&copy_skbs, &a) : NULL;
	/* shared, and the copy (not another packet at a record left stale) */
	if (c && BPF_CORE_READ((struct sk_buff___drop *)skb, users.refs.counter) > 1 &&
	    !syn_flow_of_skb(skb, &key, &th, &tag) && same_key(&c->flow, &key))
		count(CNT_COPY_SHARED_CLONE);
}

SEC("fexit/skb_clone")
int BPF_PROG(made_skb_clone, struct sk_buff *skb, unsigned int gfp, struct sk_buff *ret)
{
	clone_made(skb, ret);
	return 0;
}

SEC("fexit/skb_clone")
int BPF_PROG(made_skb_clone_twin, struct sk_buff *skb, unsigned int gfp, struct sk_buff *ret)
{
	clone_made(skb, ret);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
