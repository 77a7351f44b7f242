/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A capture point's copy of a SYN against the kernel's saved copy (--capture-points,
 * bpf/capture_points.h): the same byte rules as the witness's (classify.h), with only the
 * point's own evidence. A point proves no syncookie and binds no socket: which SYN a socket
 * was made from, and which of its copies the kernel kept, is the witness's (tc + sockops)
 * answer, shared by every point; the bytes compared are the point's alone. Pure.
 */
#ifndef SYNTWIN_JUDGE_POINT_H
#define SYNTWIN_JUDGE_POINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

#include "capture.h"
#include "classify.h"

enum point_verdict {
	PV_IDENTICAL,		/* the point's bytes are the kernel's */
	PV_EXPLAINED,		/* they differ as a documented reason proves (reason) */
	PV_DIFFER,		/* they differ, unexplained: a failure */
	PV_MISSING,		/* the point has no copy of that SYN: a failure */
	PV_LOST,		/* ... and its own store lost copies (its map evicted, its ring
				 * dropped): proves nothing, the run is partial */
	PV_TRUNCATED,		/* its copy is cut short: what lies past the cut is unproven, a
				 * failure, as for the witness */
	PV_NOT_COMPARED,	/* nothing to compare: the kernel returned no copy, or the witness
				 * bound none to name the copy to look for (the record's own
				 * verdict says why) */
	PV_MAX
};

extern const char *const point_verdict_names[PV_MAX];

/* A point's copy of one SYN, as gathered (compare/points.c, compare/wire.c). */
struct point_copy {
	uint8_t data[CAPTURE_MAX];
	size_t len, mac_len;		/* len 0: none */
	bool cut;			/* the point could not keep it whole */
	unsigned int seen;		/* copies with this tag the point saw */
};

struct point_input {
	int mode;			/* TCP_SAVE_SYN of the listener: 1 or 2 */
	const uint8_t *native;		/* the kernel's copy, NULL: none */
	size_t native_len;
	bool copy_named;		/* the witness named the copy the kernel kept (its tag) */
	const uint8_t *copy;		/* the point's copy with that tag, NULL: it has none */
	size_t len, mac_len;
	bool cut;			/* the point could not keep it whole */
	bool point_lost;		/* the point's store lost copies during the run */
	bool after_ip;			/* the point sees the packet after IP receive processing
					 * (tcp): what the kernel changes on the way in is already
					 * changed, so only equal bytes pass; before it (xdp, tc,
					 * the wire) the witness's explanations hold */
	const struct ipv4_env *env;	/* for ipv4-option-rewrite */
};

struct point_result {
	enum point_verdict verdict;
	enum reason reason;		/* with PV_EXPLAINED */
	long diff_off;			/* first differing byte, -1 none */
	char detail[256];
};

/* Fills @r; returns 1 if the verdict is a failure, else 0. */
int judge_point(const struct point_input *in, struct point_result *r);

/* The witness's own verdict on a record (judge()'s @res, a failure if @bad) in a point's terms,
 * for its row beside the points': not-compared unless the points compared the record
 * (@compared). */
enum point_verdict point_verdict_of_witness(const struct compare_result *res, int bad,
					    bool compared);

#endif
