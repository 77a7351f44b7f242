// SPDX-License-Identifier: GPL-2.0
/*
 * Planned handshakes (syntwin-crafted --held-back H --abandoned A --dup-synack D), each with an
 * outcome fixed in advance that the judge must prove from the witness's evidence:
 *   held-back       the first SYN-ACK is held back and the SYN retransmitted into its live
 *                   request, then the handshake completes: the kernel must keep the first copy;
 *   abandon-rst     SYN, SYN-ACK, then an RST from the peer: the request ends;
 *   abandon-expire  SYN, SYN-ACK, nothing more: the request expires (tcp_synack_retries);
 *   abandon-close   SYNs to listeners of this process, closed while the requests are pending:
 *                   each request dies on its first timer, before any retransmission;
 *   dup-synack      active: a socket of this process connects to the peer, which answers with
 *                   a SYN-ACK and, after the socket's ACK, with that SYN-ACK again (IP ID and
 *                   TSval moved on) before TCP_SAVED_SYN is read: the first must be the one saved.
 * Passive flows are labelled before their SYN (the server judges their captures); each
 * dup-synack socket sends its record (the SYN-ACK its kernel saved) like syntwin-client does.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mono_time.h"
#include "net_helpers.h"
#include "rng.h"
#include "topology.h"
#include "tun_peer.h"

#define PLAN_SPORT 58000	/* above the profile run's ports (30000 + 28000) */
#define CLOSE_PORT TOPO_CLOSE_PORT	/* abandon-close listeners: mode 1, and mode 2 on the next */
#define DUP_PEER_PORT TOPO_DUP_PEER_PORT
/* A request's first timer fires 1 s (TCP_TIMEOUT_INIT) after its SYN-ACK: the listeners of an
 * abandon-close group are closed well before, or the plan failed. */
#define CLOSE_BEFORE_MS 800

enum plan_kind { PLAN_HELD_BACK, PLAN_ABANDON_RST, PLAN_ABANDON_EXPIRE, PLAN_ABANDON_CLOSE,
		 PLAN_DUP_SYNACK };
static const char *const plan_gen[] = { "held-back", "abandon-rst", "abandon-expire",
					"abandon-close", "dup-synack" };

/* A Linux-like SYN with timestamps, TSval @tsval: MSS, SACK-permitted, TS, NOP, WS 7. */
static void plan_shape(int family, uint32_t tsval, uint16_t ipid, struct syn_shape *s)
{
	static const uint8_t opt[20] = { 2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0, 0, 0,
					 0, 0, 0, 0, 1, 3, 3, 7 };

	*s = (struct syn_shape){ .family = family, .ttl = 64, .df = 1, .win = 64240, .ipid = ipid,
				 .flow = ipid, .flags = 0x02, .tcpopt_len = sizeof(opt) };
	memcpy(s->tcpopt, opt, sizeof(opt));
	s->tcpopt[8] = (uint8_t)(tsval >> 24);
	s->tcpopt[9] = (uint8_t)(tsval >> 16);
	s->tcpopt[10] = (uint8_t)(tsval >> 8);
	s->tcpopt[11] = (uint8_t)tsval;
	snprintf(s->name, sizeof(s->name), "plan/linux-ts");
}

static int plan_write(const struct syn_shape *s, const struct flow *f, uint32_t isn)
{
	uint8_t pkt[CRAFT_MAX];
	size_t len = craft_syn(s, f, isn, pkt);

	return dev_write(pkt, len) == (ssize_t)len ? 0 : -1;
}

/*
 * One planned passive handshake @k of @kind: the SYN; its SYN-ACK read and held back (never
 * answered). held-back: the SYN again (a retransmission: IP ID, flow label and TSval moved on),
 * which reaches the live request; its second SYN-ACK is answered and the connection made.
 * abandon-rst: an RST (seq ISN + 1) ends the request. abandon-expire and abandon-close: nothing
 * more. Returns 0, or -1 on a local error or a missing answer.
 */
