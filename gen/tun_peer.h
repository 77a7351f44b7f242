/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tun peer's parts share (gen/tun_peer.c: the device, reading segments;
 * gen/crafted_gen.c and gen/planned.c: the server's loop modules that drive it): one device fd
 * in the server netns, and where labels go (the server's handler).
 */
#ifndef SYNTWIN_TUN_PEER_H
#define SYNTWIN_TUN_PEER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "events.h"
#include "craft.h"
#include "profile.h"
#include "walk.h"

extern int tun;			/* the tun (or tap) device */
extern int tap_mode;		/* tun is a tap: frames carry an Ethernet header */
/* Where labels go: the server's handler (set before the peer starts). */
extern gen_sink peer_sink;
extern void *peer_sink_ctx;
/*
 * The witness's word on a SYN the peer waits on (set by syntwin-server, NULL elsewhere): true
 * when the witness captured SYN (@f, ISN @isn) and saw the kernel drop every copy of it (its
 * kfree_skb): no SYN-ACK can come, so the peer gives it up at once instead of waiting it out.
 */
extern bool (*peer_drop_probe)(void *ctx, const struct flow *f, uint32_t isn);
extern void *peer_drop_ctx;
extern uint64_t run_seed;	/* this run's --seed, sent with each label */
extern uint32_t port_tsval[65536]; /* each flow's last TSval, by the peer's port (PAWS) */
/* the peer's and the guest's addresses on tun0 or tap0 (common/topology.h), set in main */
extern uint8_t peer4[4], self4[4], peer6[16], self6[16];

/* One segment the guest sent (read from the device): what its TCP header says. */
struct seg {
	int family;
	uint16_t sport, dport;
	uint32_t seq, ack, tsval;
	uint8_t flags;
	bool has_ts;
};

/* The addresses of tun0 (or with @tap, tap0) and their peer's. Returns 0, or -1 (printed). */
int peer_addresses(int tap);
/* Attaches to the persistent device @dev (tap_mode: a tap), non-blocking; for a tap also reads
 * its MAC. Returns the fd, or -1 (printed). */
int open_tun(const char *dev);
/* tun0 (in this process's netns: the server's) as the peer's device, on epoll @ep with data
 * @tag: a loop module's start (planned.c, reset_before_read.c). Returns 0, or -1 (printed). */
int tun_on_loop(int ep, uint32_t tag);
/* ... and closed again (which takes it off the loop). */
void tun_off_loop(void);
/* Writes an IP packet to the device (framed for tap). Returns its length, or -1. */
ssize_t dev_write(const uint8_t *pkt, size_t len);
/* The flow of shape @s from the peer's port @sport to the guest's @dport. */
struct flow flow_of(const struct syn_shape *s, uint16_t sport, uint16_t dport);
/* Tells the server flow @sport -> @dport (the peer's addresses of tun0 to the guest's) with ISN
 * @isn is one of ours (@kind: EV_LABEL before the SYN, EV_GAVE_UP when no SYN-ACK came); @e
 * carries gen, knobs, index. 0 or -1. */
int tell_flow(enum gen_event_kind kind, int family, uint16_t sport, uint16_t dport, uint32_t isn,
	      struct gen_event *e);
/* Hands @e as it is (an active record, a summary) to the sink. 0 or -1. */
int tell_event(const struct gen_event *e);
/* The label of a crafted (@fuzz: fuzzed) SYN of shape @s, index @i, before it is written. */
int tell_shape(const struct syn_shape *s, bool fuzz, uint16_t sport, uint16_t dport, uint32_t isn,
	       uint64_t i);
/* The SYN's own timestamp value (0 if none; the last one if several, as the kernel keeps). */
uint32_t shape_tsval(const struct syn_shape *s);
/* Reads what the device has now, answering FINs with RST+ACK; 1 when a segment @want accepts
 * came (in *@got; the rest stays unread), else 0. */
int pump_ready(bool (*want)(const struct seg *g, const void *arg), const void *arg,
	       struct seg *got);
/* The SYN-ACK answering our SYN from @sport with ISN @isn (is_synack_of()'s @arg). */
struct synack_of {
	uint16_t sport;
	uint32_t isn;
};
bool is_synack_of(const struct seg *g, const void *arg);

/* One SYN to write: its bytes (already addressed, checksums right or wrong on purpose), flow,
 * ISN and TSval; @expect_drop: no answer is awaited; @rexmit_of: the shape whose copies follow
 * it (rexmit=N), in @rexmit_flow. */
struct syn_out {
	const uint8_t *pkt;
	size_t len;
	int family;
	uint16_t sport, dport;
	uint32_t isn, tsval;
	const char *name;
	bool expect_drop;
	const struct syn_shape *rexmit_of;
	const struct flow *rexmit_flow;
};
/* The walk's SYN @ws as a syn_out: its bytes crafted into @pkt (CRAFT_MAX), its flow in @f; both,
 * and @ws, must outlive @o. */
void syn_out_of_walk(const struct walk_syn *ws, struct flow *f, uint8_t *pkt,
		     struct syn_out *o);
/* Writes the SYN (and its copies). Returns 0 or -1. */
int syn_write(const struct syn_out *o);
/* No SYN-ACK came (@dropped: none can, the witness saw the kernel drop the SYN): said (the
 * first five), and the server told (CLIENT_GAVE_UP). */
void syn_gave_up(const struct syn_out *o, bool dropped);
/* Did the witness see the kernel drop every copy of SYN @o (peer_drop_probe)? */
bool syn_dropped(const struct syn_out *o);
/* The SYN-ACK @sa came: the final ACK written. Returns 0 or -1. */
int syn_answer(const struct syn_out *o, const struct seg *sa);
/* The handshake from our port @sport is complete: its server side will close it (FIN or RST). */
void note_open(uint16_t sport);
/* Completed handshakes whose server side has not closed yet. */
uint64_t peer_open_count(void);

#endif
