// SPDX-License-Identifier: GPL-2.0
/*
 * syntwin-crafted (guest, server netns): the tun peer (tun_peer.h) as a process of its own. It
 * writes SYNs built from the shapes of gen/profiles/NAME.syn (walk.h; with --fuzz, mutated),
 * completes each handshake and labels each flow for the server over the channel
 * (client_msg.h): "crafted" for shapes that must connect, "rejected" for those that must not
 * (sent once each, no answer awaited). With --replay FILE it sends instead every SYN of a
 * capture file (pcap_syns.h), rewriting only addresses, ports and checksums (and the IP length,
 * as the payload is not sent): "replay".
 * usage: syntwin-crafted --connections N [--seed S] [--profiles DIR] [--dev tun0] [--fuzz]
 *                        [--tree FILE]   (the kernel tree's facts: a shape whose drop rule
 *                                         holds from a version on needs them, tree_facts.h)
 *        syntwin-crafted --tap --dev tap0 ...   (Ethernet frames on a tap device instead)
 *        syntwin-crafted --replay FILE [--count]
 * With --rerun JSONL only the connections that were not identical in that earlier run are made
 * (their indexes, or packet numbers for a replay); --count prints how many would connect.
 * In a run syntwin-server makes all of these itself (gen/crafted_gen.h, one event loop); this
 * program counts them for its plan (--count), and makes them on its own for a look by hand.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_msg.h"
#include "net_helpers.h"
#include "parse_num.h"
#include "replay.h"
#include "rerun.h"
#include "topology.h"
#include "tree_facts.h"
#include "tun_peer.h"
#include "walk.h"

static struct shape_set shapes;
static uint64_t made, failed, rejected_sent;
static struct rerun_set only;
static const char *rerun_file;
static bool fuzz_mode;

/* Replays @file one SYN at a time, blocking; with @count_only prints how many SYNs would be
 * sent and sends none. */
static int replay(const char *file, int count_only)
{
	struct replay_list l;
	uint64_t sent = 0, given_up = 0;
	char err[512], name[64];

	if (replay_load(file, &only, &l, err, sizeof(err))) {
		fprintf(stderr, "syntwin: %s\n", err);
		return 2;
	}
	if (count_only) {
		printf("%zu\n", l.n);
		replay_free(&l);
		return 0;
	}
	for (size_t i = 0; i < l.n; i++) {
		const struct replay_syn *r = &l.v[i];
		struct active_msg m;
		struct syn_out o;
		int rc;

		replay_prepare(&l, r, &m, &o, name, sizeof(name));
		if (tell_flow(CLIENT_GEN, r->family, r->sport, r->dport, r->isn, &m)) {
			log_err("telling the server about %s", name);
			failed++;
			break;
		}
		rc = one_syn(&o);
		*(rc < 0 ? &failed : rc > 0 ? &given_up : &sent) += 1;
	}
	pump_closes(1500);
	replay_print(&l, sent, given_up, 0); /* no witness to ask here: each waited out */
	replay_free(&l);
	return failed ? 1 : 0;
}

/*
 * The crafted or fuzzed run (walk.h): the selected SYNs written and their handshakes made, one at
 * a time. With @dry nothing is sent: returns how many connections the selection makes.
 * Otherwise returns 0, or -1 on a failure to go on.
 */
static int64_t walk(uint64_t n, uint64_t seed, bool dry)
{
	struct walk w;
	struct walk_syn ws;
	int64_t counted = 0;

	walk_init(&w, &shapes, n, seed, fuzz_mode, &only);
	while (walk_next(&w, &ws)) {
		const struct syn_shape *s = &ws.s;
		struct syn_out out;
		struct flow f;
		uint8_t pkt[CRAFT_MAX];

		if (dry) {
			counted += ws.selected && !s->bad;
			continue;
		}
		if (!ws.selected)
			continue; /* walked past as the whole run does, its draws made */
		if (tell_shape(s, fuzz_mode, ws.sport, ws.dport, ws.isn, ws.index)) {
			log_err("telling the server about %s", s->name);
			return -1;
		}
		syn_out_of_walk(&ws, &f, pkt, &out);
		if (one_syn(&out)) {
			failed++;
			continue;
		}
		if (s->bad)
			rejected_sent++;
		else
			made++;
	}
	return dry ? counted : 0;
}

