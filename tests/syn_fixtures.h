/* SPDX-License-Identifier: GPL-2.0 */
/* Hand-built SYNs and a run's receiver, shared by the host unit tests of compare/. */
#ifndef SYNTWIN_SYN_FIXTURES_H
#define SYNTWIN_SYN_FIXTURES_H

#include <stdint.h>
#include <string.h>

#include "classify.h"

/* tcpdump: 198.18.0.1.40000 > 198.18.0.2.7001: Flags [S], seq 1, win 64240,
 *          options [mss 1460,sackOK,TS val 1 ecr 0,nop,wscale 7]; IP options [nop, RR] */
static const uint8_t syn_rr[] = {
	0x48, 0x00, 0x00, 0x48, 0x12, 0x34, 0x40, 0x00, 0x40, 0x06, 0x00, 0x00,
	198, 18, 0, 1, 198, 18, 0, 2,
	0x01, 0x07, 0x0b, 0x04, 0, 0, 0, 0, 0, 0, 0, 0,		/* NOP, RR len 11 ptr 4 */
	0x9c, 0x40, 0x1b, 0x59, 0, 0, 0, 1, 0, 0, 0, 0, 0xa0, 0x02, 0xfa, 0xf0, 0, 0, 0, 0,
	0x02, 0x04, 0x05, 0xb4, 0x04, 0x02, 0x08, 0x0a, 0, 0, 0, 1, 0, 0, 0, 0, 0x01, 0x03,
	0x03, 0x07,
};

/* syn_rr with its Record Route full (pointer 12, past its 11 bytes): the receive path has no
 * slot to write, so the kernel keeps the options as they came. */
static const uint8_t syn_full[] = {
	0x48, 0x00, 0x00, 0x48, 0x12, 0x34, 0x40, 0x00, 0x40, 0x06, 0x00, 0x00,
	198, 18, 0, 1, 198, 18, 0, 2,
	0x01, 0x07, 0x0b, 0x0c, 198, 18, 0, 7, 198, 18, 0, 8,	/* NOP, RR len 11 ptr 12 */
	0x9c, 0x40, 0x1b, 0x59, 0, 0, 0, 1, 0, 0, 0, 0, 0xa0, 0x02, 0xfa, 0xf0, 0, 0, 0, 0,
	0x02, 0x04, 0x05, 0xb4, 0x04, 0x02, 0x08, 0x0a, 0, 0, 0, 1, 0, 0, 0, 0, 0x01, 0x03,
	0x03, 0x07,
};

/* IPv6 SYN with a hop-by-hop (8 bytes) and a destination-options header (8 bytes). */
static const uint8_t syn6[] = {
	0x60, 0, 0, 0, 0, 36, 0, 64,
	0xfd, 0, 0x59, 0x59, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
	0xfd, 0, 0x59, 0x59, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
	60, 0, 1, 4, 0, 0, 0, 0,			/* hop-by-hop -> dstopts, PadN */
	6, 0, 1, 4, 0, 0, 0, 0,				/* dstopts -> TCP, PadN */
	0x9c, 0x40, 0x1b, 0x59, 0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x02, 0xfa, 0xf0, 0, 0, 0, 0,
};

/* What the kernel does to syn_rr on receive: our address into slot 1, pointer 4 -> 8. */
static inline void rewritten_rr(uint8_t *out)
{
	memcpy(out, syn_rr, sizeof(syn_rr));
	memcpy(out + 24, (uint8_t[]){ 198, 18, 0, 2 }, 4); /* RR at 21: ptr byte 23, slot 24..27 */
	out[23] = 8;
}

/* A run from 2026-12-04 10:00:00.000 to 10:00:30.000 UT: 36,000,000..36,030,000 ms of the day. */
#define DAY0_MS 1796378400000ull
static const uint32_t env_bcast[] = { 0xff0012c6u }; /* 198.18.0.255, network order */
static const struct ipv4_env run_env = { .lo_ms = DAY0_MS, .hi_ms = DAY0_MS + 30000,
					 .addrs = env_bcast, .n_addrs = 1 };

#endif
