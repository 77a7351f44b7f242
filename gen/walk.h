/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The crafted and fuzzed generators' sequence (syntwin-crafted, and syntwin-server's crafted
 * phase, gen/crafted_gen.h): N connections, every profile shape that must connect taking a
 * turn, round robin, each must-drop one sent once; fuzzed runs mutate the good shapes. Every
 * SYN (its shape, ports, ISN) comes from the seed; a selection (--rerun, --shard) walks past
 * what it leaves out, drawing what it would draw, so each SYN is the one the full run makes.
 */
#ifndef SYNTWIN_WALK_H
#define SYNTWIN_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"
#include "rerun.h"
#include "tree_facts.h"

#define WALK_MAX_SHAPES 512

struct shape_set {
	struct syn_shape shapes[WALK_MAX_SHAPES];
	size_t n;
};

struct walk {
	const struct shape_set *set;
	const struct rerun_set *only;
	bool fuzz;
	uint64_t n, rng, good, sent_bad, c, i;
};

/* One SYN of the walk. */
struct walk_syn {
	struct syn_shape s;
	uint16_t sport, dport;
	uint32_t isn;
	uint64_t index;		/* its place in the sequence (the record's gen_index) */
	bool selected;		/* made by this run (else walked past) */
};

/* Every *.syn of @dir into @set, each shape as a kernel of tree @tree must take it
 * (shape_for_tree(); @tree NULL: refused where a shape depends on the version). Returns 0, or
 * -1 (printed). */
int walk_load_profiles(const char *dir, const struct tree_facts *tree, struct shape_set *set);
void walk_init(struct walk *w, const struct shape_set *set, uint64_t n, uint64_t seed,
	       bool fuzz, const struct rerun_set *only);
/* The next SYN, selected or not; false at the end of the walk. */
bool walk_next(struct walk *w, struct walk_syn *out);

#endif
