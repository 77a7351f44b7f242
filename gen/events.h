/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the generators tell syntwin-server, in memory: every generator runs in the server's own
 * event loop (generators.h) and hands each event to its sink (generator.h), which is done with
 * it when the call returns (the pointers in it are the generator's).
 *  - EV_LABEL, before each SYN: which generator made the connection, its index, seed and knobs
 *    or profile, so every record names how its SYN was made; with the time it was given;
 *  - EV_RECORD, after a connection (the active direction): the SYN-ACK headers the client's
 *    kernel saved (TCP_SAVE_SYN before connect(), kernel-series/0002) with the socket's
 *    cookie; the server compares them with the witness's capture like a passive connection;
 *  - EV_DONE at the end of a generator's active records, with their number;
 *  - EV_GAVE_UP, when no SYN-ACK came for a SYN in the generator's wait: the server judges
 *    that SYN's capture then (unbound.h) instead of waiting for a connection that will not come;
 *  - EV_FAILED, when a kernel socket's connect() failed: its label is set aside for its SYN's
 *    capture (judged at the end), and the error counted.
 * Each names the flow as the witness keys it (flow.h): the client (the SYN's sender) in saddr
 * and sport, and, where the generator chose it (crafted and replayed SYNs), the ISN.
 */
#ifndef SYNTWIN_EVENTS_H
#define SYNTWIN_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "flow.h"

enum gen_event_kind {
	EV_LABEL = 1,
	EV_RECORD,
	EV_DONE,
	EV_GAVE_UP,
	EV_FAILED,
};

struct gen_event {
	enum gen_event_kind kind;
	struct capture_key flow;	/* client -> server; seq: the SYN's ISN, if has_isn */
	bool has_isn;
	uint64_t index;			/* connection number within its generator run */
	uint64_t seed;			/* the generator run's seed: (gen, seed, index) remakes it */
	uint64_t t_ns;			/* EV_LABEL: CLOCK_MONOTONIC when given (0: not given) */
	const char *gen;		/* "sockets", "crafted", ... (registry.h) */
	const char *knobs;		/* knob values or profile name */
	/* EV_RECORD */
	uint64_t cookie;		/* SO_COOKIE of the client socket */
	int mode;			/* its TCP_SAVE_SYN */
	const uint8_t *native;		/* the SYN-ACK headers it saved */
	int native_len;			/* ... their length, -1 too long, 0 none */
	const char *small;		/* read_native_checked()'s verdict on the small-buffer read */
	int err;			/* EV_RECORD, EV_FAILED: the socket's error, 0 none */
	uint64_t count;			/* EV_DONE: the records sent */
};

typedef int (*gen_sink)(void *ctx, const struct gen_event *e);

#endif
