/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which copy of a SYN a packet is, computed alike by every program that sees one (tc, the
 * kfree_skb program, the memory follower, the capture points) and by userspace
 * (common/copy_tag.h, the wire's capture): the two must agree bit for bit.
 */
#ifndef SYNTWIN_COPY_TAG_BPF_H
#define SYNTWIN_COPY_TAG_BPF_H

#include <linux/ipv6.h>

/*
 * copy_tag(): which copy of a SYN a packet is, as the tc program, the kfree_skb program and the
 * memory follower each compute it from the bytes they see: FNV-1a over the IPv4 ID or IPv6 flow
 * label (@id, 4 bytes) and the TCP header but its checksum (which a CHECKSUM_PARTIAL sender
 * leaves unfinished). Retransmitted copies differ in their ID, flow label or timestamp. Copies
 * with the same tag can still differ outside it (TTL, TOS, IP options, the MAC header): where
 * it matters which of them the kernel dropped or saved, the witness names the copy by its own
 * sk_buff (copy_skbs.bpf.h), not by its tag.
 */
#define TAG_SEED 2166136261u
#define TAG_MUL 16777619u

/* @id: the IPv4 ID, or the IPv6 flow label (20 bits), as a number. */
static __always_inline __u32 tag_id(__u32 h, __u32 id)
{
	h = (h ^ ((id >> 16) & 0xff)) * TAG_MUL;
	h = (h ^ ((id >> 8) & 0xff)) * TAG_MUL;
	return (h ^ (id & 0xff)) * TAG_MUL;
}

static __always_inline __u32 ipv6_flow_label(const struct ipv6hdr *ip6)
{
	return (__u32)(ip6->flow_lbl[0] & 0x0f) << 16 | (__u32)ip6->flow_lbl[1] << 8 |
	       ip6->flow_lbl[2];
}

/* The TCP header part of the tag, from a 60-byte buffer holding the header at its start. */
static __always_inline __u32 tag_tcp(__u32 h, const __u8 *tcp)
{
	__u32 len = (tcp[12] >> 4) * 4;
	int i;

	/* up to doff, around the checksum (bytes 16 and 17): two loops, no test of each byte for
	 * the checksum (this runs for every SYN the programs see) */
	for (i = 0; i < 16 && i < len; i++)
		h = (h ^ tcp[i]) * TAG_MUL;
	for (i = 18; i < 60 && i < len; i++)
		h = (h ^ tcp[i]) * TAG_MUL;
	return h;
}

#endif
