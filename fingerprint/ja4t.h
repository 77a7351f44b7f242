/* SPDX-License-Identifier: GPL-2.0 */
/*
 * FoxIO's JA4T (of a SYN) and JA4TS (of a SYN-ACK, without the retransmission section: a record
 * is one packet): WindowSize_TCPOptionKinds_MSS_WindowScale, e.g. 64240_2-1-3-1-1-4_1460_8.
 *
 * The reference implementation reads the fields Wireshark dissects (tcp.option_kind,
 * tcp.options.mss_val, tcp.options.wscale.shift), so the edge cases follow Wireshark 4.0's
 * option walk, checked with tshark on crafted headers (tests/test_fingerprint.c has them):
 * - kinds 0 and 1 are one byte; any other kind is listed only when its length byte is there,
 *   is 2 or more and the option fits in the header; otherwise the walk stops before it;
 * - after an end-of-list, each following zero byte is listed as another 0 and the first
 *   non-zero byte stops the walk (macOS's "...-4-0-0");
 * - the MSS and window scale are the last such option of the right length (4 and 3);
 * - no options: "00"; no MSS: "00", an MSS below 10 in two digits ("05"); a window scale of
 *   0 or none: "00".
 */
#ifndef SYNTWIN_JA4T_H
#define SYNTWIN_JA4T_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* window (5) + 40 kinds of up to 3 digits and a dash + mss (5) + scale (3) + separators */
#define JA4T_MAX 192

/*
 * The JA4T of the packet at @ip (@len bytes from the IPv4 or IPv6 header on; IPv6 extension
 * headers are stepped over) into @out. Returns false, with @out "", when no whole TCP header
 * is found.
 */
bool ja4t_of(const uint8_t *ip, size_t len, char *out, size_t n);

#endif
