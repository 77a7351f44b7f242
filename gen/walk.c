// SPDX-License-Identifier: GPL-2.0
/* The crafted and fuzzed generators' seeded sequence (walk.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net_helpers.h"
#include "rng.h"
#include "topology.h"
#include "tree_facts.h"
#include "walk.h"

/* @s as a kernel of tree @t must take it: a drop rule from a later version than @t's (since=)
 * does not hold there, and the shape must connect. */
static void shape_for_tree(struct syn_shape *s, const struct tree_facts *t)
{
	if (s->since_major && !tree_at_least(t, s->since_major, s->since_minor)) {
		s->bad = BAD_NONE;
		s->drop_rule[0] = '\0';
	}
}

/* Each shape of @set as tree @tree must take it. Returns 0, or -1 (printed): a shape whose
 * rule depends on the version with no tree to tell it. */
static int shapes_for_tree(struct shape_set *set, const struct tree_facts *tree)
{
	for (size_t k = 0; k < set->n; k++) {
		struct syn_shape *s = &set->shapes[k];

		if (!tree && s->since_major) {
			fprintf(stderr, "syntwin-crafted: shape %s: its drop rule holds from %u.%u on: "
				"give the kernel tree's facts (--tree)\n", s->name, s->since_major,
				s->since_minor);
			return -1;
		}
		if (tree)
			shape_for_tree(s, tree);
	}
	return 0;
}

int walk_load_profiles(const char *dir, const struct tree_facts *tree, struct shape_set *set)
{
	struct dirent **ents;
	char path[512], err[300];
	int n = scandir(dir, &ents, NULL, alphasort), rc = 0;

	if (n < 0) {
		log_err("profiles directory %s", dir);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		size_t l = strlen(ents[i]->d_name);

		if (!rc && l > 4 && !strcmp(ents[i]->d_name + l - 4, ".syn")) {
			snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
			if (profile_load(path, set->shapes, WALK_MAX_SHAPES, &set->n, err, sizeof(err))) {
				fprintf(stderr, "syntwin-crafted: %s\n", err);
				rc = -1;
			}
		}
		free(ents[i]);
	}
	free(ents);
	if (!rc && !set->n) {
		fprintf(stderr, "syntwin-crafted: no shapes in %s/*.syn\n", dir);
		rc = -1;
	}
	return rc ? rc : shapes_for_tree(set, tree);
}

/*
 * A mutation of @base the kernel must still accept: a new TCP option list of random legal
 * options (NOP, MSS, window scale, SACK-permitted, timestamps, unknown kinds with random data,
 * EOL with trailing bytes), padded to a multiple of 4 and at most 40 bytes, and random window,
 * TTL, DSCP, IP ID and DF. Never kind 19 (TCP-MD5: unsigned listeners drop it) or 34 (Fast Open
 * cookie). The record's knobs carry the option bytes (tell()), so it says what was sent.
 */
static void fuzz_shape(const struct syn_shape *base, uint64_t *rng, struct syn_shape *s)
{
	size_t len = 0, want = (rng_next(rng) % 11) * 4;

	*s = *base;
	s->ipopt_len = 0;
	s->next_ext = 0;
	while (len < want) {
		size_t room = want - len;
		uint8_t *o = s->tcpopt + len;
		int pick = (int)(rng_next(rng) % 7);

		if (pick == 0 || room < 2) {
			o[0] = 1, len += 1;
		} else if (pick == 1 && room >= 4) {
			o[0] = 2, o[1] = 4, o[2] = (uint8_t)(rng_next(rng) % 6 + 1),
			o[3] = (uint8_t)rng_next(rng), len += 4;
		} else if (pick == 2 && room >= 3) {
			o[0] = 3, o[1] = 3, o[2] = (uint8_t)(rng_next(rng) % 15), len += 3;
		} else if (pick == 3) {
			o[0] = 4, o[1] = 2, len += 2;
		} else if (pick == 4 && room >= 10) {
			o[0] = 8, o[1] = 10;
			for (int b = 2; b < 10; b++)
				o[b] = (uint8_t)rng_next(rng);
			len += 10;
		} else if (pick == 5) {
			size_t l = 2 + rng_next(rng) % (room - 1 < 7 ? room - 1 : 7);
			uint8_t kind;

			do
				kind = (uint8_t)(9 + rng_next(rng) % 245);
			while (kind == 19 || kind == 34 || kind == 29 || kind == 30);
			o[0] = kind, o[1] = (uint8_t)l;
			for (size_t b = 2; b < l; b++)
				o[b] = (uint8_t)rng_next(rng);
			len += l;
		} else {
			/* EOL ends the list; what follows it is padding, any value */
			o[0] = 0;
			for (size_t b = 1; b < room; b++)
				o[b] = (uint8_t)rng_next(rng);
			len = want;
		}
	}
	s->tcpopt_len = want;
	s->win = (uint16_t)rng_next(rng);
	s->ttl = (int)(1 + rng_next(rng) % 255);
	s->tos = (int)(rng_next(rng) & 0xfc);
	s->ipid = (uint16_t)rng_next(rng);
	s->df = (int)(rng_next(rng) % 2);
	snprintf(s->name, sizeof(s->name), "fuzz/%.12s:%s", strchr(base->name, '/') + 1,
		 want ? "opts" : "none");
}

void walk_init(struct walk *w, const struct shape_set *set, uint64_t n, uint64_t seed,
	       bool fuzz, const struct rerun_set *only)
{
	*w = (struct walk){ .set = set, .only = only, .fuzz = fuzz, .n = n, .rng = seed };
	for (size_t k = 0; k < set->n; k++)
		w->good += !set->shapes[k].bad;
	if (!w->good)
		w->n = 0;
}

bool walk_next(struct walk *w, struct walk_syn *o)
{
	const struct syn_shape *sh = w->set->shapes;
	size_t ns = w->set->n;

	for (; w->c < w->n || (!w->fuzz && w->sent_bad < ns - w->good); w->i++) {
		const struct syn_shape *s = &sh[w->i % ns];

		if (w->fuzz) {
			/* a good base shape, mutated; must-drop ones are not fuzzed */
			while (sh[w->i % ns].bad)
				w->i++;
			fuzz_shape(&sh[w->i % ns], &w->rng, &o->s);
			s = &o->s;
		}
		/* fuzz runs after the profile run: other ports, or the server's TIME_WAIT sockets of
		 * the same 4-tuples would turn some SYNs away */
		o->sport = (uint16_t)((w->fuzz ? 2000 : TOPO_CRAFTED_SPORT_BASE) + w->i % 28000);
		o->dport = (uint16_t)(TOPO_PORT_BASE + w->i % 2);
		o->isn = (uint32_t)rng_next(&w->rng);
		if (s->bad ? w->i >= ns : (w->c >= w->n || !w->good))
			continue;
		/* its turn is taken, whether the selection makes it or walks past it */
		if (s->bad)
			w->sent_bad++;
		else
			w->c++;
		if (s != &o->s)
			o->s = *s;
		o->index = w->i;
		o->selected = !rerun_active(w->only) || rerun_has(w->only, w->i);
		w->i++;
		return true;
	}
	return false;
}
