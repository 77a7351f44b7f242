/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The crafted phase as a module of syntwin-server's event loop: the tun peer (tun_peer.h) on
 * tun0, then fuzzed shapes on tun0, then profile shapes as Ethernet frames on tap0, each run
 * the walk syntwin-crafted makes (walk.h), then a capture's SYNs (replay.h) on tun0; one SYN in
 * flight at a time. The device is an fd of the loop; labels and give-ups go to the server's
 * handler in memory (peer_sink).
 *
 * The loop's part is crafted_ops (generator.h): step every round (it starts what may start, and
 * times out), event when the device (epoll data.u32 = its tag) is readable.
 */
#ifndef SYNTWIN_CRAFTED_GEN_H
#define SYNTWIN_CRAFTED_GEN_H

#include <stdbool.h>
#include <stdint.h>

#include "events.h"
#include "craft.h"
#include "replay.h"
#include "rerun.h"
#include "tun_peer.h"
#include "walk.h"

enum crafted_kind { CRAFTED_TUN, CRAFTED_FUZZ, CRAFTED_TAP, CRAFTED_REPLAY, CRAFTED_KINDS };

struct crafted_opts {
	uint64_t n[CRAFTED_KINDS], seed[CRAFTED_KINDS];	/* 0 connections: the run is left out */
	const char *profiles;	/* the *.syn directory */
	const char *replay;	/* the capture file of CRAFTED_REPLAY (its n: the SYNs selected) */
	const char *rerun;	/* an earlier run's records: only what was not identical */
	const char *shard;	/* "I/N": only the indexes i % N == I */
	const struct tree_facts *tree;	/* the kernel tree: which drop rules hold (since=) */
};

struct crafted_gen {
	struct crafted_opts o;
	int ep;
	uint32_t tag;
	int kind;		/* the run under way; CRAFTED_KINDS: all done */
	bool running, waiting, closing;
	uint64_t deadline_ms;	/* the SYN-ACK's, or the closes' */
	struct walk w;
	struct walk_syn syn;
	struct flow flow;
	uint8_t pkt[CRAFT_MAX];
	char name[64];		/* a replayed SYN's, for messages */
	struct syn_out out;
	struct rerun_set only;
	struct replay_list replay;	/* CRAFTED_REPLAY's SYNs, and the next one's index */
	size_t replay_next;
	uint64_t made, failed, rejected_sent, given_up;	/* this run's */
	uint64_t dropped;	/* this run's SYNs given up at once: the kernel dropped them */
	uint64_t errors;	/* every run's failures: they fail the generator */
};

/* An option of the crafted phase as syntwin-server takes it (--crafted-connections N,
 * --fuzz-seed S, --tap-connections N, --crafted-profiles DIR, --replay-file F,
 * --replay-connections N, ...; @name without "--").
 * Returns 1 taken, 0 not one, -1 bad (printed). */
int crafted_opt(struct crafted_opts *o, const char *name, const char *val);
/* Is any run asked for? */
bool crafted_any(const struct crafted_opts *o);

#endif
