/* SPDX-License-Identifier: GPL-2.0 */
/*
 * p0f v3's TCP fingerprint of one SYN or SYN-ACK: the raw signature
 * (ver:ittl:olen:mss:wsize,scale:olayout:quirks:pclass) and the label the shipped database
 * (/etc/p0f/p0f.fp) gives it, as Debian's p0f 3.09b computes them.
 *
 * Why not run p0f itself: a record's two copies are fingerprinted in the guest as they are
 * judged, and p0f only reads interfaces and pcap files. tests/p0f_cross_check.sh runs the real
 * p0f on the witness's SYNs and requires its raw_sig and label to equal these, record for
 * record. p0f's parse is reproduced with its oddities, because the point is what p0f sees:
 * - the "ack+" quirk tests RD32(ack) & !(flags & RST), a bitwise AND that sees only the lowest
 *   bit of the first ACK byte (on the little-endian hosts p0f runs on);
 * - a database "ittl-" field skips one more character than it spans, so the option length
 *   after it is read as 0 (every shipped "-" signature has 0 there);
 * - IPv6 extension headers are not followed (p0f drops such packets);
 * - a SYN-ACK's window is not tried as a multiple of the SYN's MSS: the record holds the
 *   SYN-ACK alone (p0f does that when it saw the SYN of the same flow).
 * A copy that holds headers only (the kernel's saved SYN) is taken as the packet its IP header
 * describes: p0f reads no payload byte of a SYN, only whether there is one.
 */
#ifndef SYNTWIN_P0F_H
#define SYNTWIN_P0F_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define P0F_MAX_OPT 24	/* MAX_TCP_OPT */
#define P0F_SIG_MAX 192
#define P0F_LABEL_MAX 128

/* What p0f takes from one packet (its struct packet_data, as far as the TCP module reads it). */
struct p0f_pkt {
	int ver;		/* 4 or 6 */
	uint8_t ttl, tcp_type;		/* tcp_type: flags & (SYN|ACK|FIN|RST) */
	uint32_t ip_opt_len, quirks, tot_hdr, pay_len, ts1;
	uint8_t opt_layout[P0F_MAX_OPT];
	uint32_t opt_cnt, opt_eol_pad;
	uint16_t mss, win;
	uint8_t wscale;
};

/* A database signature (p0f's struct tcp_sig_record with its struct tcp_sig). */
struct p0f_sig {
	bool generic, bad_ttl;
	int class_id;		/* -1: a userland tool ("!") */
	uint32_t name_id;
	const char *flavor;	/* NULL: none */
	int ver;		/* 4, 6 or -1 (either) */
	int ttl, olen, mss, win_type, win, wscale, pay_class; /* -1: wildcard */
	uint32_t quirks, opt_eol_pad, opt_cnt;
	uint8_t opt_layout[P0F_MAX_OPT];
};

struct p0f_db {
	struct p0f_sig *sigs[2];	/* [1] = [tcp:request] (SYN), [0] = [tcp:response] */
	size_t nsigs[2];
	char **names;			/* OS and tool names, case-insensitively unique */
	size_t nnames;
};

/*
 * Load the [tcp:request] and [tcp:response] signatures of a p0f.fp file. Returns 0, or -1
 * with a message naming the file and line in @err.
 */
int p0f_db_load(struct p0f_db *db, const char *path, char *err, size_t errlen);
void p0f_db_free(struct p0f_db *db);

/* One "sig = " value of a [tcp:*] section into @s (p0f_sig.c). Returns 0, or -1 with @err. */
int p0f_sig_parse(const char *v, struct p0f_sig *s, char *err, size_t errlen);

/*
 * Parse a packet (@len bytes from the IP header on) as p0f does. Returns 0, or -1 where p0f
 * would drop it unseen (not TCP, too short, a silly flag combination, IPv6 extension headers,
 * a fragment).
 */
int p0f_parse(const uint8_t *ip, size_t len, struct p0f_pkt *pk);

/*
 * p0f's raw_sig and label ("os=Linux 3.11 and newer", "app=...", "os=???") for @ip: SYNs are
 * matched against [tcp:request], SYN-ACKs against [tcp:response]. A packet p0f would not
 * fingerprint (p0f_parse() fails, or it is neither a SYN nor a SYN-ACK) gives "" for both;
 * returns false then.
 */
bool p0f_fingerprint(const struct p0f_db *db, const uint8_t *ip, size_t len, char *sig,
		     char *label);

#endif
