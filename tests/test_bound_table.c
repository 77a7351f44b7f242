// SPDX-License-Identifier: GPL-2.0
/*
 * The bound-record table (loader/bound_table.c): put, peek, take and growth, and 200,000 random
 * operations checked against a plain array, so that a deletion that breaks a probe run (a
 * record no longer found, or found after it was taken) shows.
 */
#include <stdlib.h>
#include <string.h>

#include "bound_table.h"
#include "check.h"
#include "rng.h"

#define KEYS 3000

int main(void)
{
	struct bound_table *t = bound_table_new();
	static struct bound_rec r, out;
	static unsigned char have[KEYS];
	uint64_t rng = 7;
	size_t n = 0;
	int bad = 0;

	CHECK(t != NULL, "new");
	r.rec.cookie = 0;
	CHECK_EQ_INT(bound_table_put(t, &r), -22); /* cookie 0 is no socket's */
	r.rec.cookie = 42, r.rec.tag = 1;
	CHECK_EQ_INT(bound_table_put(t, &r), 0);
	r.rec.tag = 2; /* the same cookie again replaces */
	r.reads.tcp.len = 40, r.reads.tcp.b[39] = 0x5a; /* the readers' regions go with it */
	CHECK_EQ_INT(bound_table_put(t, &r), 0);
	CHECK_EQ_INT((int)bound_table_count(t), 1);
	CHECK_EQ_INT(bound_table_get(t, 42, &out, 0), 0);
	CHECK_EQ_INT((int)out.rec.tag, 2);
	CHECK_EQ_INT(out.reads.tcp.len, 40);
	CHECK_EQ_INT(out.reads.tcp.b[39], 0x5a);
	CHECK_EQ_INT(bound_table_get(t, 42, NULL, 1), 0);
	CHECK_EQ_INT(bound_table_get(t, 42, &out, 0), -2);
	CHECK_EQ_INT(bound_table_get(t, 0, &out, 0), -2);

	/* Cookies 1..KEYS, many colliding in a small table while it grows and shrinks in use. */
	for (int i = 0; i < 200000; i++) {
		uint64_t k = rng_next(&rng) % KEYS;

		r.rec.cookie = k + 1;
		r.rec.tag = (uint32_t)i;
		if (rng_next(&rng) % 3) {
			bad |= bound_table_put(t, &r) != 0;
			n += !have[k];
			have[k] = 1;
		} else {
			int got = bound_table_get(t, k + 1, &out, 1);

			bad |= got != (have[k] ? 0 : -2) || (got == 0 && out.rec.cookie != k + 1);
			n -= have[k];
			have[k] = 0;
		}
		bad |= bound_table_count(t) != n;
	}
	CHECK(!bad, "random operations agree with the array");
	for (int k = 0; k < KEYS; k++)
		bad |= (bound_table_get(t, (uint64_t)k + 1, NULL, 0) == 0) != have[k];
	CHECK(!bad, "every cookie found exactly when the array holds it");
	CHECK_EQ_INT((int)bound_table_clear(t), (int)n);
	CHECK_EQ_INT((int)bound_table_count(t), 0);
	bound_table_free(t);
	return check_report("bound_table");
}
