// SPDX-License-Identifier: GPL-2.0
/*
 * The tun peer (tun_peer.h): a small userspace TCP peer on tun0 (or tap0) in the server netns.
 * It writes SYNs built byte by byte (what it writes arrives as ingress on the device, where the
 * witness watches), reads the SYN-ACK, sends the final ACK (with a timestamp echo when the
 * SYN-ACK had one) so the server accepts a real connection, and answers the server's FIN with
 * RST+ACK (no TIME_WAIT). Before each SYN the server is told the flow, its ISN and what made it
 * (events.h). syntwin-server drives it from its event loop (gen/planned.c, the planned
 * handshakes; gen/crafted_gen.c, the crafted phase and replays).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "events.h"
#include "craft.h"
#include "hex.h"
#include "net_helpers.h"
#include "inet_csum.h"
#include "parse_num.h"
#include "pcap_syns.h"
#include "profile.h"
#include "rerun.h"
#include "rng.h"
#include "tcp_opts.h"
#include "topology.h"
#include "tun_peer.h"

int tun = -1;
uint32_t port_tsval[65536]; /* each flow's SYN timestamp, by our port (PAWS) */
gen_sink peer_sink;
bool (*peer_drop_probe)(void *ctx, const struct flow *f, uint32_t isn);
void *peer_drop_ctx;
void *peer_sink_ctx;

/* tun0's peer and local addresses; with --tap, tap0's (set by peer_addresses()) */
uint8_t peer4[4], self4[4], peer6[16], self6[16];
/* --tap: frames carry an Ethernet header; the topology has a permanent neighbour entry for the
 * peer's MAC, so the kernel answers without ARP or ND */
int tap_mode;
static uint8_t tap_mac[6];
static uint8_t peer_mac[6];

/* The device's addresses from common/topology.h. Returns 0, or -1 if one does not parse. */
int peer_addresses(int tap)
{
	int ok = inet_pton(AF_INET, tap ? TOPO_TAP_PEER4 : TOPO_TUN_PEER4, peer4) == 1 &&
		 inet_pton(AF_INET, tap ? TOPO_TAP_SELF4 : TOPO_TUN_SELF4, self4) == 1 &&
		 inet_pton(AF_INET6, tap ? TOPO_TAP_PEER6 : TOPO_TUN_PEER6, peer6) == 1 &&
		 inet_pton(AF_INET6, tap ? TOPO_TAP_SELF6 : TOPO_TUN_SELF6, self6) == 1 &&
		 sscanf(TOPO_TAP_PEER_MAC, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &peer_mac[0], &peer_mac[1],
			&peer_mac[2], &peer_mac[3], &peer_mac[4], &peer_mac[5]) == 6;

	if (!ok)
		fprintf(stderr, "syntwin: tun peer: common/topology.h has an address that does not parse\n");
	return ok ? 0 : -1;
}

/* Writes an IP packet to the device, framed for tap. */
ssize_t dev_write(const uint8_t *pkt, size_t len)
{
	uint8_t frame[14 + 2048];

	if (!tap_mode)
		return write(tun, pkt, len);
	if (len > sizeof(frame) - 14)
		return -1;
	memcpy(frame, tap_mac, 6);
	memcpy(frame + 6, peer_mac, 6);
	frame[12] = pkt[0] >> 4 == 4 ? 0x08 : 0x86;
	frame[13] = pkt[0] >> 4 == 4 ? 0x00 : 0xdd;
	memcpy(frame + 14, pkt, len);
	return write(tun, frame, len + 14) == (ssize_t)(len + 14) ? (ssize_t)len : -1;
}

int open_tun(const char *dev)
{
	struct ifreq ifr = { .ifr_flags = (tap_mode ? IFF_TAP : IFF_TUN) | IFF_NO_PI };
	int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NONBLOCK), s;

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	if (fd < 0 || ioctl(fd, TUNSETIFF, &ifr)) {
		log_err("attach to %s", dev);
		return -1;
	}
	if (tap_mode) {
		s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (s < 0 || ioctl(s, SIOCGIFHWADDR, &ifr)) {
			log_err("MAC address of %s", dev);
			return -1;
		}
		memcpy(tap_mac, ifr.ifr_hwaddr.sa_data, 6);
		close(s);
	}
	return fd;
}

int tun_on_loop(int ep, uint32_t tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = tag };

	tap_mode = 0;
	if (peer_addresses(0))
		return -1;
	tun = open_tun("tun0");
	if (tun < 0)
		return -1;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, tun, &ev)) {
		log_err("epoll_ctl tun0");
		close(tun);
		tun = -1;
		return -1;
	}
	return 0;
}

void tun_off_loop(void)
{
	if (tun >= 0)
		close(tun); /* (which takes it off the loop) */
	tun = -1;
}

uint64_t run_seed;

int tell_flow(enum gen_event_kind kind, int family, uint16_t sport, uint16_t dport, uint32_t isn,
	      struct gen_event *e)
{
	e->kind = kind;
	e->has_isn = true;
	flow_set(&e->flow, family == 4 ? AF_INET : AF_INET6, family == 4 ? peer4 : peer6, sport,
		 family == 4 ? (const void *)self4 : self6, dport, isn);
	return tell_event(e);
}

