// SPDX-License-Identifier: GPL-2.0
/*
 * syntwin-crafted (guest, server netns): a small userspace TCP peer on tun0. It writes SYNs built
 * byte by byte from the shapes of gen/profiles/NAME.syn (what it writes arrives as ingress on tun0,
 * where the witness watches), reads the SYN-ACK, sends the final ACK (with a timestamp echo when
 * the SYN-ACK had one) so the server accepts a real connection, and answers the server's FIN with
 * RST+ACK (no TIME_WAIT). Shapes marked bad= are SYNs the kernel must drop: they are sent once
 * each and no answer is awaited. Before each SYN the server is told the source port and the shape's name
 * (client_msg.h): "crafted" for shapes that must connect, "rejected" for those that must not.
 * With --replay FILE it sends instead every SYN of a capture file (pcap_syns.h), rewriting only
 * addresses, ports and checksums (and the IP length, as the payload is not sent): "replay".
 * usage: syntwin-crafted --connections N [--seed S] [--profiles DIR] [--dev tun0] [--fuzz]
 *        syntwin-crafted --tap --dev tap0 ...   (Ethernet frames on a tap device instead)
 *        syntwin-crafted --replay FILE [--count]
 *        syntwin-crafted --held-back H --abandoned A --dup-synack D [--seed S]
 *                                                  (planned handshakes: gen/planned.c)
 * With --rerun JSONL only the connections that were not identical in that earlier run are made
 * (their indexes, or packet numbers for a replay); --count prints how many would connect.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "client_msg.h"
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

#define MAX_SHAPES 512
#define SPORT_BASE TOPO_CRAFTED_SPORT_BASE

static struct syn_shape shapes[MAX_SHAPES];
static size_t nshapes;
int tun = -1, ufd = -1;
static uint64_t made, failed, rejected_sent;
uint32_t port_tsval[65536]; /* each flow's SYN timestamp, by our port (PAWS) */
static struct rerun_set only;
static const char *rerun_file;

/* tun0's peer and local addresses; with --tap, tap0's (set by peer_addresses()) */
uint8_t peer4[4], self4[4], peer6[16], self6[16];
/* --tap: frames carry an Ethernet header; the topology has a permanent neighbour entry for the
 * peer's MAC, so the kernel answers without ARP or ND */
static int tap_mode;
static uint8_t tap_mac[6];
static uint8_t peer_mac[6];