static int plan_one(enum plan_kind kind, uint64_t k, uint64_t *rng)
{
	int family = k % 2 ? 6 : 4;
	uint16_t sport = (uint16_t)(PLAN_SPORT + k);
	uint16_t dport = (uint16_t)((kind == PLAN_ABANDON_CLOSE ? CLOSE_PORT : TOPO_PORT_BASE) + (k / 2) % 2);
	uint32_t isn = (uint32_t)rng_next(rng), tsval = (uint32_t)rng_next(rng) >> 1;
	struct active_msg m = { .index = k, .seed = run_seed };
	struct syn_shape s;
	struct flow f;
	struct seg sa;
	uint8_t pkt[CRAFT_MAX];
	size_t n;

	plan_shape(family, tsval, (uint16_t)(k * 7 + 1), &s);
	f = flow_of(&s, sport, dport);
	snprintf(m.gen, sizeof(m.gen), "%s", plan_gen[kind]);
	snprintf(m.knobs, sizeof(m.knobs), "%s", s.name);
	port_tsval[sport] = tsval + 1;
	if (tell_flow(CLIENT_GEN, family, sport, dport, isn, &m) || plan_write(&s, &f, isn))
		return -1;
	if (!pump(3000, sport, isn, &sa))
		return -1;
	if (kind == PLAN_ABANDON_RST) {
		n = craft_segment(&s, &f, 0x04, isn + 1, 0, 0, 0, pkt);
		return dev_write(pkt, n) == (ssize_t)n ? 0 : -1;
	}
	if (kind != PLAN_HELD_BACK)
		return 0;
	plan_shape(family, tsval + 1, (uint16_t)(k * 7 + 2), &s);
	if (plan_write(&s, &f, isn) || !pump(3000, sport, isn, &sa))
		return -1;
	n = craft_segment(&s, &f, 0x10, isn + 1, sa.seq + 1, tsval + 2, sa.has_ts ? sa.tsval : 0,
			  pkt);
	if (dev_write(pkt, n) != (ssize_t)n)
		return -1;
	note_open(sport);
	return 0;
}

/* The abandon-close listeners: IPv4 and IPv6, TCP_SAVE_SYN 1 on CLOSE_PORT, 2 on the next. */
static int close_listeners_open(int fd[4])
{
	for (int i = 0; i < 4; i++) {
		fd[i] = start_listener(i % 2 ? AF_INET6 : AF_INET, i % 2 ? TOPO_TUN_SELF6 : TOPO_TUN_SELF4,
				       (uint16_t)(CLOSE_PORT + i / 2), i / 2 + 1, 16);
		if (fd[i] < 0) {
			while (i-- > 0)
				close(fd[i]);
			return -1;
		}
	}
	return 0;
}

/* --- dup-synack ------------------------------------------------------------------------ */

struct from_port {
	uint16_t port;
	uint32_t ack;
};

static bool is_syn_from(const struct seg *g, const void *arg)
{
	return g->sport == ((const struct from_port *)arg)->port && (g->flags & 0x12) == 0x02;
}

static bool is_ack_from(const struct seg *g, const void *arg)
{
	const struct from_port *w = arg;

	return g->sport == w->port && (g->flags & 0x17) == 0x10 && g->ack == w->ack;
}

