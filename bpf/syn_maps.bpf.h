/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Maps shared by syn_capture.bpf.c and syn_sockops.bpf.c. Both objects declare them identically
 * and pin them by name under CAPTURE_PIN_DIR, so the second object to load reuses the first's.
 * The loader sets max_entries of the two LRU maps before load.
 */
#ifndef SYNTWIN_SYN_MAPS_BPF_H
#define SYNTWIN_SYN_MAPS_BPF_H

#include "capture.h"

/* tc ingress → sockops: captures waiting for their socket. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct capture_key);
	__type(value, struct capture_rec);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} syn_by_flow SEC(".maps");

/* sockops → userspace: captures bound to the accepted socket's cookie (getsockopt SO_COOKIE). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct capture_rec);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} syn_by_cookie SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} counters SEC(".maps");

/* Last unexpected helper failure, per program kind (0 = tc, 1 = sockops). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct bpf_error);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} errors SEC(".maps");

static __always_inline void count(__u32 which)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &which);

	if (c)
		(*c)++;
}

static __always_inline void record_error(__u32 slot, __u32 line, long err)
{
	struct bpf_error e = { .line = line, .err = (__s32)err };

	bpf_map_update_elem(&errors, &slot, &e, BPF_ANY);
	count(CNT_BPF_ERRORS);
}

#endif
