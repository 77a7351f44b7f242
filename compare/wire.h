/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The wire as a capture point (--capture-points wire): an AF_PACKET capture of what arrives on
 * the server's devices, through libpcap as tcpdump takes it (a VLAN tag the driver took into
 * metadata is put back into the frame, as tcpdump shows it). Every TCP SYN without ACK is
 * written whole to the results (wire.pcap for Ethernet devices, wire-<LINKTYPE>.pcap for
 * others) and its headers kept by flow and copy tag until the comparator takes them.
 */
#ifndef SYNTWIN_WIRE_H
#define SYNTWIN_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "judge_point.h"

/* Bytes kept of each frame: a SYN with its data (Fast Open) on these devices, whose MTU is
 * 1500, whole. The ring's slots are this long (TPACKET_V2), so it holds about
 * WIRE_RING_BYTES / WIRE_SNAPLEN frames between two reads. */
#define WIRE_SNAPLEN 2048
#define WIRE_RING_BYTES (64 << 20)

struct wire;

/* The capture of @devs (comma-separated, in this process's netns), its SYNs written to @dir.
 * NULL on failure (printed). */
struct wire *wire_open(const char *devs, const char *dir);
/* Read what the devices received since the last call. Returns 0, or -1 (printed). */
int wire_drain(struct wire *w);
/* The copy of @flow (seq: the ISN) with copy tag @tag, taken out of the table into @c, and its
 * whole frame as captured (WIRE_SNAPLEN bytes at most) into @frame, its length in *@frame_len.
 * Returns 0, or -1 if the wire has none. */
int wire_take(struct wire *w, const struct capture_key *flow, uint32_t tag,
	      struct point_copy *c, uint8_t *frame, size_t *frame_len);
/* SYNs seen, stored under a new key, and frames the capture dropped (the kernel's count: a
 * missing copy then proves nothing). */
void wire_counts(struct wire *w, uint64_t *seen, uint64_t *stored, uint64_t *dropped);
/* Close the capture and its files. Returns 0, or -1 if a file could not be written. */
int wire_close(struct wire *w);

#endif
