/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The judge: one pure function from one observation (what the kernel returned, the witness's
 * copies and their evidence, the run's evidence, the label) to a verdict and its reason. Every
 * rule that decides a verdict on one connection is reached from judge(), every rule decided once
 * for the run from run_verdicts.h; the comparator gathers the observation and records the
 * result, nothing more. The rules themselves, by part:
 *
 *   classify.c    the bytes: identical, ipv4-option-rewrite, vlan-offload, syncookie,
 *                 native-missing, bpf-missing, differ (with the field named)
 *   which_copy.c  the copy the kernel had to keep and its allocation: syn-retransmit
 *   unbound.c     a SYN no socket took: rejected-by-kernel, dropped-by-kernel, unbound
 *                 (judge.c: syncookie-no-child, a SYN answered with a cookie whose ACK
 *                 never came)
 *   abandoned.c   a planned abandoned handshake: abandoned
 *   readers.c     the kernel's in-kernel readers of the copy against its userspace read:
 *                 reader-differs
 *   judge.c       what holds whatever the bytes say: a copy the witness cut short proves
 *                 nothing (capture-truncated), a syncookie only where the plan
 *                 forced them, and one wherever it did (cookie-not-due, cookie-missing),
 *                 a must-drop SYN a socket took, the
 *                 small-buffer contract, witness-map-eviction (not a verdict on the
 *                 kernel: the run becomes partial), syncookie-repeat (a second child
 *                 of a syncookie connection's SYN, made by a later copy of its cookie ACK),
 *                 and a connection that failed after its SYN-ACK (connection-failed unless
 *                 the wire shows the server's reset)
 */
#ifndef SYNTWIN_JUDGE_H
#define SYNTWIN_JUDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "classify.h"
#include "readers.h"
#include "registry.h"
#include "tree_facts.h"
#include "which_copy.h"

struct observation {
	/* The kernel's side. */
	bool socket;			/* a socket was accepted (passive) or connected (active)
					 * for it; false: a SYN no socket took */
	bool active;			/* a SYN-ACK saved by a connecting socket */
	int mode;			/* TCP_SAVE_SYN of the listener or the socket: 1 or 2 */
	const uint8_t *native;		/* TCP_SAVED_SYN's bytes, NULL when it returned none */
	size_t native_len;
	const char *small_buffer;	/* NULL or "": not checked; "ok"; or how the read with too
					 * small a buffer broke the contract (native_read.h) */
	int client_errno;		/* active: the connection failed after its SYN-ACK was
					 * saved (its socket's error), 0 if it stands */
	/* What the kernel's in-kernel readers returned of the socket's copy when sockops bound it
	 * (TCP_BPF_SYN, _IP, _MAC); NULL: nothing was bound. */
	const struct syn_reads *reads;
	/* The witness's side: its copies in arrival order, the last the one it bound (n 0: no
	 * capture at all). */
	const struct copy_view *copy;
	int n;
	bool cut;			/* more copies came than it keeps */
	bool cut_saved;			/* ... and one it did not keep had a saved-SYN
					 * allocation (CAP_F_CUT_SAVED) */
	unsigned int copies;		/* copies it counted, kept or not (255: that many or
					 * more) */
	bool syncookie_proven;		/* the flow's ACK validated as a cookie (CAP_F_COOKIE_ACK);
					 * for a socket (and cookie_child) the proof holds only
					 * when its own ISN is that cookie: */
	uint32_t cookie_isn;		/* the cookie validated (the ACK's ack_seq - 1) */
	uint32_t socket_isn;		/* the socket's own ISN (sockops, at ESTABLISHED) */
	bool request_seen;		/* a SYN-ACK answering it left a request socket
					 * (CAP_F_SYNACK_REQ): the kernel made a request, which
					 * saves a copy of its own, for a copy of the SYN */
	bool synack_cookie;		/* a SYN-ACK answering it carried a cookie, with no request
					 * socket for the flow (CAP_F_SYNACK_COOKIE) */
	bool have_tsecr;		/* its answer had a timestamp (a SYN-ACK to a SYN, the
					 * client's first ACK to a SYN-ACK): its TSecr */
	uint32_t tsecr;
	bool mem_followed;		/* the memory follower ran: allocations are evidence */
	bool parse_err;			/* the witness found the TCP header lengths inconsistent */
	unsigned int drops;		/* copies the kernel dropped, and the first one's reason */
	const char *drop_reason;
	bool no_drop_reasons;		/* the witness had none on this kernel (a kfree_skb
					 * without: witness_features.h): no drop is explained */
	bool rst_seen;			/* its sender reset the flow */
	unsigned int synacks;		/* SYN-ACKs seen answering it */
	const char *leaked_at;		/* its saved copy is still allocated: the call site */
	/* A passive socket the witness has no SYN for, but a cookie ACK it validated at tc after
	 * the SYN's capture was taken (CAP_F_NO_SYN): a later copy of that ACK made it. */
	bool cookie_child;
	bool cookie_conn_judged;	/* ... and an earlier connection of the same flow was
					 * judged a syncookie connection on its own proof, with
					 * an ISN cookie_seq_offset (0..3) below the seq - 1 of
					 * the segment that made this one */
	int cookie_seq_offset;
	/* The run's evidence. */
	bool evicted;			/* the witness's maps evicted records not yet put down to
					 * eviction (only asked when there is no capture) */
	uint32_t map_entries;		/* their size, for the detail */
	unsigned int synack_retries;	/* the server netns's net.ipv4.tcp_synack_retries */
	int listener_mode;		/* a SYN no socket took: its listener's TCP_SAVE_SYN */
	bool to_listener;		/* ... and whether its destination port is one of the
					 * plan's listeners (a SYN with ACK is refused there) */
	uint32_t isn;			/* a SYN no socket took and the witness never saw: its ISN */
	const struct ipv4_env *env;	/* the receiver, for ipv4-option-rewrite */
	const struct tree_facts *tree;	/* the kernel tree the run built: the drop rules */
	/* The label: what its generator declares of the SYN (gen/registry.h; the judge never
	 * reads the generator's name but in details), its name (NULL: no label), what it made. */
	enum gen_declares declares;
	const char *gen;
	const char *knobs;
	/* The plan's word on syncookies for it, never the kernel's: made while the plan forced
	 * them (tcp_syncookies=2, plan.json's syncookie_at/syncookie_tail), and whether a passive
	 * connection of its 4-tuple was judged before (a SYN that reopens a 4-tuple the server
	 * holds in TIME_WAIT is answered from it with an ISN of its own: no cookie). */
	bool cookie_due;
	bool flow_reused;
};

/* Fills @res; returns 1 if the verdict is a failure (unexplained), else 0. */
int judge(const struct observation *ob, struct compare_result *res);

/* The abandoned handshake a declaration plans (enum abandon_kind), or -1 for none. */
int abandon_kind_of(enum gen_declares d);

#endif