/* The device's addresses from common/topology.h. Returns 0, or -1 if one does not parse. */
static int peer_addresses(int tap)
{
	int ok = inet_pton(AF_INET, tap ? TOPO_TAP_PEER4 : TOPO_TUN_PEER4, peer4) == 1 &&
		 inet_pton(AF_INET, tap ? TOPO_TAP_SELF4 : TOPO_TUN_SELF4, self4) == 1 &&
		 inet_pton(AF_INET6, tap ? TOPO_TAP_PEER6 : TOPO_TUN_PEER6, peer6) == 1 &&
		 inet_pton(AF_INET6, tap ? TOPO_TAP_SELF6 : TOPO_TUN_SELF6, self6) == 1 &&
		 sscanf(TOPO_TAP_PEER_MAC, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &peer_mac[0], &peer_mac[1],
			&peer_mac[2], &peer_mac[3], &peer_mac[4], &peer_mac[5]) == 6;

	if (!ok)
		fprintf(stderr, "syntwin-crafted: common/topology.h has an address that does not parse\n");
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

static int load_profiles(const char *dir)
{
	struct dirent **ents;
	char path[512], err[300];
	int n = scandir(dir, &ents, NULL, alphasort), rc = 0;

	if (n < 0) {
		log_err("profiles directory %s", dir);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		size_t l = strlen(ents[i]->d_name);

		if (!rc && l > 4 && !strcmp(ents[i]->d_name + l - 4, ".syn")) {
			snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
			if (profile_load(path, shapes, MAX_SHAPES, &nshapes, err, sizeof(err))) {
				fprintf(stderr, "syntwin-crafted: %s\n", err);
				rc = -1;
			}
		}
		free(ents[i]);
	}
	free(ents);
	if (!rc && !nshapes) {
		fprintf(stderr, "syntwin-crafted: no shapes in %s/*.syn\n", dir);
		rc = -1;
	}
	return rc;
}

static int open_tun(const char *dev)
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

static int fuzz_mode;
uint64_t run_seed;

/* Tells the server flow @sport -> @dport with ISN @isn is one of ours (@kind: CLIENT_GEN before
 * the SYN, CLIENT_GAVE_UP when no SYN-ACK came). */
int tell_flow(int kind, int family, uint16_t sport, uint16_t dport, uint32_t isn,
	      struct active_msg *m)
{
	m->kind = (uint32_t)kind;
	m->has_isn = 1;
	m->isn = isn;
	client_msg_flow(m, family == 4 ? AF_INET : AF_INET6, family == 4 ? peer4 : peer6, sport,
			family == 4 ? (const void *)self4 : self6, dport);
	return send(ufd, m, sizeof(*m), 0) == sizeof(*m) ? 0 : -1;
}

static int tell(const struct syn_shape *s, uint16_t sport, uint16_t dport, uint32_t isn,
		uint64_t i)
{
	struct active_msg m = { .index = i };

	snprintf(m.gen, sizeof(m.gen), "%s", s->bad ? "rejected" : fuzz_mode ? "fuzz" :
					     tap_mode ? "crafted-tap" : "crafted");
	m.seed = run_seed;
	if (fuzz_mode) {
		char hex[2 * sizeof(s->tcpopt) + 1];

		hex_encode(s->tcpopt, s->tcpopt_len, hex);
		snprintf(m.knobs, sizeof(m.knobs), "%s ttl=%d win=%u tos=0x%02x tcpopt=%s", s->name,
			 s->ttl, s->win, s->tos, hex);
	}
	else
		snprintf(m.knobs, sizeof(m.knobs), "%s", s->name);
	return tell_flow(CLIENT_GEN, s->family, sport, dport, isn, &m);
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
static uint32_t shape_tsval(const struct syn_shape *s)
{
	uint32_t v = 0;

	tcp_last_tsval(s->tcpopt, s->tcpopt_len, &v);
	return v;
}

struct flow flow_of(const struct syn_shape *s, uint16_t sport, uint16_t dport)
{
	struct flow f = { .family = s->family, .sport = sport, .dport = dport };

	memcpy(f.src, s->family == 4 ? peer4 : peer6, s->family == 4 ? 4 : 16);
	memcpy(f.dst, s->family == 4 ? self4 : self6, s->family == 4 ? 4 : 16);
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

/* A FIN or RST to our port @port: that connection's server side has closed. */
static void note_closed(uint16_t port)
{
	open_count -= open_port[port];
	open_port[port] = 0;
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1000 + (t1.tv_nsec - t0->tv_nsec) / 1000000;
}

void pump_closes(int ms)
{
	struct timespec t0;
	long left;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (open_count && (left = ms - ms_since(&t0)) > 0)
		pump(left < 20 ? (int)left : 20, 0, 0, NULL);
	if (open_count)
		fprintf(stderr, "syntwin-crafted: %llu connection(s) not closed by the server in "
			"%d ms (left to the kernel)\n", (unsigned long long)open_count, ms);
}

/* Reads what tun0 has for up to @ms: FINs are answered; returns 1 when a segment @want accepts
 * is seen, filling @got. */
int pump_until(int ms, bool (*want)(const struct seg *g, const void *arg), const void *arg,
	       struct seg *got)
{
	struct pollfd p = { .fd = tun, .events = POLLIN };
	uint8_t buf[2048];
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		ssize_t n;
		struct seg g;
		long left;

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
		left = ms - ms_since(&t0);
		if (left <= 0)
			return 0;
		poll(&p, 1, (int)left);
	}
}

struct synack_of {
	uint16_t sport;
	uint32_t isn;
};

static bool is_synack_of(const struct seg *g, const void *arg)
{
	const struct synack_of *w = arg;

	return (g->flags & 0x12) == 0x12 && g->dport == w->sport && g->ack == w->isn + 1;
}

int pump(int ms, uint16_t sport, uint32_t isn, struct seg *synack)
{
	struct synack_of w = { sport, isn };

	return pump_until(ms, sport ? is_synack_of : NULL, &w, synack);
}

/*
 * Writes SYN @pkt (already addressed to @sport -> @dport, checksums right or wrong on purpose),
 * and unless @expect_drop completes the handshake. Returns 0 when it went as expected, 1 when
 * no SYN-ACK came (the server was told, CLIENT_GAVE_UP), -1 on a local error.
 */
static int one_syn(const uint8_t *pkt, size_t len, int family, uint16_t sport, uint16_t dport,
		   uint32_t isn, uint32_t tsval, const char *name, int expect_drop,
		   const struct syn_shape *rexmit_of, const struct flow *rexmit_flow)
{
	static const struct syn_shape plain[2] = { { .family = 4, .ttl = 64, .df = 1 },
						   { .family = 6, .ttl = 64 } };
	const struct syn_shape *ps = &plain[family == 6];
	struct flow f = flow_of(ps, sport, dport);
	uint8_t ack[CRAFT_MAX];
	struct seg sa;
	size_t n;

	port_tsval[sport] = tsval;
	if (dev_write(pkt, len) != (ssize_t)len) {
		log_err("write SYN %s", name);
		return -1;
	}
	/* rexmit=N: the same SYN again before any answer, as a retransmission would be */
	for (int k = 1; rexmit_of && k <= rexmit_of->rexmit; k++) {
		struct syn_shape c = *rexmit_of;
		uint8_t again[CRAFT_MAX];
		size_t m;

		c.ipid = (uint16_t)(c.ipid + k);
		c.flow = (c.flow + (uint32_t)k) & 0xfffff;
		m = craft_syn(&c, rexmit_flow, isn, again);
		if (dev_write(again, m) != (ssize_t)m) {
			log_err("write SYN %s again", name);
			return -1;
		}
	}
	if (expect_drop)
		return 0;
	if (!pump(3000, sport, isn, &sa)) {
		struct active_msg m = { 0 };

		if (failed < 5)
			fprintf(stderr, "syntwin-crafted: no SYN-ACK for %s (port %u)\n", name, sport);
		/* the server judges this SYN now rather than wait for its connection */
		if (tell_flow(CLIENT_GAVE_UP, family, sport, dport, isn, &m))
			log_err("telling the server we gave up on %s", name);
		return 1;
	}
	n = craft_segment(ps, &f, 0x10, isn + 1, sa.seq + 1, tsval + 1, sa.has_ts ? sa.tsval : 0,
			  ack);
	if (dev_write(ack, n) != (ssize_t)n) {
		log_err("write ACK %s", name);
		return -1;
	}
	note_open(sport);
	pump(0, 0, 0, &sa);
	return 0;
}

/* --- fuzz ------------------------------------------------------------------------------ */

/*
 * A mutation of @base the kernel must still accept: a new TCP option list of random legal
 * options (NOP, MSS, window scale, SACK-permitted, timestamps, unknown kinds with random data,
 * EOL with trailing bytes), padded to a multiple of 4 and at most 40 bytes, and random window,
 * TTL, DSCP, IP ID and DF. Never kind 19 (TCP-MD5: unsigned listeners drop it) or 34 (Fast Open
 * cookie). The record's knobs carry the option bytes (tell()), so it says what was sent.
 */
static void fuzz_shape(const struct syn_shape *base, uint64_t *rng, struct syn_shape *s)
{
	size_t len = 0, want = (rng_next(rng) % 11) * 4;

	*s = *base;
	s->ipopt_len = 0;
	s->next_ext = 0;
	while (len < want) {
		size_t room = want - len;
		uint8_t *o = s->tcpopt + len;
		int pick = (int)(rng_next(rng) % 7);

		if (pick == 0 || room < 2) {
			o[0] = 1, len += 1;
		} else if (pick == 1 && room >= 4) {
			o[0] = 2, o[1] = 4, o[2] = (uint8_t)(rng_next(rng) % 6 + 1),
			o[3] = (uint8_t)rng_next(rng), len += 4;
		} else if (pick == 2 && room >= 3) {
			o[0] = 3, o[1] = 3, o[2] = (uint8_t)(rng_next(rng) % 15), len += 3;
		} else if (pick == 3) {
			o[0] = 4, o[1] = 2, len += 2;
		} else if (pick == 4 && room >= 10) {
			o[0] = 8, o[1] = 10;
			for (int b = 2; b < 10; b++)
				o[b] = (uint8_t)rng_next(rng);
			len += 10;
		} else if (pick == 5) {
			size_t l = 2 + rng_next(rng) % (room - 1 < 7 ? room - 1 : 7);
			uint8_t kind;

			do
				kind = (uint8_t)(9 + rng_next(rng) % 245);
			while (kind == 19 || kind == 34 || kind == 29 || kind == 30);
			o[0] = kind, o[1] = (uint8_t)l;
			for (size_t b = 2; b < l; b++)
				o[b] = (uint8_t)rng_next(rng);
			len += l;
		} else {
			/* EOL ends the list; what follows it is padding, any value */
			o[0] = 0;
			for (size_t b = 1; b < room; b++)
				o[b] = (uint8_t)rng_next(rng);
			len = want;
		}
	}
	s->tcpopt_len = want;
	s->win = (uint16_t)rng_next(rng);
	s->ttl = (int)(1 + rng_next(rng) % 255);
	s->tos = (int)(rng_next(rng) & 0xfc);
	s->ipid = (uint16_t)rng_next(rng);
	s->df = (int)(rng_next(rng) % 2);
	snprintf(s->name, sizeof(s->name), "fuzz/%.12s:%s", strchr(base->name, '/') + 1,
		 want ? "opts" : "none");
}

/* --- replay ---------------------------------------------------------------------------- */

struct replay {
	const char *file;
	uint64_t i, sent, skipped, given_up;
	int count_only;
};

/* The capture's SYN with our addresses and ports, lengths and checksums fixed; its TS value. */
static size_t readdress(const struct pcap_syn *p, uint16_t sport, uint16_t dport, uint8_t *out,
			uint32_t *isn, uint32_t *tsval, const char **why)
{
	size_t len = p->net_len + p->tcp_len, o;
	uint8_t *tcp = out + p->net_len;
	uint16_t c;

	if (len > CRAFT_MAX) {
		*why = "headers longer than 256 bytes";
		return 0;
	}
	memcpy(out, p->ip, len);
	if (p->family == 4) {
		for (o = 20; o < p->net_len && out[o];)
			if (out[o] == 131 || out[o] == 137) {
				*why = "IPv4 source routing (the kernel drops it)";
				return 0;
			} else {
				o += out[o] == 1 ? 1 : (out[o + 1] ? out[o + 1] : p->net_len);
			}
		memcpy(out + 12, peer4, 4);
		memcpy(out + 16, self4, 4);
		out[2] = (uint8_t)(len >> 8), out[3] = (uint8_t)len;
		out[10] = out[11] = 0;
		c = csum_fold(csum_add(0, out, p->net_len));
		memcpy(out + 10, &c, 2);
	} else {
		uint8_t next = out[6];

		for (o = 40; o < p->net_len; o += (out[o + 1] + 1u) * 8u) {
			if (next == 43) {
				*why = "an IPv6 routing header";
				return 0;
			}
			next = out[o];
		}
		memcpy(out + 8, peer6, 16);
		memcpy(out + 24, self6, 16);
		out[4] = (uint8_t)((len - 40) >> 8), out[5] = (uint8_t)(len - 40);
	}
	tcp[0] = (uint8_t)(sport >> 8), tcp[1] = (uint8_t)sport;
	tcp[2] = (uint8_t)(dport >> 8), tcp[3] = (uint8_t)dport;
	tcp[16] = tcp[17] = 0;
	c = p->family == 4 ? tcp_csum4(out + 12, out + 16, tcp, p->tcp_len) :
			     tcp_csum6(out + 8, out + 24, tcp, p->tcp_len);
	memcpy(tcp + 16, &c, 2);
	*isn = (uint32_t)tcp[4] << 24 | tcp[5] << 16 | tcp[6] << 8 | tcp[7];
	*tsval = 0;
	tcp_last_tsval(tcp + 20, p->tcp_len - 20, tsval);
	return len;
}

static int replay_one(const struct pcap_syn *p, void *arg)
{
	struct replay *r = arg;
	uint16_t sport = (uint16_t)(SPORT_BASE + r->i % 30000), dport = (uint16_t)(TOPO_PORT_BASE + r->i % 2);
	struct active_msg m = { .index = p->packet };
	uint8_t pkt[CRAFT_MAX];
	uint32_t isn, tsval;
	const char *why = NULL;
	size_t len = readdress(p, sport, dport, pkt, &isn, &tsval, &why);
	char name[64];
	int rc;

	if (!len) {
		fprintf(stderr, "syntwin: %s: packet %lu: %s; skipped\n", r->file, p->packet, why);
		r->skipped++;
		return 0;
	}
	r->i++;
	if (rerun_active(&only) && !rerun_has(&only, p->packet)) {
		r->i--;
		return 0;
	}
	if (r->count_only)
		return 0;
	snprintf(name, sizeof(name), "packet %lu", p->packet);
	snprintf(m.gen, sizeof(m.gen), "replay");
	snprintf(m.knobs, sizeof(m.knobs), "%s#%lu", r->file, p->packet);
	if (tell_flow(CLIENT_GEN, p->family, sport, dport, isn, &m)) {
		log_err("telling the server about %s", name);
		return -1;
	}
	/* A replayed SYN declares nothing: one the kernel drops is given up on and judged by the
	 * server from the kernel's drop reason, not counted as a failure here. */
	rc = one_syn(pkt, len, p->family, sport, dport, isn, tsval, name, 0, NULL, NULL);
	if (rc < 0)
		failed++;
	else if (rc > 0)
		r->given_up++;
	else
		r->sent++;
	return 0;
}

/* Replays @file; with @count_only prints how many SYNs would be sent and sends none. */
static int replay(const char *file, int count_only)
{
	struct replay r = { .file = file, .count_only = count_only };
	struct pcap_syn_stats st;
	char err[512];

	if (pcap_syns_each(file, replay_one, &r, &st, err, sizeof(err))) {
		fprintf(stderr, "syntwin: %s\n", err);
		return 2;
	}
	if (count_only) {
		printf("%llu\n", (unsigned long long)r.i);
		return 0;
	}
	pump_closes(1500);
	printf("replay: %lu packets, %lu SYNs: %llu replayed, %llu got no SYN-ACK (judged by the "
	       "server), %llu skipped (%lu malformed)%s%s\n",
	       st.packets, st.syns, (unsigned long long)r.sent, (unsigned long long)r.given_up,
	       (unsigned long long)r.skipped, st.malformed, st.truncated ? "; the file is truncated" : "",
	       st.syns ? "" : "; no SYNs in this file, nothing to compare");
	return failed ? 1 : 0;
}

/*
 * The crafted or fuzzed run: @n connections, every shape that must connect taking a turn,
 * round robin, each must-drop one sent once; those the selection (--rerun, --shard) leaves out
 * are walked past, drawing what they would draw. With @dry nothing is sent: returns how many
 * connections the selection makes. Otherwise returns 0, or -1 on a failure to go on.
 */
static int64_t walk(uint64_t n, uint64_t seed, bool dry)
{
	uint64_t rng = seed, good = 0, sent_bad = 0, i = 0;
	int64_t counted = 0;

	for (size_t k = 0; k < nshapes; k++)
		good += !shapes[k].bad;
	if (!good)
		n = 0;
	for (uint64_t c = 0; c < n || (!fuzz_mode && sent_bad < nshapes - good); i++) {
		const struct syn_shape *s = &shapes[i % nshapes];
		struct syn_shape fz;

		if (fuzz_mode) {
			/* a good base shape, mutated; must-drop ones are not fuzzed */
			while (shapes[i % nshapes].bad)
				i++;
			fuzz_shape(&shapes[i % nshapes], &rng, &fz);
			s = &fz;
		}
		/* fuzz runs after the profile run: other ports, or the server's TIME_WAIT sockets of
		 * the same 4-tuples would turn some SYNs away */
		uint16_t sport = (uint16_t)((fuzz_mode ? 2000 : SPORT_BASE) + i % 28000);
		uint16_t dport = (uint16_t)(TOPO_PORT_BASE + i % 2);
		uint32_t isn = (uint32_t)rng_next(&rng);
		struct flow f = flow_of(s, sport, dport);
		uint8_t pkt[CRAFT_MAX];
		bool selected;
		size_t len;

		if (s->bad ? i >= nshapes : (c >= n || !good))
			continue;
		/* its turn is taken, whether the selection makes it or walks past it */
		if (s->bad)
			sent_bad++;
		else
			c++;
		selected = !rerun_active(&only) || rerun_has(&only, i);
		if (dry) {
			counted += selected && !s->bad;
			continue;
		}
		if (!selected)
			continue; /* walked past as the whole run does, its draws made */
		if (tell(s, sport, dport, isn, i)) {
			log_err("telling the server about %s", s->name);
			return -1;
		}
		len = craft_syn(s, &f, isn, pkt);
		if (one_syn(pkt, len, s->family, sport, dport, isn, shape_tsval(s), s->name, s->bad,
			    s->rexmit ? s : NULL, &f)) {
			failed++;
			continue;
		}
		if (s->bad)
			rejected_sent++;
		else
			made++;
	}
	return dry ? counted : 0;
}

int main(int argc, char **argv)
{
	const char *dir = "/src/gen/profiles", *dev = "tun0", *replay_file = NULL;
	int count_only = 0;
	uint64_t n = 100, seed = 1;
	struct plan pl = { 0 };
	int plan = 0;
	char err[256];

	for (int i = 1; i < argc; i += 2) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int rc = 0;

		if (!strcmp(a, "--count") || !strcmp(a, "--fuzz") || !strcmp(a, "--tap")) {
			*(a[2] == 'c' ? &count_only : a[2] == 'f' ? &fuzz_mode : &tap_mode) = 1;
			i--;
			continue;
		}
		if (!v) {
			fprintf(stderr, "syntwin-crafted: %s: missing value\n", a);
			return 2;
		}
		if (!strcmp(a, "--connections"))
			rc = parse_u64_range(a, v, 0, 1000000, &n, err, sizeof(err));
		else if (!strcmp(a, "--held-back") || !strcmp(a, "--abandoned") ||
			 !strcmp(a, "--dup-synack")) {
			plan = 1;
			rc = parse_u64_range(a, v, 0, PLAN_MAX, a[2] == 'h' ? &pl.held_back :
					     a[2] == 'a' ? &pl.abandoned : &pl.dup_synack, err,
					     sizeof(err));
		}
		else if (!strcmp(a, "--seed"))
			rc = parse_u64_range(a, v, 0, UINT64_MAX, &seed, err, sizeof(err));
		else if (!strcmp(a, "--profiles"))
			dir = v;
		else if (!strcmp(a, "--dev"))
			dev = v;
		else if (!strcmp(a, "--replay"))
			replay_file = v;
		else if (!strcmp(a, "--rerun"))
			rerun_file = v;
		else if (!strcmp(a, "--shard"))
			rc = shard_parse(v, &only, err, sizeof(err));
		else {
			fprintf(stderr, "usage: syntwin-crafted --connections N [--seed S] "
					"[--profiles DIR] [--dev tun0]\n");
			return 2;
		}
		if (rc) {
			fprintf(stderr, "syntwin-crafted: %s\n", err);
			return 2;
		}
	}
	run_seed = seed;
	if (peer_addresses(tap_mode))
		return 2;
	if (rerun_file && rerun_load(rerun_file, replay_file ? "replay" : fuzz_mode ? "fuzz" :
				     tap_mode ? "crafted-tap,rejected" : "crafted,rejected", &only))
		return 2;
	if (replay_file && count_only)
		return replay(replay_file, 1);
	if (replay_file) {
		if ((ufd = client_channel_connect()) < 0 || enter_netns("server") ||
		    (tun = open_tun(dev)) < 0)
			return 2;
		return replay(replay_file, 0);
	}
	if (count_only) {
		/* the connections the selection makes: a rerun's are the earlier run's indexes that
		 * are not must-drop; a shard's, its slice of the walk */
		int64_t cnt = 0;

		if (load_profiles(dir))
			return 2;
		if (rerun_file) {
			for (size_t j = 0; j < only.n; j++)
				cnt += rerun_has(&only, only.idx[j]) &&
				       (fuzz_mode || !shapes[only.idx[j] % nshapes].bad);
		} else {
			cnt = walk(n, seed, true);
		}
		printf("%lld\n", (long long)cnt);
		return 0;
	}
	if (plan && pl.held_back + pl.abandoned > PLAN_MAX) {
		fprintf(stderr, "syntwin-crafted: --held-back + --abandoned: at most %d\n", PLAN_MAX);
		return 2;
	}
	if (plan) {
		if ((ufd = client_channel_connect()) < 0 || enter_netns("server") ||
		    (tun = open_tun(dev)) < 0)
			return 2;
		return plan_run(&pl, seed);
	}
	if (load_profiles(dir) || (ufd = client_channel_connect()) < 0 || enter_netns("server") ||
	    (tun = open_tun(dev)) < 0)
		return 2;

	if (walk(n, seed, false) < 0)
		return 2;
	pump_closes(1500); /* the last connections' FINs */
	printf("%s: %llu connections from %zu %sshapes, %llu SYNs the kernel must drop, %llu "
	       "failed\n", fuzz_mode ? "fuzz" : "crafted", (unsigned long long)made, nshapes,
	       fuzz_mode ? "fuzzed profile " : "", (unsigned long long)rejected_sent,
	       (unsigned long long)failed);
	return failed ? 1 : 0;
}
