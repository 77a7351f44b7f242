/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every generator a record can name, one row each: its name in the records, what it declares
 * of the SYNs it makes (the judge's input: judge.h never compares names), and the reason its
 * planned records are proven by. The last row is for records no generator named.
 *
 * A generator of its own (per_run > 0) is all in its row (one line of GEN_TABLE below) and its
 * file, gen/own/NAME.c, which defines `const struct gen_ops NAME_ops` (generator.h; the build
 * lists every file of gen/own/ in the loop's table, generators.c, and the server checks each
 * such row has its file there). The plan makes per_run of its connections with the planned
 * handshakes (the default and crafted mixes, shard 0; a rerun again only if it plans a reason:
 * identical records are not made again), with seed + seed_offset (plan.h: own[],
 * own_seed[]); the server waits for them; the expectations hold it to per_run records, each
 * proven as planned (its reason) or, with none, identical. The judge links this table, not
 * the generators.
 */
#ifndef SYNTWIN_REGISTRY_H
#define SYNTWIN_REGISTRY_H

#include <stdint.h>

#include "verdict.h"

/*
 * Every generator, one line each: X(ID, name, what it declares, the reason its planned records
 * are proven by, per_run, seed_offset) (struct gen_row below). UNKNOWN, the records no
 * generator named, stays last.
 */
#define GEN_TABLE(X)                                                                       \
	X(SOCKETS, "sockets", DECLARES_CONNECT, R_NONE, 0, 0)                              \
	X(CRAFTED, "crafted", DECLARES_CONNECT, R_NONE, 0, 0)                              \
	X(TAP, "crafted-tap", DECLARES_CONNECT, R_NONE, 0, 0)                              \
	X(FUZZ, "fuzz", DECLARES_CONNECT, R_NONE, 0, 0)                                    \
	X(REPLAY, "replay", DECLARES_NOTHING, R_NONE, 0, 0)                                \
	X(REJECTED, "rejected", DECLARES_DROP, R_NONE, 0, 0)                               \
	X(HELD_BACK, "held-back", DECLARES_CONNECT, R_RETRANSMIT, 0, 0)                    \
	X(ABANDONED_RST, "abandon-rst", DECLARES_ABANDON_RST, R_ABANDONED, 0, 0)           \
	X(ABANDONED_EXPIRE, "abandon-expire", DECLARES_ABANDON_EXPIRE, R_ABANDONED, 0, 0)  \
	X(ABANDONED_CLOSE, "abandon-close", DECLARES_ABANDON_CLOSE, R_ABANDONED, 0, 0)     \
	X(DUP_SYNACK, "dup-synack", DECLARES_CONNECT, R_RETRANSMIT, 0, 0)                  \
	X(RESET_BEFORE_READ, "reset-before-read", DECLARES_CONNECT, R_NONE, 8, 17)         \
	X(UNKNOWN, "unknown", DECLARES_CONNECT, R_NONE, 0, 0)

#define GEN_ENUM_ENTRY(id, ...) GEN_##id,
enum gen_id { GEN_TABLE(GEN_ENUM_ENTRY) GEN_MAX };
#undef GEN_ENUM_ENTRY

/* What a generator declares of its SYNs. */
enum gen_declares {
	DECLARES_NOTHING,	/* a replayed capture (its SYNs are someone else's), or no label */
	DECLARES_CONNECT,	/* each must connect */
	DECLARES_DROP,		/* each must be dropped by the kernel (rejected) */
	DECLARES_ABANDON_RST,	/* a handshake abandoned as planned: the peer resets it, */
	DECLARES_ABANDON_EXPIRE, /* lets it expire, */
	DECLARES_ABANDON_CLOSE,	/* or its listener closes (abandoned.h) */
};

/* A generator's name with its NUL, as labels and records keep it: every row's fits
 * (unit.run_verdicts). */
#define GEN_NAME_MAX 24

struct gen_row {
	const char *name;		/* in the records' "gen" */
	enum gen_declares declares;
	enum reason planned;		/* the reason its records are proven by as planned, or
					 * R_NONE: it plans no outcome (a generator of its own:
					 * each record identical) */
	uint64_t per_run;		/* a generator of its own: the passive connections it
					 * makes in a run; 0: the plan's own rules count it */
	uint64_t seed_offset;		/* ... its seed, from the run's */
};

extern const struct gen_row gen_rows[GEN_MAX];

/* The generator named @name, GEN_UNKNOWN for none (NULL) or another. */
enum gen_id gen_id_of(const char *name);
/* What the generator named @name declares (DECLARES_NOTHING for none). */
enum gen_declares gen_declares_of(const char *name);

#endif
