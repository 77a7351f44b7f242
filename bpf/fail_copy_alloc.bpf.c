// SPDX-License-Identifier: GPL-2.0
/*
 * The saved copy's allocation made to fail, on purpose, a given number of times: the
 * conformance suite's save-fails (tests/guest_conformance.c, --fault-injection). While armed,
 * the first kmalloc-cache allocation made inside tcp_conn_request() is failed at
 * should_failslab(), the slab allocator's error-injection point: an fmod_ret program, which the
 * kernel attaches only to a function on its error-injection list, so only a kernel built for it
 * takes it (the coverage kernel: kernel-series/coverage.config). For a SYN without IP options
 * the first kmalloc in tcp_conn_request() is the copy (tcp_reqsk_record_syn(), 6.1 and 6.12):
 * the request comes from its own cache, a route from the route cache, and the SYN-ACK is built
 * after the copy. The suite checks the consequence, not this claim: exactly one failure
 * injected, and the connection made with no copy. A kmalloc cache smaller than the smallest
 * copy is never the copy's: an allocation from one is never failed.
 * A second knob, @armed_requests, fails the next allocations from a request cache
 * ("request_sock_TCP", "request_sock_TCPv6"): the conformance suite's migrate-clone-fails arms it
 * while no SYN arrives, so the only requests allocated are the clones a migration makes
 * (inet_reqsk_clone()); the suite checks the consequence (TCPMigrateReqFailure, the count here).
 * Not the kernel's failslab: its filters cannot pick one call site on 6.1 x86_64 (no stack
 * filter there) and its task filter never matches in softirq context, where SYNs arrive.
 */
#include <linux/bpf.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <stdbool.h>

/* the fields read, relocated by libbpf against the running kernel's BTF */
struct kmem_cache {
	unsigned int object_size;
	const char *name;
} __attribute__((preserve_access_index));

/* The smallest copy: a 12-byte header, then IPv4's 20 and TCP's 20 bytes (no MAC header). */
#define COPY_MIN 52

__u32 armed;		/* failures still to inject (set by userspace) */
__u32 injected;		/* failures injected */
__u32 armed_requests;	/* request-cache allocations still to fail (set by userspace) */
__u32 injected_requests;	/* request-cache allocations failed */

/* inside tcp_conn_request() on this CPU (a SYN's softirq: nothing else runs there meanwhile) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} in_conn_request SEC(".maps");

static __always_inline void set_inside(__u32 v)
{
	__u32 key = 0, *p = bpf_map_lookup_elem(&in_conn_request, &key);

	if (p)
		*p = v;
}

SEC("fentry/tcp_conn_request")
int BPF_PROG(conn_request_enter)
{
	set_inside(1);
	return 0;
}

SEC("fexit/tcp_conn_request")
int BPF_PROG(conn_request_exit)
{
	set_inside(0);
	return 0;
}

/* Is cache @s's name prefixed @want (@n bytes)? */
static __always_inline bool cache_named(struct kmem_cache *s, const char *want, int n)
{
	char name[16] = {};

	if (bpf_probe_read_kernel_str(name, sizeof(name), BPF_CORE_READ(s, name)) < 0)
		return false;
	for (int i = 0; i < n && i < (int)sizeof(name); i++)
		if (name[i] != want[i])
			return false;
	return true;
}

/* The next @armed_requests allocations from a request cache, wherever they are made. */
static __always_inline int fail_request(struct kmem_cache *s)
{
	static const char want[13] = "request_sock_";

	if (!cache_named(s, want, sizeof(want)))
		return 0;
	armed_requests--;
	injected_requests++;
	return -12; /* -ENOMEM */
}

SEC("fmod_ret/should_failslab")
int BPF_PROG(fail_copy, struct kmem_cache *s, unsigned int gfp, int ret)
{
	static const char want[8] = "kmalloc-";
	__u32 key = 0, *inside;

	if (ret)
		return ret;
	if (armed_requests)
		return fail_request(s);
	if (!armed)
		return 0;
	inside = bpf_map_lookup_elem(&in_conn_request, &key);
	if (!inside || !*inside || BPF_CORE_READ(s, object_size) < COPY_MIN)
		return 0;
	if (!cache_named(s, want, sizeof(want)))
		return 0;
	armed--;
	injected++;
	return -12; /* -ENOMEM: the allocation fails */
}

char LICENSE[] SEC("license") = "GPL";
