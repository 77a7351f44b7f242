/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The capture points' counts over a run (--capture-points; compare/points.h gathers them) and
 * their part of summary.json ("capture_points": per point, its verdicts, explained reasons,
 * and its own counters).
 */
#ifndef SYNTWIN_POINT_STATS_H
#define SYNTWIN_POINT_STATS_H

#include <stdint.h>

#include "capture_points.h"
#include "json_out.h"
#include "judge_point.h"
#include "verdict.h"

/* What each point of one record showed (the record's "points", report.c). */
struct point_record {
	unsigned int mask;		/* the points compared: 1 << enum capture_point */
	struct point_result r[PT_MAX];
	struct point_copy copy[PT_MAX];	/* the point's bytes (len 0: none) */
	uint8_t wire_frame[2048];	/* the wire's whole frame (WIRE_SNAPLEN), as captured */
	size_t wire_frame_len;		/* 0: none */
};

struct point_stats {
	uint64_t verdict[PV_MAX];
	uint64_t reason[R_MAX];		/* of the explained ones */
	uint64_t counter[PC_MAX];	/* the point's own (the BPF points' point_counts; the
					 * wire's seen and stored) */
	uint64_t dropped;		/* the wire: frames its capture dropped */
	uint64_t capacity;		/* the BPF points: entries their map holds */
	uint64_t corrupted;		/* TEST ONLY: copies --test-corrupt-point changed */
};

struct points_summary {
	unsigned int mask;		/* the points beside tc (1 << enum capture_point); 0: none */
	struct point_stats st[PT_MAX];
	char xdp_modes[160];		/* "s0 native, tun0 generic, ..." */
};

/* "capture_points" into @j (tc's row: the witness's verdicts on the records the points
 * compared); nothing when no point beside tc was compared. */
void points_summary_json(struct json_out *j, const struct points_summary *ps);

#endif