int tell_event(const struct gen_event *e)
{
	return peer_sink ? peer_sink(peer_sink_ctx, e) : -1;
}

int tell_shape(const struct syn_shape *s, bool fuzz, uint16_t sport, uint16_t dport, uint32_t isn,
	       uint64_t i)
{
	struct gen_event e = { .kind = EV_LABEL, .index = i, .seed = run_seed, .has_isn = true,
			       .gen = s->bad ? "rejected" : fuzz ? "fuzz" :
				      tap_mode ? "crafted-tap" : "crafted" };
	char knobs[208];

	if (fuzz) {
		char hex[2 * sizeof(s->tcpopt) + 1];

		hex_encode(s->tcpopt, s->tcpopt_len, hex);
		snprintf(knobs, sizeof(knobs), "%s ttl=%d win=%u tos=0x%02x tcpopt=%s", s->name,
			 s->ttl, s->win, s->tos, hex);
	}
	else
		snprintf(knobs, sizeof(knobs), "%s", s->name);
	e.knobs = knobs;
	/* the flow as the SYN carries it (a shape may name its own addresses: src=, dst=) */
	struct flow f = flow_of(s, sport, dport);

	flow_set(&e.flow, s->family == 4 ? AF_INET : AF_INET6, f.src, sport, f.dst, dport, isn);
	return tell_event(&e);
}

static int parse_seg(const uint8_t *p, size_t n, struct seg *s)
{
	size_t off;
	const uint8_t *t;

	if (n >= 20 && p[0] >> 4 == 4 && p[9] == 6) {
		s->family = 4;
		off = (p[0] & 0x0f) * 4u;
	} else if (n >= 40 && p[0] >> 4 == 6 && p[6] == 6) {
		s->family = 6;
		off = 40;
	} else {
		return -1;
	}
	if (off + 20 > n)
		return -1;
	t = p + off;
	s->sport = (uint16_t)(t[0] << 8 | t[1]);
	s->dport = (uint16_t)(t[2] << 8 | t[3]);
	s->seq = (uint32_t)t[4] << 24 | t[5] << 16 | t[6] << 8 | t[7];
	s->ack = (uint32_t)t[8] << 24 | t[9] << 16 | t[10] << 8 | t[11];
	s->flags = t[13];
	size_t end = off + (t[12] >> 4) * 4u;

	if (end > n)
		end = n;
	s->has_ts = end > off + 20 && tcp_last_tsval(t + 20, end - off - 20, &s->tsval);
	return 0;
}

/* The SYN's own timestamp value (0 if it has none; the last one if it has several, as the
 * kernel keeps the last): later segments must not go below it, or PAWS drops them. */
uint32_t shape_tsval(const struct syn_shape *s)
{
	uint32_t v = 0;

	tcp_last_tsval(s->tcpopt, s->tcpopt_len, &v);
	return v;
}

struct flow flow_of(const struct syn_shape *s, uint16_t sport, uint16_t dport)
{
	struct flow f = { .family = s->family, .sport = sport, .dport = dport };
	size_t n = s->family == 4 ? 4 : 16;

	memcpy(f.src, s->addr_family[0] ? s->addr[0] : s->family == 4 ? peer4 : peer6, n);
	memcpy(f.dst, s->addr_family[1] ? s->addr[1] : s->family == 4 ? self4 : self6, n);
	return f;
}

/*
 * Answers a FIN from the server (for any of our flows) with RST+ACK, plainly: the server's
 * socket then closes without TIME_WAIT, so a later SYN from the same port (the ports wrap after
 * 28,000-30,000 flows, well inside TIME_WAIT's 60 s on a long run) meets no TIME_WAIT socket
 * that would answer it with an ACK instead of a SYN-ACK.
 */
static void answer_fin(const struct seg *g)
{
	static const struct syn_shape plain[2] = { { .family = 4, .ttl = 64, .df = 1 },
						   { .family = 6, .ttl = 64 } };
	const struct syn_shape *s = &plain[g->family == 6];
	uint8_t pkt[CRAFT_MAX];
	struct flow f = flow_of(s, g->dport, g->sport);
	size_t n = craft_segment(s, &f, 0x14, g->ack, g->seq + 1, port_tsval[g->dport] + 2,
				 g->has_ts ? g->tsval : 0, pkt);

	if (dev_write(pkt, n) != (ssize_t)n)
		log_err("write RST+ACK");
}

/* Completed handshakes whose server side has not closed yet, by our port: the end of a run waits
 * for exactly these, not for a fixed time (1.5 s per generator run, a quarter of a run's
 * crafted phase, when it did). */
static uint8_t open_port[65536];
static uint64_t open_count;

void note_open(uint16_t sport)
{
	open_count += !open_port[sport];
	open_port[sport] = 1;
}

uint64_t peer_open_count(void)
{
	return open_count;
}

