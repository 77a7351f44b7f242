/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bitmaps of addresses ever followed, one bit per hash of an address, never cleared: a clear
 * bit proves an address was never followed, so programs that run for every kfree, allocation,
 * packet or clone in the kernel return before any hash-map lookup (the memory follower's
 * mem_seen, the drop rule's copy_skb_seen). Exact, never a sample: a bit another address shares
 * only costs that address a lookup.
 */
#ifndef SYNTWIN_ADDR_BITS_BPF_H
#define SYNTWIN_ADDR_BITS_BPF_H

#include <linux/types.h>

/* @k's bit in a bitmap of 2^@log2 bits: the bit into *@bit, its word's index returned (a
 * Fibonacci hash: slab addresses differ in few bits). */
static __always_inline __u32 addr_bit(__u64 k, unsigned int log2, __u64 *bit)
{
	__u32 h = (__u32)((k * 0x9E3779B97F4A7C15ull) >> (64 - log2));

	*bit = 1ull << (h & 63);
	return h >> 6;
}

#endif