int main(int argc, char **argv)
{
	const char *dir = "/src/gen/profiles", *dev = "tun0", *replay_file = NULL, *tree_file = NULL;
	static struct tree_facts tree_of_file;
	const struct tree_facts *tree = NULL;
	int count_only = 0, fuzz = 0;
	uint64_t n = 100, seed = 1;
	char err[256];

	for (int i = 1; i < argc; i += 2) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int rc = 0;

		if (!strcmp(a, "--count") || !strcmp(a, "--fuzz") || !strcmp(a, "--tap")) {
			*(a[2] == 'c' ? &count_only : a[2] == 'f' ? &fuzz : &tap_mode) = 1;
			i--;
			continue;
		}
		if (!v) {
			fprintf(stderr, "syntwin-crafted: %s: missing value\n", a);
			return 2;
		}
		if (!strcmp(a, "--connections"))
			rc = parse_u64_range(a, v, 0, 1000000, &n, err, sizeof(err));
		else if (!strcmp(a, "--seed"))
			rc = parse_u64_range(a, v, 0, UINT64_MAX, &seed, err, sizeof(err));
		else if (!strcmp(a, "--profiles"))
			dir = v;
		else if (!strcmp(a, "--dev"))
			dev = v;
		else if (!strcmp(a, "--replay"))
			replay_file = v;
		else if (!strcmp(a, "--rerun"))
			rerun_file = v;
		else if (!strcmp(a, "--shard"))
			rc = shard_parse(v, &only, err, sizeof(err));
		else if (!strcmp(a, "--tree"))
			tree_file = v;
		else {
			fprintf(stderr, "usage: syntwin-crafted --connections N [--seed S] "
					"[--profiles DIR] [--dev tun0] [--tree FILE]\n");
			return 2;
		}
		if (rc) {
			fprintf(stderr, "syntwin-crafted: %s\n", err);
			return 2;
		}
	}
	if (tree_file) {
		if (tree_facts_load(tree_file, &tree_of_file, err, sizeof(err))) {
			fprintf(stderr, "syntwin-crafted: --tree %s\n", err);
			return 2;
		}
		tree = &tree_of_file;
	}
	run_seed = seed;
	fuzz_mode = fuzz;
	if (peer_addresses(tap_mode))
		return 2;
	if (rerun_file && rerun_load(rerun_file, replay_file ? "replay" : fuzz_mode ? "fuzz" :
				     tap_mode ? "crafted-tap,rejected" : "crafted,rejected", &only))
		return 2;
	if (replay_file && count_only)
		return replay(replay_file, 1);
	if (replay_file) {
		if ((ufd = client_channel_connect()) < 0 || enter_netns("server") ||
		    (tun = open_tun(dev)) < 0)
			return 2;
		return replay(replay_file, 0);
	}
	if (count_only) {
		/* the connections the selection makes: a rerun's are the earlier run's indexes that
		 * are not must-drop; a shard's, its slice of the walk */
		int64_t cnt = 0;

		if (walk_load_profiles(dir, tree, &shapes))
			return 2;
		if (rerun_file) {
			for (size_t j = 0; j < only.n; j++)
				cnt += rerun_has(&only, only.idx[j]) &&
				       (fuzz_mode || !shapes.shapes[only.idx[j] % shapes.n].bad);
		} else {
			cnt = walk(n, seed, true);
		}
		printf("%lld\n", (long long)cnt);
		return 0;
	}
	if (walk_load_profiles(dir, tree, &shapes) || (ufd = client_channel_connect()) < 0 || enter_netns("server") ||
	    (tun = open_tun(dev)) < 0)
		return 2;

	if (walk(n, seed, false) < 0)
		return 2;
	pump_closes(1500); /* the last connections' FINs */
	printf("%s: %llu connections from %zu %sshapes, %llu SYNs the kernel must drop, %llu "
	       "failed\n", fuzz_mode ? "fuzz" : "crafted", (unsigned long long)made, shapes.n,
	       fuzz_mode ? "fuzzed profile " : "", (unsigned long long)rejected_sent,
	       (unsigned long long)failed);
	return failed ? 1 : 0;
}