/* Our socket of dup-synack @k: TCP_SAVE_SYN @mode, connecting (non-blocking) to the peer. */
static int dup_socket(int af, int mode, uint16_t *lport)
{
	char self[INET6_ADDRSTRLEN], peer[INET6_ADDRSTRLEN];
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd = socket(af, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	inet_ntop(af, af == AF_INET ? (const void *)self4 : self6, self, sizeof(self));
	inet_ntop(af, af == AF_INET ? (const void *)peer4 : peer6, peer, sizeof(peer));
	if (fd < 0 || setsockopt(fd, IPPROTO_TCP, TCP_SAVE_SYN, &mode, sizeof(mode))) {
		log_err("dup-synack socket");
		goto fail;
	}
	sl = make_sockaddr(af, self, 0, &ss);
	if (bind(fd, (struct sockaddr *)&ss, sl)) {
		log_err("dup-synack bind %s", self);
		goto fail;
	}
	*lport = socket_port(fd);
	sl = make_sockaddr(af, peer, DUP_PEER_PORT, &ss);
	if (connect(fd, (struct sockaddr *)&ss, sl) == 0 || errno == EINPROGRESS)
		return fd;
	log_err("dup-synack connect %s", peer);
fail:
	if (fd >= 0)
		close(fd);
	return -1;
}

/* The SYN-ACK of @k answering @syn, with IP ID and TSval moved on by @again. */
static int dup_write_synack(uint64_t k, const struct seg *syn, uint32_t isn, uint32_t tsval,
			    int again)
{
	struct syn_shape s;
	struct flow f;
	uint8_t pkt[CRAFT_MAX];
	size_t n;

	plan_shape(syn->family, tsval + (uint32_t)again, (uint16_t)(k * 7 + 1 + again), &s);
	s.flags = 0x12;
	for (int b = 0; b < 4; b++) /* TSecr: the socket's SYN's TSval */
		s.tcpopt[12 + b] = syn->has_ts ? (uint8_t)(syn->tsval >> (24 - 8 * b)) : 0;
	f = flow_of(&s, DUP_PEER_PORT, syn->sport);
	n = craft_synack(&s, &f, isn, syn->seq + 1, pkt);
	port_tsval[DUP_PEER_PORT] = tsval + (uint32_t)again;
	return dev_write(pkt, n) == (ssize_t)n ? 0 : -1;
}

/* The record of dup-synack @k: the SYN-ACK headers its kernel saved, for the server. */
static int dup_send_record(uint64_t k, int fd, int af, int mode)
{
	struct active_msg m = { .kind = ACTIVE_RECORD, .family = af, .mode = mode, .index = k,
				.seed = run_seed };
	socklen_t cl = sizeof(m.cookie);
	size_t need = 0;

	if (getsockopt(fd, SOL_SOCKET, SO_COOKIE, &m.cookie, &cl))
		return -1;
	socket_addr(fd, 0, m.client, &m.client_port);
	socket_addr(fd, 1, m.server, &m.server_port);
	snprintf(m.gen, sizeof(m.gen), "%s", plan_gen[PLAN_DUP_SYNACK]);
	snprintf(m.knobs, sizeof(m.knobs), "plan/linux-ts synack");
	m.native_len = read_saved_syn(fd, m.native, sizeof(m.native), &need);
	return send(ufd, &m, sizeof(m), 0) == sizeof(m) ? 0 : -1;
}

/*
 * Dup-synack @k: our SYN read from the device; a SYN-ACK; the socket's ACK awaited; the SYN-ACK
 * again; the kernel's answer to it (a challenge ACK) awaited a moment, so the duplicate was
 * processed before the read; then the record, and an RST close. 0, or -1 (printed).
 */
static int dup_one(uint64_t k, uint64_t *rng, uint64_t *unanswered)
{
	int af = k % 2 ? AF_INET6 : AF_INET, mode = (int)(k / 2) % 2 + 1, fd, rc = -1;
	uint32_t isn = (uint32_t)rng_next(rng), tsval = (uint32_t)rng_next(rng) >> 1;
	struct linger lin = { .l_onoff = 1, .l_linger = 0 };
	struct from_port w = { 0 };
	struct seg syn, ack;

	fd = dup_socket(af, mode, &w.port);
	if (fd < 0)
		return -1;
	w.ack = isn + 1;
	if (!pump_until(3000, is_syn_from, &w, &syn))
		fprintf(stderr, "syntwin-crafted: dup-synack %llu: no SYN from port %u\n",
			(unsigned long long)k, w.port);
	else if (dup_write_synack(k, &syn, isn, tsval, 0) || !pump_until(3000, is_ack_from, &w, &ack))
		fprintf(stderr, "syntwin-crafted: dup-synack %llu: the handshake did not complete\n",
			(unsigned long long)k);
	else if (dup_write_synack(k, &syn, isn, tsval, 1))
		log_err("dup-synack %llu: write the second SYN-ACK", (unsigned long long)k);
	else
		rc = 0;
	if (!rc) {
		/* no answer is the kernel's business (the judge's), not a failure here */
		*unanswered += !pump_until(1000, is_ack_from, &w, &ack);
		rc = dup_send_record(k, fd, af, mode);
		if (rc)
			log_err("dup-synack %llu: sending its record", (unsigned long long)k);
	}
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lin, sizeof(lin));
	close(fd);
	return rc;
}

