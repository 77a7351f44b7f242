/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's in-kernel readers of a socket's saved copy (bpf_getsockopt(TCP_BPF_SYN, _IP,
 * _MAC) when sockops bound the socket) against the userspace read (TCP_SAVED_SYN) and the
 * witness's own split of the packet (its network and TCP header lengths). The readers split the
 * copy by the lengths the kernel recorded with it; the userspace read hands out the whole copy,
 * so a wrong split shows here and nowhere else. A read of the kernel's copy: it explains
 * nothing, and a difference is its own verdict, reader-differs.
 */
#ifndef SYNTWIN_READERS_H
#define SYNTWIN_READERS_H

#include <linux/types.h>
#include <stddef.h>
#include <stdint.h>

#include "copy_readers.h"
#include "verdict.h"

struct readers_input {
	const struct syn_reads *reads;	/* what the readers returned; NULL: nothing was bound */
	const uint8_t *native;		/* the userspace read, NULL when it returned nothing */
	size_t native_len;
	int mode;			/* TCP_SAVE_SYN: 2 keeps the MAC header */
	size_t net_len, tcp_len;	/* the witness's split of the copy that made the socket */
};

/* Fills @res (only) on a difference and returns 1; returns 0 when every region is as the
 * userspace read and the witness's split say (or nothing was read). */
int judge_readers(const struct readers_input *in, struct compare_result *res);

#endif
