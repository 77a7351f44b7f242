/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which copy: the verdict on a connection whose SYN (or SYN-ACK) the witness saw more than once,
 * and on what the kernel allocated for it. The rule, in one place:
 *
 *   The saved copy must be the copy that created the request (passive) or moved the socket to
 *   ESTABLISHED (active): the last copy, in arrival order up to the connection, that the kernel
 *   did not drop. Every copy that reaches a live request is dropped (tcp_v4_rcv() /
 *   tcp_v6_rcv(): tcp_check_req() answers a retransmitted SYN and returns NULL, then
 *   discard_and_relse frees it with kfree_skb), and so is one reaching an established socket
 *   (tcp_validate_incoming()), so each copy not dropped created a request, or established the
 *   socket; the last of them made this connection (an earlier request may have ended).
 *   Cross-check, where the server's SYN-ACK had timestamps: its TSecr echoes the TSval of the
 *   copy that created the request (req->ts_recent; tcp_check_req() does not update it for a
 *   retransmitted SYN). The two proofs must agree.
 *
 *   Memory: the kernel made exactly one saved-SYN allocation while processing that copy, of
 *   SAVED_SYN_HDR + the bytes TCP_SAVED_SYN returned.
 *
 * Any other copy saved, even one the witness also saw, is "differ" with both copies named.
 */
#ifndef SYNTWIN_WHICH_COPY_H
#define SYNTWIN_WHICH_COPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "classify.h"

/* One copy the witness kept, with its fate. */
struct copy_view {
	const uint8_t *data;	/* MAC .. end of TCP header */
	size_t len, mac_len;
	size_t net_len, tcp_len;	/* the witness's split of it: network, TCP header */
	bool dropped;		/* the kernel dropped it (kfree_skb) */
	const char *drop_reason;	/* its reason's name, or NULL */
	bool saved;		/* the kernel allocated a saved copy while processing it */
	bool saved_again;	/* ... more than once */
	uint32_t saved_size;	/* requested bytes, with saved */
	bool truncated;		/* cut at CAPTURE_MAX (CAP_F_TRUNCATED): @len is not the whole */
};

struct copies_input {
	const struct compare_input *in;	/* the kernel's bytes and the context; its bpf fields
					 * are ignored (each copy is compared in turn) */
	const struct copy_view *copy;	/* in arrival order; the last is the one bound */
	int n;
	bool cut;		/* more copies came than the witness keeps */
	bool cut_saved;		/* ... and one it did not keep had a saved-SYN allocation */
	unsigned int copies;	/* ... how many it counted (255: that many or more) */
	unsigned int drops;	/* the copies the kernel dropped, kept or not */
	bool active;		/* the copies are SYN-ACKs (the client saved one) */
	bool have_tsecr;	/* the answer had a timestamp: the server's last SYN-ACK to this
				 * SYN, the client's first ACK to this SYN-ACK */
	uint32_t tsecr;
	bool mem_followed;	/* the memory follower ran: check the allocation */
	bool cookie_made;	/* the socket is a proven syncookie child (the cookie tc validated
				 * is its own ISN): no request's copy is its own */
	bool request_seen;	/* ... and the flow had a request socket (CAP_F_SYNACK_REQ) */
};

/* The copy that made the connection (the last not dropped), or -1 if every copy was. */
int copy_that_created(const struct copy_view *copy, int n);
/* The TSval of a copy's timestamp option (the last one, as the kernel keeps); false if none. */
bool copy_tsval(const struct copy_view *c, uint32_t *tsval);

/* Fills @res; returns 1 if unexplained, else 0. */
int judge_copies(const struct copies_input *ci, struct compare_result *res);
/* What proves copy @c (copy_that_created()) the one that made a request, beyond its own
 * allocation: with copies cut, the drops (as judge_copies() has it); no allocation on a copy
 * the witness did not keep; none on a copy the kernel dropped or on one after @c. For the
 * abandoned handshakes' judge (abandoned.c). Fills @res and returns 1 if not, else 0. */
int judge_one_request(const struct copies_input *ci, int c, struct compare_result *res);

#endif
