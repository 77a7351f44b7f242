/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Gather: what is known of one connection, for the judge (struct observation, judge.h): the
 * witness's copies of its SYN (or SYN-ACK) and their evidence, the kernel's bytes, the run's
 * evidence, and the label its generator gave before making it.
 */
#ifndef SYNTWIN_GATHER_H
#define SYNTWIN_GATHER_H

#include <stdbool.h>
#include <stdint.h>

#include "judge.h"
#include "report.h"
#include "run.h"

/* The witness's copies of one SYN (or SYN-ACK), in arrival order, as the judge sees them. */
struct copies {
	struct capture_rec rec[CAPTURE_MAX_COPIES];
	struct copy_view view[CAPTURE_MAX_COPIES];
	int n;
	bool cut;
};

/* A connection with a socket (passive or active), gathered. */
struct socket_seen {
	struct observation ob;
	struct copies cp;
	struct capture_rec rec;		/* the capture bound to the socket's cookie */
	struct syn_reads reads;		/* ... and what the in-kernel readers returned then */
	bool have_reads;		/* a record was bound (a capture or a cookie child's) */
	bool have_bpf;
	int judged;			/* the copy the kernel's bytes are judged against, or -1 */
};

/* The observation of record @c (its socket's cookie, its label) with the kernel's bytes
 * @native (@n, 0 none, -1 too long) and the small-buffer read's verdict @small. */
void gather_socket(struct run *R, const struct conn_record *c, const uint8_t *native, int n,
		   const char *small, struct socket_seen *g);
/* The observation of a SYN no socket took, flow @k, capture @r: every copy where the judge
 * needs them (a planned abandoned handshake, a SYN answered with a cookie) and its memory.
 * @site receives the outstanding copy's call site. */
void gather_unbound(struct run *R, const struct capture_key *k, const struct capture_rec *r,
		    struct observation *ob, char *site, size_t sitelen);

/* The judged syncookie connection a cookie child's key @k belongs to (cookie_keys), in
 * @first: the same flow and an ISN at most 3 below. Returns the difference, or -1. */
int cookie_child_origin(struct run *R, const struct capture_key *k, struct capture_key *first);
/* Takes the label of a SYN (flow @f, ISN @isn if @has_isn, first copy at @syn_ns) from the live
 * labels or those set aside by client failures, whichever was given last before the SYN.
 * Returns 0 or -1. */
int take_syn_label(struct run *R, const struct capture_key *f, bool has_isn, uint32_t isn,
		   uint64_t syn_ns, struct label *l, bool *dup);
/* The label of passive connection @c (its cookie and flow) into @c (kept in @keep, which must
 * outlive the record), found by the witness's key, else by the socket's flow. */
void gather_label(struct run *R, struct conn_record *c, struct label *keep);
/* Is @gen's connection @index in the plan's forced-syncookie window? */
bool cookie_due_of(const struct run *R, const char *gen, uint64_t index);

#endif
