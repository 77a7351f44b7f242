/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal pcapng writer: one section, two interfaces (Ethernet for copies that keep their MAC
 * header, raw IP for the rest) and Enhanced Packet Blocks, each with a comment (opt_comment)
 * that Wireshark and `tshark -T fields -e frame.comment` show.
 *
 * Written here, not taken from a library: this runs in the guest as records are judged, and
 * Debian's pcapng writers are Wireshark's (libwiretap, editcap: the whole Wireshark library set
 * in the initramfs, and a tool run per frame or a command line per comment); libpcap 1.10
 * writes pcapng without comments. tests/run_checks.sh (corrupt) reads the file back with tshark.
 */
#ifndef SYNTWIN_PCAPNG_H
#define SYNTWIN_PCAPNG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum { PCAPNG_IF_ETHERNET, PCAPNG_IF_RAW };

/* Start a file at @f: the section header and both interface descriptions. 0 or -1 (errno). */
int pcapng_start(FILE *f);

/* One frame on interface @iface, stamped @sec seconds + @usec, with @comment. 0 or -1. */
int pcapng_frame(FILE *f, int iface, uint64_t sec, uint32_t usec, const uint8_t *p, size_t len,
		 const char *comment);

#endif