/* A FIN or RST to our port @port: that connection's server side has closed. */
static void note_closed(uint16_t port)
{
	open_count -= open_port[port];
	open_port[port] = 0;
}

/* Reads what tun0 has for up to @ms: FINs are answered; returns 1 when a segment @want accepts
 * is seen, filling @got. */
int pump_ready(bool (*want)(const struct seg *g, const void *arg), const void *arg,
	       struct seg *got)
{
	uint8_t buf[2048];
	ssize_t n;
	struct seg g;

	while ((n = read(tun, buf, sizeof(buf))) > 0) {
		const uint8_t *ip = buf;

		if (tap_mode) {
			if (n < 14 || (memcmp(buf + 12, "\x08\x00", 2) &&
				       memcmp(buf + 12, "\x86\xdd", 2)))
				continue;
			ip += 14;
			n -= 14;
		}
		if (parse_seg(ip, (size_t)n, &g))
			continue;
		if (g.flags & 0x05) /* FIN, RST */
			note_closed(g.dport);
		if (want && want(&g, arg)) {
			*got = g;
			return 1;
		}
		if (g.flags & 0x01)
			answer_fin(&g);
	}
	return 0;
}


bool is_synack_of(const struct seg *g, const void *arg)
{
	const struct synack_of *w = arg;

	return (g->flags & 0x12) == 0x12 && g->dport == w->sport && g->ack == w->isn + 1;
}


void syn_out_of_walk(const struct walk_syn *ws, struct flow *f, uint8_t *pkt,
		     struct syn_out *o)
{
	const struct syn_shape *s = &ws->s;

	*f = flow_of(s, ws->sport, ws->dport);
	*o = (struct syn_out){ .pkt = pkt, .len = craft_syn(s, f, ws->isn, pkt),
			       .family = s->family, .sport = ws->sport, .dport = ws->dport,
			       .isn = ws->isn, .tsval = shape_tsval(s), .name = s->name,
			       .expect_drop = s->bad, .rexmit_of = s->rexmit ? s : NULL,
			       .rexmit_flow = f };
}

int syn_write(const struct syn_out *o)
{
	port_tsval[o->sport] = o->tsval;
	if (dev_write(o->pkt, o->len) != (ssize_t)o->len) {
		log_err("write SYN %s", o->name);
		return -1;
	}
	/* rexmit=N: the same SYN again before any answer, as a retransmission would be */
	for (int k = 1; o->rexmit_of && k <= o->rexmit_of->rexmit; k++) {
		struct syn_shape c = *o->rexmit_of;
		uint8_t again[CRAFT_MAX];
		size_t m;

		c.ipid = (uint16_t)(c.ipid + k);
		c.flow = (c.flow + (uint32_t)k) & 0xfffff;
		m = craft_syn(&c, o->rexmit_flow, o->isn, again);
		if (dev_write(again, m) != (ssize_t)m) {
			log_err("write SYN %s again", o->name);
			return -1;
		}
	}
	return 0;
}

void syn_gave_up(const struct syn_out *o, bool dropped)
{
	static unsigned int said;
	struct gen_event e = { 0 };

	if (said++ < 5)
		fprintf(stderr, "syntwin: tun peer: no SYN-ACK for %s (port %u)%s\n", o->name,
			o->sport, dropped ? ": the kernel dropped it, given up at once" : "");
	/* the server judges this SYN now rather than wait for its connection */
	if (tell_flow(EV_GAVE_UP, o->family, o->sport, o->dport, o->isn, &e))
		log_err("telling the server we gave up on %s", o->name);
}

bool syn_dropped(const struct syn_out *o)
{
	/* the addresses from the packet itself (an IP packet: the tap's framing comes later) */
	struct flow f = { .family = o->family, .sport = o->sport, .dport = o->dport };
	size_t alen = o->family == 4 ? 4 : 16, at = o->family == 4 ? 12 : 8;

	/* (a SYN sent with retransmitted copies behind it: a copy the witness has not seen yet
	 * may still make the request, so it is waited out) */
	if (!peer_drop_probe || o->rexmit_of || o->len < at + 2 * alen)
		return false;
	memcpy(f.src, o->pkt + at, alen);
	memcpy(f.dst, o->pkt + at + alen, alen);
	return peer_drop_probe(peer_drop_ctx, &f, o->isn);
}

int syn_answer(const struct syn_out *o, const struct seg *sa)
{
	static const struct syn_shape plain[2] = { { .family = 4, .ttl = 64, .df = 1 },
						   { .family = 6, .ttl = 64 } };
	const struct syn_shape *ps = &plain[o->family == 6];
	struct flow f = flow_of(ps, o->sport, o->dport);
	uint8_t ack[CRAFT_MAX];
	size_t n = craft_segment(ps, &f, 0x10, o->isn + 1, sa->seq + 1, o->tsval + 1,
				 sa->has_ts ? sa->tsval : 0, ack);

	if (dev_write(ack, n) != (ssize_t)n) {
		log_err("write ACK %s", o->name);
		return -1;
	}
	note_open(o->sport);
	return 0;
}