static int dup_run(uint64_t n, uint64_t *rng, uint64_t *bad)
{
	struct active_msg done = { .kind = ACTIVE_DONE };
	uint64_t unanswered = 0;

	for (uint64_t k = 0; k < n; k++) {
		if (dup_one(k, rng, &unanswered))
			(*bad)++;
		else
			done.count++;
	}
	if (n && send(ufd, &done, sizeof(done), 0) != sizeof(done)) {
		log_err("sending the dup-synack summary");
		(*bad)++;
	}
	return (int)unanswered;
}

/* --- the plan -------------------------------------------------------------------------- */

/* Abandoned handshake @j (0-based): in groups of four (both families, both listener modes),
 * reset, left to expire, listener closed, and again. */
static enum plan_kind abandon_kind(uint64_t j)
{
	static const enum plan_kind kinds[3] = { PLAN_ABANDON_RST, PLAN_ABANDON_EXPIRE,
						 PLAN_ABANDON_CLOSE };

	return kinds[(j / 4) % 3];
}

/* Passive handshake @i of the plan, in its group: abandon-close groups open their listeners
 * before the first and close them after the last. */
static int plan_passive(const struct planned *p, uint64_t i, uint64_t *rng, int lfd[4],
			uint64_t *t0)
{
	uint64_t j = i - p->held_back;
	enum plan_kind kind = i < p->held_back ? PLAN_HELD_BACK : abandon_kind(j);
	bool first = kind == PLAN_ABANDON_CLOSE && j % 4 == 0;
	bool last = kind == PLAN_ABANDON_CLOSE && (j % 4 == 3 || j + 1 == p->abandoned);
	int rc;

	if (first) {
		if (close_listeners_open(lfd))
			return -1;
		*t0 = mono_ms();
	}
	rc = plan_one(kind, i, rng);
	if (rc)
		fprintf(stderr, "syntwin-crafted: planned %s handshake %llu (port %llu) failed\n",
			plan_gen[kind], (unsigned long long)i, (unsigned long long)(PLAN_SPORT + i));
	if (last) {
		uint64_t ms = mono_ms() - *t0;

		for (int l = 0; l < 4; l++)
			if (lfd[l] >= 0)
				close(lfd[l]);
		lfd[0] = lfd[1] = lfd[2] = lfd[3] = -1;
		if (ms > CLOSE_BEFORE_MS) {
			fprintf(stderr, "syntwin-crafted: abandon-close: the listeners closed %llu ms "
				"after the group's first SYN (plan: under %d ms, before any request's "
				"first timer)\n", (unsigned long long)ms, CLOSE_BEFORE_MS);
			rc = -1;
		}
	}
	return rc;
}

int plan_run(const struct planned *p, uint64_t seed)
{
	uint64_t rng = seed, bad = 0, t0 = 0;
	int lfd[4] = { -1, -1, -1, -1 }, unanswered;

	for (uint64_t i = 0; i < p->held_back + p->abandoned; i++)
		bad += plan_passive(p, i, &rng, lfd, &t0) != 0;
	unanswered = dup_run(p->dup_synack, &rng, &bad);
	pump_closes(1500); /* FINs of the held-back connections */
	printf("planned: %llu held-back SYN-ACKs (the SYN retransmitted into its request), %llu "
	       "abandoned handshakes, %llu duplicate SYN-ACKs (%d not answered), %llu failed\n",
	       (unsigned long long)p->held_back, (unsigned long long)p->abandoned,
	       (unsigned long long)p->dup_synack, unanswered, (unsigned long long)bad);
	return bad ? 1 : 0;
}
