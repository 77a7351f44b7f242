/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A capture's SYNs made ready to replay (syntwin run --replay): each SYN of the file
 * (pcap_syns.h) with our addresses and ports, the IP length (its payload is not sent) and the
 * checksums rewritten, and nothing else; the selected ones (--rerun, --shard: by packet number)
 * in order, each with the port it goes out from. A SYN longer than 256 bytes is skipped, named
 * on stderr; a source route (IPv4 option, IPv6 routing header) goes as it came: the kernel
 * drops one it would have to follow (rules v4-ipopt-srr, v6-rthdr), and the judge proves why.
 */
#ifndef SYNTWIN_REPLAY_H
#define SYNTWIN_REPLAY_H

#include <stdint.h>

#include "craft.h"
#include "pcap_syns.h"
#include "rerun.h"
#include "tun_peer.h"

struct replay_syn {
	uint8_t pkt[CRAFT_MAX];
	size_t len;
	int family;
	uint16_t sport, dport;
	uint32_t isn, tsval;
	unsigned long packet;	/* its number in the file */
};

struct replay_list {
	const char *file;
	struct replay_syn *v;
	size_t n, cap;
	uint64_t skipped;
	struct pcap_syn_stats st;
};

/* The SYNs of @file that @only selects (none selected by an empty set: all) into @l, readdressed
 * from the peer's addresses of tun0 (tun_peer.h: peer_addresses() first). Returns 0, or -1 with
 * @err set when the file cannot be used at all. */
int replay_load(const char *file, const struct rerun_set *only, struct replay_list *l,
		char *err, size_t errlen);
void replay_free(struct replay_list *l);
/* SYN @r of @l as the tun peer writes it (@o; its name in @name, which must outlive @o) and its
 * label for the server (@e: "replay", FILE#PACKET in @knobs, which must outlive @e). */
void replay_prepare(const struct replay_list *l, const struct replay_syn *r, struct gen_event *e,
		    char *knobs, size_t knobslen, struct syn_out *o, char *name, size_t namelen);
/* The line a replay ends with: what was read, sent, given up on (@dropped of them at once: the
 * witness saw the kernel drop them), skipped. */
void replay_print(const struct replay_list *l, uint64_t sent, uint64_t given_up,
		  uint64_t dropped);

#endif
