// SPDX-License-Identifier: GPL-2.0
/*
 * syntwin-crafted --count (guest, and the host for a replay): how many connections a selection
 * of the crafted phase makes, for the run's plan (gen/driver.c). The phase itself runs in
 * syntwin-server's event loop (gen/crafted_gen.h); this program walks the same sequence
 * (walk.h) without sending anything.
 * usage: syntwin-crafted --count --connections N [--seed S] [--profiles DIR] [--fuzz] [--tap]
 *                        [--tree FILE]   (the kernel tree's facts: a shape whose drop rule
 *                                         holds from a version on needs them, tree_facts.h)
 *        syntwin-crafted --count --replay FILE   (the SYNs of a capture a replay sends)
 * With --rerun JSONL only the connections that were not identical in that earlier run count
 * (their indexes, or packet numbers for a replay); --shard I/N, that slice of the walk.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net_helpers.h"
#include "parse_num.h"
#include "replay.h"
#include "rerun.h"
#include "topology.h"
#include "tree_facts.h"
#include "tun_peer.h"
#include "walk.h"

static struct shape_set shapes;
static struct rerun_set only;
static const char *rerun_file;
static bool fuzz_mode;

/* Prints how many SYNs of @file a replay sends. */
static int replay_count(const char *file)
{
	struct replay_list l;
	char err[512];

	if (replay_load(file, &only, &l, err, sizeof(err))) {
		fprintf(stderr, "syntwin: %s\n", err);
		return 2;
	}
	printf("%zu\n", l.n);
	replay_free(&l);
	return 0;
}

/* How many connections the crafted or fuzzed walk of @n SYNs (walk.h) makes: its selected
 * SYNs that must connect. */
static int64_t walk_count(uint64_t n, uint64_t seed)
{
	struct walk w;
	struct walk_syn ws;
	int64_t counted = 0;

	walk_init(&w, &shapes, n, seed, fuzz_mode, &only);
	while (walk_next(&w, &ws))
		counted += ws.selected && !ws.s.bad;
	return counted;
}

static const char usage[] =
	"usage: syntwin-crafted --count --connections N [--seed S] [--profiles DIR] [--fuzz]\n"
	"                       [--tap] [--tree FILE] [--rerun JSONL | --shard I/N]\n"
	"       syntwin-crafted --count --replay FILE [--rerun JSONL | --shard I/N]\n";

/* The connections the selection makes: a rerun's are the earlier run's indexes that are not
 * must-drop; a shard's, its slice of the walk. */
static int crafted_count(const char *dir, const struct tree_facts *tree, uint64_t n,
			 uint64_t seed)
{
	int64_t cnt = 0;

	if (walk_load_profiles(dir, tree, &shapes))
		return 2;
	if (rerun_file) {
		for (size_t j = 0; j < only.n; j++)
			cnt += rerun_has(&only, only.idx[j]) &&
			       (fuzz_mode || !shapes.shapes[only.idx[j] % shapes.n].bad);
	} else {
		cnt = walk_count(n, seed);
	}
	printf("%lld\n", (long long)cnt);
	return 0;
}

int main(int argc, char **argv)
{
	const char *dir = "/src/gen/profiles", *replay_file = NULL, *tree_file = NULL;
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
			fprintf(stderr, "syntwin-crafted: %s: missing value\n%s", a, usage);
			return 2;
		}
		if (!strcmp(a, "--connections"))
			rc = parse_u64_range(a, v, 0, 1000000, &n, err, sizeof(err));
		else if (!strcmp(a, "--seed"))
			rc = parse_u64_range(a, v, 0, UINT64_MAX, &seed, err, sizeof(err));
		else if (!strcmp(a, "--profiles"))
			dir = v;
		else if (!strcmp(a, "--replay"))
			replay_file = v;
		else if (!strcmp(a, "--rerun"))
			rerun_file = v;
		else if (!strcmp(a, "--shard"))
			rc = shard_parse(v, &only, err, sizeof(err));
		else if (!strcmp(a, "--tree"))
			tree_file = v;
		else {
			fprintf(stderr, "syntwin-crafted: unknown option '%s'\n%s", a, usage);
			return 2;
		}
		if (rc) {
			fprintf(stderr, "syntwin-crafted: %s\n", err);
			return 2;
		}
	}
	if (!count_only) {
		/* (a run makes the crafted phase in syntwin-server's loop, gen/crafted_gen.h) */
		fprintf(stderr, "syntwin-crafted: only counts (--count)\n%s", usage);
		return 2;
	}
	if (tree_file) {
		if (tree_facts_load(tree_file, &tree_of_file, err, sizeof(err))) {
			fprintf(stderr, "syntwin-crafted: --tree %s\n", err);
			return 2;
		}
		tree = &tree_of_file;
	}
	fuzz_mode = fuzz;
	if (peer_addresses(tap_mode))
		return 2;
	if (rerun_file && rerun_load(rerun_file, replay_file ? "replay" : fuzz_mode ? "fuzz" :
				     tap_mode ? "crafted-tap,rejected" : "crafted,rejected", &only))
		return 2;
	if (replay_file)
		return replay_count(replay_file);
	return crafted_count(dir, tree, n, seed);
}
