/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The socket-knob generator as a module of an event loop: N seeded connections spread over the
 * server's four listeners (IPv4/IPv6 x TCP_SAVE_SYN 1/2), each with kernel-built SYNs shaped by
 * the socket-knob matrix (knobs.h), --parallel K of them in flight. Each socket is made in the
 * client netns (an fd kept for it; the caller's own netns is returned to at once), so the
 * generator runs inside syntwin-server's loop: its labels and active records are handed to the
 * server's handler in memory (the sink). syntwin-client only counts what a selection makes
 * (sock_gen_count()).
 *
 * The loop's part is sock_gen_ops (generator.h): step after each round (it starts what may
 * start), event for each epoll event of one of its SOCK_GEN_MAX_PARALLEL slots.
 */
#ifndef SYNTWIN_SOCK_GEN_H
#define SYNTWIN_SOCK_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "events.h"
#include "knobs.h"
#include "rerun.h"

#define SOCK_GEN_MAX_PARALLEL 64
#define SOCK_GEN_PORT_SPAN 20000

struct sock_gen_opts {
	uint64_t n, seed, small, parallel, cookie_tail;
	int64_t cookie_at;	/* first connection with syncookies forced; -1: the last cookie_tail */
	int64_t test_reset;	/* TEST ONLY: the connection that waits for its reset; -1 none */
	const char *netns, *s4, *s6, *rerun, *shard;
	bool count;		/* print how many connections the selection makes, and exit */
	const struct knob_mix *mix;
	bool active;
};


struct sock_gen_slot {
	int fd;
	bool check;		/* the small-buffer check of the active read, drawn at start */
	bool awaiting_reset;	/* TEST ONLY: established, waiting for the server's reset */
	uint64_t i, deadline_ms;
	struct knobs k;
	char desc[208];
	struct capture_key flow; /* the address and port it is bound to and the server's, kept
				  * from the start: a socket reset or failed may have lost its
				  * port since */
};

struct sock_gen {
	struct sock_gen_opts o;
	gen_sink sink;		/* where its events go (events.h) */
	void *ctx;
	int ep;
	uint32_t tag;		/* slot j's epoll data.u32 is tag + j */
	int ns_client, ns_server, ns_home;
	uint64_t rng, next, sysctls_at;	/* next: the next connection of the sequence */
	struct knobs k;
	bool cookies;
	struct rerun_set only;
	struct sock_gen_slot slots[SOCK_GEN_MAX_PARALLEL];
	int cur_sysctl[4];
	/* failed: connections whose connect() failed, each reported to the sink, which judges
	 * it; errors: the generator's own (a message not delivered, a socket not made) */
	uint64_t sent, failed, made, errors;
	uint8_t port_used[SOCK_GEN_PORT_SPAN];
};

/* The defaults (1000 connections, seed 1, netns "client", the default mix). */
void sock_gen_opts_init(struct sock_gen_opts *o);
/* Option --@name: a flag (active, count). Returns true if it is one of them (and sets it). */
bool sock_gen_flag(struct sock_gen_opts *o, const char *name);
/* Option --@name @val. Returns 1 taken, 0 not one of the generator's, -1 bad value (@err). */
int sock_gen_opt(struct sock_gen_opts *o, const char *name, const char *val, char *err,
		 size_t len);
/* After the last option: the syncookie phase's place. Returns 0, or -1 (@err). */
int sock_gen_opts_check(struct sock_gen_opts *o, char *err, size_t len);
extern const char sock_gen_usage[];

/* The selection of @o (--rerun, --shard) into @only. Returns 0, or -1 (printed). */
int sock_gen_selection(const struct sock_gen_opts *o, struct rerun_set *only);
/* How many connections the selection (--rerun, --shard) makes. Returns 0, or -1 (printed). */
int sock_gen_count(const struct sock_gen_opts *o, uint64_t *count);

#endif
