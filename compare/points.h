/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The capture points of a run beside the witness (--capture-points; bpf/capture_points.h):
 * each passive connection's SYN as each point saw it, gathered (the BPF points' pinned map, the
 * wire's table) and judged against the kernel's copy (judge/judge_point.h), with the points' counts
 * for the summary.
 */
#ifndef SYNTWIN_POINTS_H
#define SYNTWIN_POINTS_H

#include <stdbool.h>
#include <stdint.h>

#include "capture_points.h"
#include "classify.h"
#include "point_stats.h"
#include "judge_point.h"
#include "wire.h"

struct points {
	unsigned int mask;		/* the points beside tc: xdp, tcp, wire */
	int syns_fd, counts_fd;		/* the BPF points' pinned maps, -1 without them */
	struct wire *wire;
	struct points_summary *sum;	/* the counts (the run's statistics) */
	int test_point;			/* TEST ONLY: --test-corrupt-point NAME:N: its point, */
	uint64_t test_every, test_seen;	/* ... every N-th copy it has */
};

/*
 * The points of @mask (1 << enum capture_point; tc is the witness's own) on devices @devs
 * (comma-separated, this process's netns), the wire's capture files in @dir, counted in @sum.
 * Returns 0, or -1
 * (printed: a point asked for that is not attached is a setup error).
 */
int points_open(struct points *P, unsigned int mask, const char *devs, const char *dir,
		struct points_summary *sum);
/*
 * Every point's copy of the SYN copy with flow @flow and tag @tag (the copy the witness judged
 * the kernel's bytes against; @named false: it bound none), judged against the kernel's bytes
 * (@mode, @native, @native_len) into @rec. The witness's verdict on the record (@tc, a failure
 * if @tc_bad) is counted as tc's where the points compare: every row of the summary counts the
 * same records. Returns how many points failed.
 */
int points_compare(struct points *P, const struct capture_key *flow, uint32_t tag, bool named,
		   int mode, const uint8_t *native, size_t native_len,
		   const struct ipv4_env *env, const struct compare_result *tc, int tc_bad,
		   struct point_record *rec);
/* The points' own counters, read at the end. */
void points_end(struct points *P);
/* The records whose copy a point's own store lost (the run is partial). */
uint64_t points_lost(const struct points *P);
/* Close the points. Returns 0, or -1 if the wire's files could not be written. */
int points_close(struct points *P);

#endif
