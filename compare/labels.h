/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What each generator said about each connection before making it (its label), keyed the way
 * the witness keys a capture: the flow (family, both addresses, both ports) and, where the
 * generator chose it (crafted and replayed SYNs), the ISN. The socket client cannot know its
 * kernel's ISN before connect(), so its labels carry the flow and the time they were given
 * (CLOCK_MONOTONIC, the clock of the witness's timestamps); a flow is live in one connection at a
 * time, so a SYN's label is the last its flow was given before the SYN's first copy arrived, even
 * when an earlier connection of the flow left its label untaken (its server side never came).
 * A label is taken once; the last LABELS_RECENT taken stay findable by flow + ISN, so a second
 * socket from the same SYN (a syncookie ACK and the FIN behind it, validated on two CPUs)
 * is named too, as a duplicate.
 */
#ifndef SYNTWIN_LABELS_H
#define SYNTWIN_LABELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flow.h"
#include "registry.h"

#define LABELS_RECENT 4096

struct label {
	struct capture_key flow;	/* (flow.h) s* sent the SYN; its seq is not used */
	bool has_isn;
	uint32_t isn;
	uint64_t t_ns;			/* given at (CLOCK_MONOTONIC); 0: not known */
	uint64_t index, seed;
	char gen[GEN_NAME_MAX], knobs[208];
	struct label *next;		/* (table use) */
};

struct labels {
	struct label **bucket;
	size_t nbuckets, live;
	struct label recent[LABELS_RECENT];	/* taken, newest at recent_next - 1 */
	size_t recent_next, recent_n;
};

int labels_init(struct labels *t, size_t nbuckets);
void labels_free(struct labels *t);
/* Keeps a copy of @l. Returns 0, or -1 out of memory. */
int labels_put(struct labels *t, const struct label *l);
/*
 * Takes the label of a connection whose SYN had @flow and, if @has_isn, ISN @isn: a label with
 * that ISN first, else one of the flow given without an ISN: the newest given before
 * @before_ns (when the SYN's first copy arrived; 0: unknown), or else the oldest. Without a
 * live label, a recently taken one with the same flow and ISN (*@dup set). Returns 0 with @out
 * filled, or -1.
 */
int labels_take(struct labels *t, const struct capture_key *flow, bool has_isn, uint32_t isn,
		uint64_t before_ns, struct label *out, bool *dup);
/* The live label labels_take() would take, left in place, or NULL. */
const struct label *labels_peek(const struct labels *t, const struct capture_key *flow,
				bool has_isn, uint32_t isn, uint64_t before_ns);

#endif
