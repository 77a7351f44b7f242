// SPDX-License-Identifier: GPL-2.0
/*
 * Test only (tests/guest_take.c): the kmalloc calls one thread makes that may sleep, and the
 * kfree calls of what they returned. Sleeping allocations are never an interrupt's, and frees
 * are counted only of addresses counted here, so an interrupt that runs on the thread's CPU
 * while it is counted adds nothing: the counts are the thread's own.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <stdbool.h>

/* include/linux/gfp_types.h (6.12), gfp.h (6.1): the same bit in both */
#define GFP_DIRECT_RECLAIM 0x400u

__u32 tid;			/* the thread counted; 0 none */
__u64 kmallocs, kfrees;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, __u8);
} counted_ptrs SEC(".maps");

static __always_inline bool this_thread(void)
{
	return tid && (__u32)bpf_get_current_pid_tgid() == tid;
}

SEC("raw_tp/kmalloc")
int BPF_PROG(count_kmalloc, unsigned long call_site, const void *ptr, __u64 bytes_req,
	     __u64 bytes_alloc, unsigned int gfp_flags, int node)
{
	__u64 k = (__u64)ptr;
	__u8 one = 1;

	if (!ptr || !this_thread() || !(gfp_flags & GFP_DIRECT_RECLAIM))
		return 0;
	__sync_fetch_and_add(&kmallocs, 1);
	bpf_map_update_elem(&counted_ptrs, &k, &one, BPF_ANY);
	return 0;
}

SEC("raw_tp/kfree")
int BPF_PROG(count_kfree, unsigned long call_site, const void *ptr)
{
	__u64 k = (__u64)ptr;

	if (ptr && !bpf_map_delete_elem(&counted_ptrs, &k))
		__sync_fetch_and_add(&kfrees, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
