/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every generator a record can name, one row each: its name in the records, what it declares
 * of the SYNs it makes (the judge's input: judge.h never compares names), and the reason its
 * planned records are proven by. The last row is for records no generator named.
 */
#ifndef SYNTWIN_REGISTRY_H
#define SYNTWIN_REGISTRY_H

#include "verdict.h"

enum gen_id { GEN_SOCKETS, GEN_CRAFTED, GEN_TAP, GEN_FUZZ, GEN_REPLAY, GEN_REJECTED, GEN_HELD_BACK,
	      GEN_ABANDONED_RST, GEN_ABANDONED_EXPIRE, GEN_ABANDONED_CLOSE, GEN_DUP_SYNACK,
	      GEN_UNKNOWN, GEN_MAX };

/* What a generator declares of its SYNs. */
enum gen_declares {
	DECLARES_NOTHING,	/* a replayed capture (its SYNs are someone else's), or no label */
	DECLARES_CONNECT,	/* each must connect */
	DECLARES_DROP,		/* each must be dropped by the kernel (rejected) */
	DECLARES_ABANDON_RST,	/* a handshake abandoned as planned: the peer resets it, */
	DECLARES_ABANDON_EXPIRE, /* lets it expire, */
	DECLARES_ABANDON_CLOSE,	/* or its listener closes (abandoned.h) */
};

struct gen_row {
	const char *name;		/* in the records' "gen" */
	enum gen_declares declares;
	enum reason planned;		/* the reason its records are proven by as planned, or
					 * R_NONE: it plans no outcome */
};

extern const struct gen_row gen_rows[GEN_MAX];

/* The generator named @name, GEN_UNKNOWN for none (NULL) or another. */
enum gen_id gen_id_of(const char *name);
/* What the generator named @name declares (DECLARES_NOTHING for none). */
enum gen_declares gen_declares_of(const char *name);

#endif
