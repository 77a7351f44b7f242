/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One run of syntwin-server: everything its stages share, in one place. The loop (server.c)
 * moves events and accepted sockets; each connection goes one way through the stages:
 *
 *   gather (gather.c)        the witness's copies + the generator's label -> struct observation
 *   judge  (judge/)          the observation -> a verdict; the run-level rules at the end
 *   record (record/)         the record, its fingerprints, the statistics and summary.json
 *
 * connection.c walks each kind of connection through them (a passive socket, an active
 * record, a SYN given up on, a capture left at the end); memory.c gathers the memory
 * follower's end-of-run findings for the judge.
 */
#ifndef SYNTWIN_RUN_H
#define SYNTWIN_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "capture_client.h"
#include "classify.h"
#include "keyset.h"
#include "labels.h"
#include "options.h"
#include "points.h"
#include "saved_syn_mem.h"
#include "summary.h"
#include "witness_features.h"
#include "writer.h"

#define ENV_MAX_ADDRS 32

/* The follower's objects still allocated at the end of the run (memory.c): each is judged
 * once, on its flow's record (an abandoned request) or as a leak of its own. */
struct live_obj {
	uint64_t addr;
	struct mem_obj o;
	bool judged;
};

struct run {
	struct opts o;
	const struct plan *plan;
	struct capture_client cc;	/* the witness */
	struct witness_features features;	/* what the witness has of the kernel */
	struct saved_syn_mem *mem;	/* its memory follower */
	struct record_writer out;	/* the records */
	struct points points;		/* the capture points beside tc (--capture-points) */
	struct run_stats st;
	/* the receiver's facts for the IPv4 option model (classify.h) */
	struct ipv4_env env;
	uint32_t env_addrs[ENV_MAX_ADDRS];
	unsigned int synack_retries;	/* the server netns's net.ipv4.tcp_synack_retries */
	bool wire_faults;		/* --netem: late copies and answers are expected */
	/* What the generators said about each connection before making it (labels.h). */
	struct labels labels;
	/* The flows of connections judged bpf-missing (their capture's binding was lost): a
	 * capture of one of them left in the flow map at the end belongs to that verdict. */
	struct labels missing_flows;
	/* The labels of socket connections whose connect() failed in the client, set aside by
	 * flow: their SYN's capture is judged at the end with its own label, and a later
	 * connection that reuses the port cannot take it. */
	struct labels failed_labels;
	/* With --netem: the capture key of every connection judged with a socket. */
	struct keyset judged_keys;
	/* The capture key of every connection judged syncookie on its own proof: a later child
	 * of the same SYN (a copy of its cookie ACK) is tied to it. */
	struct keyset cookie_keys;
	/* The 4-tuples (ISN 0) of the passive connections judged so far: a SYN that reopens one
	 * may be answered from TIME_WAIT, without a cookie (judge.h: flow_reused). */
	struct keyset passive_flows;
	/* The plan's forced-syncookie window of socket connections (numbers), never the kernel's. */
	uint64_t cookie_at, cookie_tail;
	struct live_obj *live;
	size_t nlive;
	uint64_t rng;			/* the small-buffer draws of unlabelled connections */
};

/* connection.c: one connection each, gather -> judge -> record. */
void passive_socket(struct run *R, int fd, int family, int mode);
/* The generators' sink (events.h): a label, an active record, a failure, a SYN given up. */
int generator_message(void *run, const struct gen_event *e);
/* At the end: every capture no socket took (capture_each_unbound() callback). */
int judge_left(const struct capture_key *k, const struct capture_rec *r, void *run);

/* memory.c */
void mem_collect(struct run *R);
const char *leaked_site(struct run *R, const struct capture_key *k, char *buf, size_t len);
void judge_leaks(struct run *R);
void mem_forget(struct run *R);

#endif
