// SPDX-License-Identifier: GPL-2.0
/*
 * The loop's table of generators (gen/generators.c) as the build makes it: the planned
 * handshakes first, every file of gen/own/ (here reset-before-read) in file-name order, then the
 * crafted phase and the sockets; each generator of its own in the registry has its file there
 * and each file a row that is one (generators_check()); the registry's table (GEN_TABLE) gives
 * every row its name, UNKNOWN last.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "generators.h"
#include "registry.h"

int main(void)
{
	int n = 0, own = 0;

	while (gen_phases[n])
		n++;
	CHECK(n >= 4, "%d phases", n);
	CHECK(gen_phases[0] == &planned_ops, "the planned handshakes first");
	CHECK(n >= 2 && gen_phases[n - 2] == &crafted_ops, "the crafted phase before the sockets");
	CHECK(n >= 1 && gen_phases[n - 1] == &sock_gen_ops, "the sockets last");
	for (int p = 1; p < n - 2; p++) {
		CHECK(gen_phases[p]->own > 0 && gen_phases[p]->own < GEN_UNKNOWN,
		      "phase %d (%s) is a generator of its own", p, gen_phases[p]->what);
		own += gen_phases[p]->own == GEN_RESET_BEFORE_READ;
	}
	CHECK_EQ_INT(own, 1);
	CHECK_EQ_INT(generators_check(gen_phases), 0);
	/* a table without the generator of its own, and one where a file claims a row that is
	 * none: both refused */
	{
		const struct gen_ops *without[] = { &planned_ops, &crafted_ops, &sock_gen_ops, NULL };
		struct gen_ops claims = sock_gen_ops;
		const struct gen_ops *wrong[] = { &planned_ops, gen_phases[1], &claims, NULL };

		claims.own = GEN_CRAFTED;
		CHECK_EQ_INT(generators_check(without), -1);
		CHECK_EQ_INT(generators_check(wrong), -1);
	}
	/* the registry: one row each, its name unique, UNKNOWN the last */
	for (int r = 0; r < GEN_MAX; r++) {
		CHECK(gen_rows[r].name && strlen(gen_rows[r].name) < GEN_NAME_MAX, "row %d", r);
		CHECK_EQ_INT(gen_id_of(gen_rows[r].name), r);
	}
	CHECK(!strcmp(gen_rows[GEN_UNKNOWN].name, "unknown") && GEN_UNKNOWN == GEN_MAX - 1,
	      "unknown last");
	CHECK_EQ_INT(gen_rows[GEN_RESET_BEFORE_READ].per_run, 8);
	CHECK_EQ_INT(gen_rows[GEN_RESET_BEFORE_READ].seed_offset, 17);
	CHECK_EQ_INT(gen_rows[GEN_HELD_BACK].planned, R_RETRANSMIT);
	CHECK_EQ_INT(gen_rows[GEN_REJECTED].declares, DECLARES_DROP);
	return check_report("gen_loop");
}
