// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's in-kernel readers of the saved SYN, exercised for the conformance suite's
 * bpf-readers (tests/guest_conformance.c): a sockops program that reads, through the kernel's
 * own helpers, what it would hand any BPF program (bpf_sock_ops_get_syn() in net/core/filter.c)
 *   - at a listener's first SYN-ACK (BPF_SOCK_OPS_HDR_OPT_LEN_CB): the SYN being answered
 *     (syn_skb), TCP_BPF_SYN, _IP, _MAC and the SYN's MSS option (bpf_load_hdr_opt);
 *   - at a retransmitted SYN-ACK: the same, now from the request's saved copy;
 *   - at the child's PASSIVE_ESTABLISHED_CB: the same three regions from the child's copy, and
 *     the whole copy through bpf_getsockopt(TCP_SAVED_SYN).
 * Each place goes to its own map, keyed by the connection's remote port (the socket's, not the
 * copy's: a copy split wrong must not lose its record).
 * The listener asks for the header-option callbacks when it listens (TCP_LISTEN_CB): only
 * listeners made while this is attached, and it is attached only for the suite's check.
 */
#include <linux/bpf.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "copy_readers.h"

#define SOL_TCP 6
#define TCP_SAVED_SYN 28
#define TCP_NEW_SYN_RECV 12
#define TCPHDR_SYNACK 0x12

#define PLACE_MAP(name)                                 \
	struct {                                        \
		__uint(type, BPF_MAP_TYPE_HASH);        \
		__uint(max_entries, 256);               \
		__type(key, __u16);                     \
		__type(value, struct read_place);       \
	} name SEC(".maps")

PLACE_MAP(at_synack);		/* the first SYN-ACK: the live SYN */
PLACE_MAP(at_retransmit);	/* a retransmitted SYN-ACK: the request's copy */
PLACE_MAP(at_established);	/* the child, established: its copy */

/* the reads are made here, then stored whole (a place is larger than the stack) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct read_place);
} scratch SEC(".maps");

static __always_inline void read_regions(struct bpf_sock_ops *skops, struct read_place *p)
{
	p->tcp.len = bpf_getsockopt(skops, SOL_TCP, TCP_BPF_SYN, p->tcp.b, READ_MAX);
	p->ip.len = bpf_getsockopt(skops, SOL_TCP, TCP_BPF_SYN_IP, p->ip.b, READ_MAX);
	p->mac.len = bpf_getsockopt(skops, SOL_TCP, TCP_BPF_SYN_MAC, p->mac.b, READ_MAX);
}

static __always_inline void read_mss(struct bpf_sock_ops *skops, struct read_place *p)
{
	p->mss[0] = 2;	/* kind MSS; a search length 0 for a kind without magic */
	p->mss[1] = 0;
	p->mss[2] = p->mss[3] = 0;
	p->mss_rc = bpf_load_hdr_opt(skops, p->mss, sizeof(p->mss), BPF_LOAD_HDR_OPT_TCP_SYN);
}

static __always_inline void read_whole_copy(struct bpf_sock_ops *skops, struct read_place *p)
{
	__s32 n = p->mac.len > 0 ? p->mac.len : p->ip.len;

	long rc;

	p->saved.len = -1;
	if (n <= 0 || n > READ_MAX)
		return;
	/* the size, masked where the verifier can see it: 1..READ_MAX (256); 0 on success */
	rc = bpf_getsockopt(skops, SOL_TCP, TCP_SAVED_SYN, p->saved.b, ((n - 1) & (READ_MAX - 1)) + 1);
	p->saved.len = rc ? rc : n;
}

/* The connection's remote port (the client's), in host order. */
static __always_inline __u16 remote_port(const struct bpf_sock_ops *skops)
{
	return (__u16)bpf_ntohl(skops->remote_port);
}

/* Store scratch place @p under @port in @map (counting its reads). */
static __always_inline void store(void *map, __u16 port, struct read_place *p)
{
	struct read_place *old;

	old = bpf_map_lookup_elem(map, &port);
	p->hits = old ? old->hits + 1 : 1;
	bpf_map_update_elem(map, &port, p, BPF_ANY);
}

SEC("sockops")
int copy_readers(struct bpf_sock_ops *skops)
{
	__u32 key = 0;
	struct read_place *p = bpf_map_lookup_elem(&scratch, &key);
	__u16 port = remote_port(skops);

	if (!p)
		return 1;
	switch (skops->op) {
	case BPF_SOCK_OPS_TCP_LISTEN_CB:
		bpf_sock_ops_cb_flags_set(skops, skops->bpf_sock_ops_cb_flags |
					  BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG);
		break;
	case BPF_SOCK_OPS_HDR_OPT_LEN_CB:
		if ((skops->skb_tcp_flags & TCPHDR_SYNACK) != TCPHDR_SYNACK)
			break;
		read_regions(skops, p);
		read_mss(skops, p);
		p->saved.len = -1;
		/* the first SYN-ACK of a request answers the live SYN; any later one, its copy */
		store(bpf_map_lookup_elem(&at_synack, &port) ? (void *)&at_retransmit :
							       (void *)&at_synack, port, p);
		break;
	case BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB:
		read_regions(skops, p);
		read_whole_copy(skops, p);
		p->mss_rc = 0;
		store(&at_established, port, p);
		break;
	}
	return 1;
}

char LICENSE[] SEC("license") = "GPL";
