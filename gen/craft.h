/* SPDX-License-Identifier: GPL-2.0 */
/* Byte-for-byte IPv4/IPv6 TCP segments from a SYN shape (profile.h), for the tun peer. */
#ifndef SYNTWIN_CRAFT_H
#define SYNTWIN_CRAFT_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

struct flow {
	int family;			/* 4 or 6 */
	uint8_t src[16], dst[16];	/* network order; IPv4 in the first 4 bytes */
	uint16_t sport, dport;		/* host order */
};

#define CRAFT_MAX 256

/*
 * The SYN of @shape on @f with sequence number @isn into @out (CRAFT_MAX bytes): every field as
 * the shape says, checksums right unless the shape is bad=csum, the data offset wrong if
 * bad=doff-*. Returns the packet length.
 */
size_t craft_syn(const struct syn_shape *shape, const struct flow *f, uint32_t isn,
		 uint8_t *out);

/* craft_syn() with acknowledgment number @ack: a SYN-ACK if the shape's flags say SYN|ACK. */
size_t craft_synack(const struct syn_shape *shape, const struct flow *f, uint32_t isn, uint32_t ack,
		    uint8_t *out);

/*
 * A segment without options but a timestamp echo if @tsecr is nonzero: @flags (e.g. ACK,
 * FIN|ACK), @seq, @ack, window 502, TTL and TOS of @shape. Returns the packet length.
 */
size_t craft_segment(const struct syn_shape *shape, const struct flow *f, uint8_t flags,
		     uint32_t seq, uint32_t ack, uint32_t tsval, uint32_t tsecr, uint8_t *out);

/* Checks the IP header checksum (IPv4) and the TCP checksum of packet @p; 0 if both right. */
int craft_verify(const uint8_t *p, size_t len);

#endif
