/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one flow type of a run: struct capture_key (bpf/capture.h), as the witness keys a
 * capture: family, the sender's and the receiver's address and port (network order) and, where
 * known, the sender's ISN. Generators, labels, the judge's input and the records all carry it
 * in binary; only the report writes it as text.
 */
#ifndef SYNTWIN_FLOW_H
#define SYNTWIN_FLOW_H

#include <stdbool.h>
#include <linux/types.h>
#include <stdint.h>

#include "capture.h"

/* @k from @family (AF_INET or AF_INET6), the sender's address @src (4 or 16 bytes) and port,
 * the receiver's, and the ISN @isn (0: not known). Ports in host order. @src and @dst may
 * point into @k. */
void flow_set(struct capture_key *k, int family, const void *src, uint16_t sport,
	      const void *dst, uint16_t dport, uint32_t isn);
/* The flow of connected socket @fd: from its peer to itself (@peer_sends, a passive child) or
 * from itself to its peer. Addresses the socket cannot name (its peer gone) stay zero. */
void flow_of_socket(int fd, bool peer_sends, struct capture_key *k);
/* Do @a and @b name the same flow (the ISN aside)? */
bool flow_same(const struct capture_key *a, const struct capture_key *b);
/* The sender's and receiver's addresses as text (46 bytes each; "" for an unknown family). */
void flow_text(const struct capture_key *k, char *saddr, char *daddr);

#endif
