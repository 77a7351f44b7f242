/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SYN shapes from data files (gen/profiles/NAME.syn): one SYN per line, in the spirit of
 * packetdrill's one-line packets. Format (docs/traffic.md, "Crafted SYNs"):
 *
 *   # comment
 *   SHAPE family=4|6 [ttl=N] [df=0|1] [ipid=N] [tos=N] [flow=N] [win=N]
 *         [flags=S[E][C][U][P][F][R]]
 *         [res=N] [urg=N] [tcpopt=ITEM,ITEM,...] [ipopt=HEX] [ext=hop:HEX|dst:HEX,...]
 *         [bad=csum|doff-short|doff-long] [drop=RULE [src=ADDR] [dst=ADDR]] [rexmit=N]
 *
 * tcpopt items: mss:N  ws:N  sok  ts:VAL:ECR  nop  eol  hex:BYTES (raw option bytes, e.g. an
 * unknown kind or padding after EOL). The list is the exact option byte sequence and must be a
 * multiple of 4 bytes, at most 40. ipopt is raw IPv4 option bytes (multiple of 4, at most 40).
 * ext is the IPv6 extension-header chain in order; each HEX is the header's bytes after next
 * header and length, so 2 + len(HEX) must be a multiple of 8. bad= makes a SYN the kernel must
 * drop: a wrong TCP checksum, a data offset below 5, or one beyond the packet. drop=RULE makes
 * the SYN as written (e.g. flags=SF) and declares it must-drop by that rule of the listener
 * path's drop table (docs/verdicts.md); flags F and R exist for those, and src=/dst= (an
 * address of the shape's family) for the rules an address decides. rexmit=N (1..3)
 * sends N more copies of the SYN right behind it, as retransmissions (IPv4 ID or IPv6 flow label
 * plus 1, 2, ...): the kernel saves the first, the witness holds the last.
 * Numbers are decimal, or hexadecimal with 0x (never octal: 010 is ten). A shape's headers may
 * total at most SHAPE_MAX_HEADERS bytes.
 */
#ifndef SYNTWIN_PROFILE_H
#define SYNTWIN_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#define SHAPE_MAX_EXT 4
/* The most header bytes a shape may make (IP header with options or extension headers, then
 * the TCP header with options): what the crafter's buffer (CRAFT_MAX) and the witness's capture
 * (CAPTURE_MAX, with 14 more for a tap frame's MAC header) both hold. */
#define SHAPE_MAX_HEADERS 242

/* How a must-drop shape is made: its bytes spoiled (BAD_CSUM, BAD_DOFF_*), or made as written
 * with a shape one of the listener path's drop rules rejects (BAD_RULE, drop=RULE). */
enum shape_bad { BAD_NONE, BAD_CSUM, BAD_DOFF_SHORT, BAD_DOFF_LONG, BAD_RULE };

struct syn_shape {
	char name[48];		/* "<file stem>/<shape>" */
	int family;		/* 4 or 6 */
	int ttl, df, tos;
	uint16_t ipid, win, urg;
	uint32_t flow;
	uint8_t flags;		/* TCP flags byte: SYN plus ECE/CWR/URG/PSH as asked */
	uint8_t res;		/* the 4 reserved bits (incl. AE/NS) of the data-offset byte */
	uint8_t tcpopt[40], ipopt[40];
	size_t tcpopt_len, ipopt_len;
	int next_ext;
	struct {
		uint8_t type;	/* 0 hop-by-hop, 60 destination options, 43 routing */
		uint8_t body[64];
		size_t len;	/* bytes after next-header and length */
	} ext[SHAPE_MAX_EXT];
	int bad;		/* enum shape_bad */
	char drop_rule[32];	/* BAD_RULE: the rule the judge must find (judge/unbound.c) */
	/* since=MAJOR.MINOR: the rule holds from that kernel version on; on an older tree the
	 * shape must connect (walk_load_profiles()); 0.0: on every tree */
	unsigned int since_major, since_minor;
	/* src=, dst=: the SYN's own source and destination instead of the device's peer and
	 * address (network order; [0] source, [1] destination; addr_family 0 where not given) */
	uint8_t addr[2][16];
	uint8_t addr_family[2];
	int rexmit;		/* copies sent again behind the SYN (retransmissions) */
};

/*
 * Parses one line (no newline) into @s; @stem names the file. Returns 1 for a shape, 0 for a
 * blank or comment line, -1 with @err set (the caller adds file:line).
 */
/* IP (with options or extension headers) + TCP (with options) bytes that shape @s makes. */
size_t shape_header_bytes(const struct syn_shape *s);

int profile_parse_line(const char *line, const char *stem, struct syn_shape *s, char *err,
		       size_t errlen);

/*
 * Appends every shape of file @path to @out (capacity @cap, count in *@n). Returns 0, or -1 with
 * "path:line: what" in @err.
 */
int profile_load(const char *path, struct syn_shape *out, size_t cap, size_t *n, char *err,
		 size_t errlen);

#endif
