/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The copy tag of a SYN (bpf/copy_tag.bpf.h: FNV-1a over the IPv4 ID or IPv6 flow label and the
 * TCP header but its checksum), computed in userspace from a copy's bytes: the wire's capture
 * (compare/wire.c) files its copies under the tag the BPF programs give the same packet.
 */
#ifndef SYNTWIN_COPY_TAG_H
#define SYNTWIN_COPY_TAG_H

#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

#include "capture.h"

/*
 * The flow (seq = the ISN) and tag of the TCP SYN in @p (@len bytes, @mac_len of link layer,
 * plus 4 for each in-band 802.1Q/802.1ad tag, at most two, after an Ethernet header), and the length of its
 * headers (link layer .. end of TCP) in *@hdr_len. Returns 0, or -1 if @p is no whole
 * unfragmented TCP SYN without ACK.
 */
int syn_copy_tag(const uint8_t *p, size_t len, size_t *mac_len, struct capture_key *flow,
		 uint32_t *tag, size_t *hdr_len);

#endif
