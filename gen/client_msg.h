/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the generators tell syntwin-server's handler, in memory (generators.h: every generator
 * runs in the server's own event loop):
 *  - GEN, before each connect(): which generator made the connection from which source port,
 *    its index and its knob values or profile, so every record names how its SYN was made;
 *  - RECORD, after it (the active direction): the SYN-ACK headers the client's kernel saved
 *    (TCP_SAVE_SYN before connect(), kernel-series/0002) with the socket cookie; the server
 *    compares them with the witness's capture like a passive connection;
 *  - DONE at the end, with the number of RECORDs sent;
 *  - GAVE_UP, when no SYN-ACK came for a SYN in the generator's wait: the server judges that
 *    SYN's capture then (unbound.h) instead of waiting for a connection that will not come;
 *  - FAILED, when a kernel socket's connect() failed: its label is set aside for its SYN's
 *    capture (judged at the end), and the error counted.
 * GEN and GAVE_UP name the flow as the witness keys it: both addresses and ports, and the ISN
 * where the generator chose it (crafted and replayed SYNs; has_isn 0 for kernel sockets).
 */
#ifndef SYNTWIN_CLIENT_MSG_H
#define SYNTWIN_CLIENT_MSG_H

#include <stdint.h>

#define SYNTWIN_MD5_KEY "syntwin-md5-key" /* TCP_MD5SIG key of the MD5 source addresses */

enum active_kind {
	ACTIVE_RECORD = 1,	/* one connected socket */
	ACTIVE_DONE = 2,	/* the client run is over; count = records it sent */
	CLIENT_GEN = 3,		/* a connection is about to be made from client_port */
	CLIENT_GAVE_UP = 4,	/* no SYN-ACK came for this flow: the generator stopped waiting */
	CLIENT_FAILED = 5,	/* the kernel socket's connect() failed (count: its errno): its
				 * label leaves the flow, so a later connection reusing the port
				 * cannot take it */
};

struct active_msg {
	uint32_t kind;
	uint32_t count;
	uint64_t index;		/* connection number within its generator run */
	uint64_t seed;		/* the generator run's seed: (gen, seed, index) remakes the SYN */
	char gen[16];		/* "sockets", "crafted", ... */
	char knobs[208];	/* knob values or profile name */
	uint64_t cookie;	/* SO_COOKIE of the client socket */
	int32_t family, mode, native_len;
	uint16_t server_port, client_port;
	char server[46], client[46];
	char small[160];	/* read_native_checked()'s verdict on the small-buffer contract */
	uint32_t isn;		/* GEN, GAVE_UP: the SYN's ISN, if has_isn */
	uint8_t has_isn;
	uint64_t t_ns;		/* GEN: CLOCK_MONOTONIC when sent, before the SYN (0: not given) */
	uint8_t native[1024];
};

/* Sets TCP_MD5SIG with SYNTWIN_MD5_KEY for @peer (numeric) on @fd. Returns 0, or -1 (printed). */
int md5_key_for(int fd, int family, const char *peer);

/* Fills @m's flow: the client's (SYN sender's) and the server's address and port, numeric. */
void client_msg_flow(struct active_msg *m, int family, const void *client, uint16_t client_port,
		     const void *server, uint16_t server_port);


#endif /* SYNTWIN_CLIENT_MSG_H */
