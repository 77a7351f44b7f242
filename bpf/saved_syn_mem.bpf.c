// SPDX-License-Identifier: GPL-2.0
/*
 * Follows every saved-SYN copy from kmalloc to kfree (raw_tp/kmalloc, raw_tp/kfree; raw
 * tracepoints, as tp_btf cannot read their void * argument on 6.1): an
 * allocation whose call site lies in one of the saved-SYN functions (ranges userspace resolves
 * from /proc/kallsyms, on stock and patched kernels alike) is kept by address with its requested
 * size until it is freed. Counts what was allocated, freed, and is still live, exactly, with no
 * byte budget and no debug kernel. Loaded by a test process for as long as it runs.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define MEM_MAX_SITES 8

const volatile __u64 site_lo[MEM_MAX_SITES];
const volatile __u64 site_hi[MEM_MAX_SITES];
const volatile __u32 nsites;

__u64 allocs, frees, untracked; /* untracked: live map full, the object not followed */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 262144);
	__type(key, __u64);		/* the object's address */
	__type(value, __u64);		/* bytes requested */
} live SEC(".maps");

SEC("raw_tp/kmalloc")
int BPF_PROG(on_kmalloc, unsigned long call_site, const void *ptr, __u64 bytes_req,
	     __u64 bytes_alloc, unsigned int gfp_flags, int node)
{
	__u64 k = (__u64)ptr, v = bytes_req;
	int i;

	for (i = 0; i < MEM_MAX_SITES; i++)
		if (i < nsites && call_site >= site_lo[i] && call_site < site_hi[i])
			break;
	if (i == MEM_MAX_SITES || !ptr)
		return 0;
	if (bpf_map_update_elem(&live, &k, &v, BPF_ANY))
		__sync_fetch_and_add(&untracked, 1);
	__sync_fetch_and_add(&allocs, 1);
	return 0;
}

SEC("raw_tp/kfree")
int BPF_PROG(on_kfree, unsigned long call_site, const void *ptr)
{
	__u64 k = (__u64)ptr;

	if (ptr && bpf_map_delete_elem(&live, &k) == 0)
		__sync_fetch_and_add(&frees, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
