/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A kernel sk_buff's flow and copy tag, for tracing programs (tp_btf, fentry, and raw_tp with a
 * pointer an fentry program kept): the headers read from skb->head + skb->network_header, CO-RE against the running kernel's BTF (the two fields
 * are declared here with preserve_access_index, no vmlinux.h). The drop-reason program and the
 * memory follower name a copy with it exactly as the tc program does (copy_tag()).
 */
#ifndef SYNTWIN_SKB_FLOW_BPF_H
#define SYNTWIN_SKB_FLOW_BPF_H

#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include <stdbool.h>

#include "syn_maps.bpf.h"

#define AF_INET 2
#define AF_INET6 10

struct sk_buff {
	unsigned char *head;
	__u16 network_header;
} __attribute__((preserve_access_index));

/*
 * The flow key of the SYN (or SYN-ACK) whose IP header starts at @nh, and its copy_tag() in
 * *@tag; 0, or -1 if it is no TCP SYN. Both callers want SYNs only, and they run for every
 * segment TCP receives: a segment without SYN stops before its options are read and hashed.
 */
static __always_inline int syn_flow_of(const unsigned char *nh, struct capture_key *key,
				       struct tcphdr *th, __u32 *tag)
{
	/* One read each for the IP and the TCP header with its options, as long as the longest
	 * (an IPv6 header; 60 bytes of TCP); a read cut short by the end of mapped memory is made
	 * again at the header's own length. Helper calls are most of what this costs. */
	__u8 ipb[sizeof(struct ipv6hdr)] = {}, t[60] = {};
	bool whole = !bpf_probe_read_kernel(ipb, sizeof(ipb), nh);
	const unsigned char *tcp;
	__u8 ver;

	if (!whole && bpf_probe_read_kernel(ipb, sizeof(struct iphdr), nh))
		return -1;
	ver = ipb[0] >> 4;
	if (ver == 4) {
		struct iphdr ip;

		__builtin_memcpy(&ip, ipb, sizeof(ip));
		if (ip.protocol != IPPROTO_TCP || ip.ihl < 5 || (ip.frag_off & bpf_htons(0x3fff)))
			return -1;
		key->family = AF_INET;
		__builtin_memcpy(key->saddr, &ip.saddr, 4);
		__builtin_memcpy(key->daddr, &ip.daddr, 4);
		tcp = nh + ip.ihl * 4;
		*tag = tag_id(TAG_SEED, bpf_ntohs(ip.id));
	} else if (ver == 6) {
		struct ipv6hdr ip6;
		__u8 next;
		int i;

		/* the IPv6 header itself ran past mapped memory */
		if (!whole)
			return -1;
		__builtin_memcpy(&ip6, ipb, sizeof(ip6));
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
	/* the options too (reading past a short header is harmless: the tag stops at doff) */
	if (bpf_probe_read_kernel(t, sizeof(t), tcp)) {
		if (bpf_probe_read_kernel(t, sizeof(*th), tcp))
			return -1;
	}
	__builtin_memcpy(th, t, sizeof(*th));
	if (!th->syn)
		return -1;
	*tag = tag_tcp(*tag, t);
	key->sport = th->source;
	key->dport = th->dest;
	key->seq = bpf_ntohl(th->seq);
	return 0;
}

/* syn_flow_of() for @skb, a kernel pointer. */
static __always_inline int syn_flow_of_skb(struct sk_buff *skb, struct capture_key *key,
					   struct tcphdr *th, __u32 *tag)
{
	unsigned char *head = BPF_CORE_READ(skb, head);
	__u16 nh = BPF_CORE_READ(skb, network_header);

	return syn_flow_of(head + nh, key, th, tag);
}

#endif
