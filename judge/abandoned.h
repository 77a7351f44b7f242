/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verdict on a planned abandoned handshake (gen/planned.c --abandoned): a SYN whose request
 * the peer reset (abandon-rst), left to expire (abandon-expire), or lost with its listener,
 * closed while the request was pending (abandon-close). Explained "abandoned" only when the
 * witness proves all of it: a copy of the SYN reached TCP and the kernel saved it (one
 * allocation of the right size, the memory follower's), and no other copy (one the kernel
 * dropped, a later one, one the witness did not keep: judge_one_request()); the request's end
 * as planned: the RST
 * seen; or no RST and exactly 1 + tcp_synack_retries SYN-ACKs, an expired request's whole life;
 * or no RST and exactly one SYN-ACK (the listener closed before the request's first timer,
 * which then drops it without retransmitting); and the saved copy freed by the end of the run.
 * Anything else is "differ", naming what is missing.
 */
#ifndef SYNTWIN_ABANDONED_H
#define SYNTWIN_ABANDONED_H

#include <stdbool.h>

#include "classify.h"
#include "which_copy.h"

enum abandon_kind { ABANDON_RST, ABANDON_EXPIRE, ABANDON_CLOSE };

struct abandoned_input {
	enum abandon_kind kind;
	const struct copy_view *copy;	/* the witness's copies, arrival order */
	int n;
	bool cut;			/* more copies came than it keeps ... */
	bool cut_saved;			/* ... one of which had a saved-SYN allocation */
	unsigned int copies;		/* the copies it counted (255: that many or more) */
	unsigned int drops;		/* the copies the kernel dropped, kept or not */
	int mode;			/* the listener's TCP_SAVE_SYN */
	bool rst_seen;			/* CAP_F_RST */
	unsigned int synacks;		/* SYN-ACKs the server sent for it */
	unsigned int synack_retries;	/* the server netns's net.ipv4.tcp_synack_retries */
	const char *leaked_at;		/* the saved copy is still allocated: its call site */
};

/* Fills @res; returns 1 if unexplained, else 0. */
int judge_abandoned(const struct abandoned_input *in, struct compare_result *res);

#endif
