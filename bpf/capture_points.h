/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The capture points beside tc ingress (--capture-points, docs/capture-points.md): each an
 * independent copy of every SYN taken at another place on its way to TCP, by flow and copy tag,
 * compared with the kernel's saved copy by the same byte rules as tc's (judge/judge_point.h). Shared
 * by bpf/capture_points.bpf.c, the loader and the comparator.
 */
#ifndef SYNTWIN_CAPTURE_POINTS_H
#define SYNTWIN_CAPTURE_POINTS_H

#include <linux/types.h>

#include "capture.h"

/* The points, in the order of a SYN's way in. tc is the witness itself (bpf/syn_capture.bpf.c);
 * the wire is an AF_PACKET capture in the server's netns (compare/wire.c), no BPF at all. */
enum capture_point {
	PT_XDP,		/* XDP on the server's devices: the frame as the driver hands it over */
	PT_TC,		/* tc clsact ingress (the witness) */
	PT_TCP,		/* fentry on tcp_rcv_state_process for a listener: the skb as TCP has it,
			 * after IP receive processing, just before the copy is saved */
	PT_WIRE,	/* AF_PACKET (libpcap, as tcpdump captures) on the server's devices */
	PT_MAX
};

#define CAPTURE_POINT_NAMES "xdp", "tc", "tcp", "wire"

/* A point's copy of one SYN: by point, flow (seq = the ISN) and copy tag (copy_tag.bpf.h). */
struct point_key {
	__u8 point;		/* enum capture_point */
	__u8 pad[3];
	__u32 tag;
	struct capture_key flow;
};

enum point_flags {
	PT_F_TRUNCATED = 1 << 0,	/* headers longer than CAPTURE_MAX: data cut */
	PT_F_NONLINEAR = 1 << 1,	/* tcp: the headers were not all in the skb's linear data */
};

struct point_rec {
	__u64 ts_ns;		/* bpf_ktime_get_ns() when the point saw it (the last copy) */
	__u32 ifindex;
	__u16 mac_len;		/* bytes of link-layer header in data */
	__u16 cap_len;		/* bytes valid in data */
	__u16 flags;		/* enum point_flags */
	__u16 seen;		/* copies with this key the point saw (saturates) */
	__u32 pad;
	__u8 data[CAPTURE_MAX];	/* link-layer header (if any) .. end of the TCP header */
};

enum point_counter {
	PC_SYN_SEEN,		/* SYNs (no ACK) the point's program saw */
	PC_STORED,		/* ... stored under a new key (more than the map holds: evictions) */
	PC_INSERT_FAIL,		/* ... a map update failed */
	PC_NOT_PARSED,		/* ... headers the point could not place (not counted as seen) */
	PC_MAX
};

/* point_counts is an array of PT_MAX * PC_MAX counters, point-major. */
#define POINT_COUNTER_NAMES "syn_seen", "stored", "insert_fail", "not_parsed"

#endif
