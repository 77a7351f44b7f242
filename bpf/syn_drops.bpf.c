// SPDX-License-Identifier: GPL-2.0
/*
 * tp_btf/kfree_skb: when the kernel drops a SYN (or SYN-ACK) the tc program captured, note its
 * drop reason on that capture (the first reason, and how many copies were dropped), so a SYN no
 * socket took is judged by the kernel's own stated reason rather than guessed at. Reads the
 * dropped packet's headers from skb->head + skb->network_header: CO-RE against the running
 * kernel's BTF (the two fields are declared here with preserve_access_index, no vmlinux.h).
 */
#include <linux/bpf.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "syn_maps.bpf.h"

#define AF_INET 2
#define AF_INET6 10

struct sk_buff {
	unsigned char *head;
	__u16 network_header;
} __attribute__((preserve_access_index));

/* The flow key of the TCP segment whose IP header starts at @nh, and its copy_tag() in *@tag;
 * 0, or -1 if it is none. */
static __always_inline int flow_of(const unsigned char *nh, struct capture_key *key,
				   struct tcphdr *th, __u32 *tag)
{
	__u8 t[60] = {};
	const unsigned char *tcp;
	__u8 ver;

	if (bpf_probe_read_kernel(&ver, 1, nh))
		return -1;
	if ((ver >> 4) == 4) {
		struct iphdr ip;

		if (bpf_probe_read_kernel(&ip, sizeof(ip), nh) || ip.protocol != IPPROTO_TCP ||
		    ip.ihl < 5 || (ip.frag_off & bpf_htons(0x3fff)))
			return -1;
		key->family = AF_INET;
		__builtin_memcpy(key->saddr, &ip.saddr, 4);
		__builtin_memcpy(key->daddr, &ip.daddr, 4);
		tcp = nh + ip.ihl * 4;
		*tag = tag_id(TAG_SEED, bpf_ntohs(ip.id));
	} else if ((ver >> 4) == 6) {
		struct ipv6hdr ip6;
		__u8 next;
		int i;

		if (bpf_probe_read_kernel(&ip6, sizeof(ip6), nh))
			return -1;
		key->family = AF_INET6;
		__builtin_memcpy(key->saddr, &ip6.saddr, 16);
		__builtin_memcpy(key->daddr, &ip6.daddr, 16);
		next = ip6.nexthdr;
		tcp = nh + sizeof(ip6);
		*tag = tag_id(TAG_SEED, ipv6_flow_label(&ip6));
		for (i = 0; i < CAPTURE_MAX_EXTHDRS && next != IPPROTO_TCP; i++) {
			__u8 h[2];

			if ((next != IPPROTO_HOPOPTS && next != IPPROTO_ROUTING &&
			     next != IPPROTO_DSTOPTS && next != IPPROTO_AH) ||
			    bpf_probe_read_kernel(h, 2, tcp))
				return -1;
			tcp += next == IPPROTO_AH ? (h[1] + 2) * 4 : (h[1] + 1) * 8;
			next = h[0];
		}
		if (next != IPPROTO_TCP)
			return -1;
	} else {
		return -1;
	}
	if (bpf_probe_read_kernel(th, sizeof(*th), tcp))
		return -1;
	/* the options too (reading past a short header is harmless: the tag stops at doff) */
	if (bpf_probe_read_kernel(t, sizeof(t), tcp))
		__builtin_memcpy(t, th, sizeof(*th));
	*tag = tag_tcp(*tag, t);
	key->sport = th->source;
	key->dport = th->dest;
	key->seq = bpf_ntohl(th->seq);
	return 0;
}

/*
 * The kernel dropped @skb: if it is a copy of a captured SYN (or SYN-ACK), that copy's fate is
 * "dropped, for @reason" (found by its tag among the kept copies; CNT_FATE_UNMATCHED if none
 * matches), and the flow counts one more drop.
 */
SEC("tp_btf/kfree_skb")
int BPF_PROG(syn_drop, struct sk_buff *skb, void *location, int reason)
{
	struct capture_key key = {};
	struct capture_rec *rec, *copy;
	struct tcphdr th;
	unsigned char *head = BPF_CORE_READ(skb, head);
	__u16 nh = BPF_CORE_READ(skb, network_header);
	__u32 tag = 0;

	if (flow_of(head + nh, &key, &th, &tag) || !th.syn)
		return 0;
	copy = find_copy(&key, tag, CAP_F_DROPPED, &rec);
	if (!rec)
		return 0;
	if (!rec->drops)
		rec->drop_reason = (__u16)reason;
	rec->drops++;
	count(CNT_SYN_DROPPED);
	if (!copy) {
		count(CNT_FATE_UNMATCHED);
		return 0;
	}
	copy->flags |= CAP_F_DROPPED;
	copy->fate_reason = (__u16)reason;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
