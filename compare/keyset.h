/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A set of capture keys (flow + ISN, exactly as the witness keys a capture): the connections
 * judged with a socket, so that a copy of one of their SYNs (or SYN-ACKs) that the wire
 * delivered after the judgement is known for what it is. Open addressing, grows as it fills.
 */
#ifndef SYNTWIN_KEYSET_H
#define SYNTWIN_KEYSET_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#include "capture.h"

struct keyset {
	struct capture_key *slot;
	bool *used;
	size_t cap, n;
};

/* Adds @k (once). Returns 0, or -1 out of memory (the set is unchanged). */
int keyset_add(struct keyset *s, const struct capture_key *k);
bool keyset_has(const struct keyset *s, const struct capture_key *k);
/* The key of @s with @k's flow and an ISN at most @below under @k's (the nearest), in @found.
 * Returns how far under (0..@below), or -1 if there is none. */
int keyset_find_below(const struct keyset *s, const struct capture_key *k, unsigned int below,
		      struct capture_key *found);
void keyset_free(struct keyset *s);
/* The key of the SYN that SYN-ACK record @r answers: @r's flow reversed, the ISN its
 * acknowledgment number less one. Returns 0, or -1 if @r is no SYN-ACK with whole headers. */
int synack_answers(const struct capture_rec *r, struct capture_key *syn);
/*
 * Is @r (with a faulty wire) a SYN-ACK no socket took (every copy dropped by the client's
 * kernel, none saved) that answers a SYN of @judged, acknowledging its ISN: the server's answer
 * to a duplicate of that SYN the wire delivered after the first connection was gone (a new
 * request, so a new ISN)? Not a connection of its own: there is no saved copy to judge.
 */
bool late_answer(const struct capture_rec *r, const struct keyset *judged);

#endif
