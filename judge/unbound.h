/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verdict on a SYN the witness captured that no socket took: dropped by the kernel for a
 * documented validity check that the captured bytes confirm (explained), or anything else
 * (unexplained, verdict "unbound", the flow and what is known named in the detail).
 */
#ifndef SYNTWIN_UNBOUND_H
#define SYNTWIN_UNBOUND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "classify.h"
#include "registry.h"
#include "tree_facts.h"

struct unbound_input {
	const uint8_t *bytes;		/* the capture: MAC .. end of TCP header */
	size_t len, mac_len;
	bool parse_err;			/* the witness found doff < 5 or past the packet */
	unsigned int drops;		/* copies the kernel dropped (kfree_skb), 0 if none was seen */
	unsigned int copies;		/* copies the witness saw, kept or not (UINT_MAX: 255 or
					 * more, its count saturated) */
	/* What says the kernel took it after all: a drop is explained only without these. */
	unsigned int synacks;		/* SYN-ACKs answering it, seen at the server's egress */
	bool saved;			/* a saved-SYN allocation tied to a copy, or one leaked */
	const char *drop_reason;	/* the first one's enum skb_drop_reason name without its
					 * SKB_DROP_REASON_ prefix, or NULL */
	bool no_drop_reasons;		/* the witness has no drop reasons on this kernel */
	/* What its generator declared (gen/registry.h): must drop, must connect (every other
	 * declaration), or nothing (a replayed capture, no label). */
	enum gen_declares declared;
	const struct tree_facts *tree;	/* the kernel tree the run built: which rules hold */
	bool to_listener;		/* its destination port is a listener's (the plan's) */
};

/* Fills @out; returns 1 if unexplained, else 0. */
int judge_unbound(const struct unbound_input *in, struct compare_result *out);

/* The validity check that reason @name stands for, confirmed in the bytes: a description, or
 * NULL where the bytes do not show it (or the reason is no validity check). */
const char *drop_evidence(const struct unbound_input *in, const char *name);

/* The listener path's drop rule that a SYN's own bytes (@len, @mac_len of them link layer)
 * break on kernel tree @tree -- "syn-fin", "syn-rst", "md5-unexpected", ... -- or NULL: a SYN
 * a correct kernel of that tree never makes a connection of. */
const char *listener_drop_rule(const uint8_t *bytes, size_t len, size_t mac_len,
			       const struct tree_facts *tree);

#endif
