/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kernel's in-kernel readers of a saved SYN return to BPF (bpf/copy_readers.bpf.c),
 * shared with the conformance suite that checks them (tests/guest_conformance.c), and the region
 * every bound record carries (struct syn_reads, bpf/capture.h): the three
 * regions bpf_getsockopt(TCP_BPF_SYN, TCP_BPF_SYN_IP, TCP_BPF_SYN_MAC) hands out, the whole
 * copy through bpf_getsockopt(TCP_SAVED_SYN), and the SYN's MSS option through
 * bpf_load_hdr_opt(BPF_LOAD_HDR_OPT_TCP_SYN). Each read is a read of the kernel's own copy
 * (or of the SYN it is made from), never a witness.
 */
#ifndef SYNTWIN_COPY_READERS_H
#define SYNTWIN_COPY_READERS_H

#define READ_MAX 256	/* bytes a region holds: MAC + IPv6 + extension headers + TCP */

struct read_region {
	__s32 len;	/* the helper's return: the region's length, or -errno */
	__u8 b[READ_MAX];
};

/*
 * What the kernel's in-kernel readers hand a BPF program of a socket's saved copy at its
 * ESTABLISHED callback: bpf_getsockopt(TCP_BPF_SYN, TCP_BPF_SYN_IP, TCP_BPF_SYN_MAC), the TCP
 * header, network + TCP, and MAC + network + TCP (bpf_sock_ops_get_syn() splits the copy by the
 * lengths it recorded). The witness's sockops reads them on every socket it binds (struct
 * bound_rec, capture.h). A read of the kernel's copy, never a witness: it explains nothing.
 */
struct syn_reads {
	struct read_region tcp, ip, mac;
};

/* One place the readers ran at, for one connection (keyed by the client's port). */
struct read_place {
	struct read_region tcp, ip, mac;	/* TCP_BPF_SYN, _IP, _MAC */
	struct read_region saved;		/* TCP_SAVED_SYN of the length TCP_BPF_SYN_MAC or _IP
						 * gave (established only; len: that, or -errno) */
	__s32 mss_rc;				/* bpf_load_hdr_opt's return (SYN-ACKs only) */
	__u8 mss[4];				/* the MSS option it found */
	__u32 hits;				/* times this place was read */
};

#endif
