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

#include "skb_flow.bpf.h"

/*
 * The kernel dropped @skb: if it is a copy of a captured SYN (or SYN-ACK), that copy's fate is
 * "dropped, for @reason" (found by its tag among the kept copies; CNT_FATE_UNMATCHED if none
 * matches), and the flow counts one more drop.
 */
static __always_inline void note_drop(struct sk_buff *skb, __u16 reason)
{
	struct capture_key key = {};
	struct capture_rec *rec, *copy;
	struct tcphdr th;
	__u32 tag = 0;

	if (syn_flow_of_skb(skb, &key, &th, &tag))
		return;
	copy = find_copy(&key, tag, CAP_F_DROPPED, &rec);
	if (!rec)
		return;
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
	note_drop(skb, (__u16)reason);
	return 0;
}

/* A kernel whose kfree_skb has no reason (before 5.17: skb and location; the loader chooses,
 * loader/witness_features.c): the drop noted with DROP_REASON_UNKNOWN, which names no reason,
 * so nothing is explained by one. */
SEC("tp_btf/kfree_skb")
int BPF_PROG(syn_drop_no_reason, struct sk_buff *skb, void *location)
{
	note_drop(skb, DROP_REASON_UNKNOWN);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
