/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the server's generators may ask the witness while they run: whether the kernel dropped
 * a SYN they wait on (tun_peer.h, peer_drop_probe), so that no one waits for a SYN-ACK that
 * cannot come. The answer comes from the witness's own capture (its kfree_skb program's drop
 * count), never from the kernel under test's counters.
 */
#ifndef SYNTWIN_WITNESS_PROBE_H
#define SYNTWIN_WITNESS_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#include "craft.h"

/* @cc: the server's struct capture_client. True when the witness holds a capture of SYN (@f,
 * ISN @isn) and every copy of it it saw was dropped by the kernel. */
bool witness_dropped_every_copy(void *cc, const struct flow *f, uint32_t isn);

#endif
