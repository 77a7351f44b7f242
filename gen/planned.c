// SPDX-License-Identifier: GPL-2.0
/*
 * The planned handshakes in syntwin-server's event loop (planned.h), each with an outcome
 * fixed in advance that the judge must prove from the witness's evidence:
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
 * dup-synack socket sends its record (the SYN-ACK its kernel saved) as the socket generator does.
 *
 * One handshake at a time, as a sequence of steps: a step writes what it must and either goes
 * on to the next at once or waits for one segment from the guest (a SYN-ACK of ours, the
 * socket's SYN or ACK) until a deadline; the device's readiness or the deadline moves it on.
 * Everything that can go on without waiting does so in the same call, so an abandon-close
 * group's four SYNs and its listeners' close are milliseconds apart.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mono_time.h"
#include "native_read.h"
#include "net_helpers.h"
#include "planned.h"
#include "generators.h"
#include "rng.h"
#include "topology.h"

#define PLAN_SPORT 58000	/* above the profile run's ports (30000 + 28000) */
#define CLOSE_PORT TOPO_CLOSE_PORT	/* abandon-close listeners: mode 1, and mode 2 on the next */
#define DUP_PEER_PORT TOPO_DUP_PEER_PORT
/* A request's first timer fires 1 s (TCP_TIMEOUT_INIT) after its SYN-ACK: the listeners of an
 * abandon-close group are closed well before, or the plan failed. */
#define CLOSE_BEFORE_MS 800
#define ANSWER_WAIT_MS 3000	/* for a SYN-ACK, the socket's SYN or its ACK */
#define CHALLENGE_WAIT_MS 1000	/* for the kernel's answer to the duplicate SYN-ACK */
#define CLOSES_WAIT_MS 1500

static const char *const plan_gen[] = { "held-back", "abandon-rst", "abandon-expire",
					"abandon-close", "dup-synack" };

/* The steps of a handshake: ST_BEGIN starts the next one; the others are reached when what
 * they wait for came (or, for ST_DUP_CHALLENGE, when the wait ended either way). */
enum plan_step { ST_BEGIN, ST_SYNACK, ST_SYNACK_AGAIN, ST_DUP_SYN, ST_DUP_ACK, ST_DUP_CHALLENGE,
		 ST_CLOSING, ST_DONE };

void planned_shape(int family, uint32_t tsval, uint16_t ipid, struct syn_shape *s)
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

/* A segment of ours (@flags, @seq, @ack, TSval @tsval, TSecr @tsecr) on the handshake's flow. */
static int seg_write(struct planned_gen *g, uint8_t flags, uint32_t seq, uint32_t ack,
		     uint32_t tsval, uint32_t tsecr)
{
	uint8_t pkt[CRAFT_MAX];
	size_t n = craft_segment(&g->s, &g->f, flags, seq, ack, tsval, tsecr, pkt);

	return dev_write(pkt, n) == (ssize_t)n ? 0 : -1;
}

/* Wait for a segment @want accepts (with @arg) for @ms, then step @st. */
static void wait_for(struct planned_gen *g, int st, bool (*want)(const struct seg *, const void *),
		     const void *arg, int ms)
{
	g->st = st;
	g->want = want;
	g->want_arg = arg;
	g->waiting = true;
	g->deadline_ms = mono_ms() + (uint64_t)ms;
}

/* --- passive handshakes ---------------------------------------------------------------- */

/* Abandoned handshake @j (0-based): in groups of four (both families, both listener modes),
 * reset, left to expire, listener closed, and again. */
static enum plan_kind abandon_kind(uint64_t j)
{
	static const enum plan_kind kinds[3] = { PLAN_ABANDON_RST, PLAN_ABANDON_EXPIRE,
						 PLAN_ABANDON_CLOSE };

	return kinds[(j / 4) % 3];
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

static void close_listeners(int fd[4])
{
	for (int l = 0; l < 4; l++) {
		if (fd[l] >= 0)
			close(fd[l]);
		fd[l] = -1;
	}
}

/* Is passive handshake @i the first (@first) or last of an abandon-close group? */
static bool close_group_edge(const struct planned_gen *g, uint64_t i, bool first)
{
	uint64_t j = i - g->p.held_back;

	if (i < g->p.held_back || abandon_kind(j) != PLAN_ABANDON_CLOSE)
		return false;
	return first ? j % 4 == 0 : j % 4 == 3 || j + 1 == g->p.abandoned;
}

/* Passive handshake g->i begins: (its group's listeners opened,) its label, its SYN; then its
 * SYN-ACK is awaited. Returns 0 or -1. */
static int passive_begin(struct planned_gen *g)
{
	uint64_t k = g->i, j = k - g->p.held_back;
	int family = k % 2 ? 6 : 4;
	uint16_t sport = (uint16_t)(PLAN_SPORT + k), dport;
	struct gen_event e = { .index = k, .seed = run_seed };

	g->kind = k < g->p.held_back ? PLAN_HELD_BACK : abandon_kind(j);
	dport = (uint16_t)((g->kind == PLAN_ABANDON_CLOSE ? CLOSE_PORT : TOPO_PORT_BASE) + (k / 2) % 2);
	if (close_group_edge(g, k, true)) {
		if (close_listeners_open(g->lfd))
			return -1;
		g->t0 = mono_ms();
	}
	g->isn = (uint32_t)rng_next(&g->rng);
	g->tsval = (uint32_t)rng_next(&g->rng) >> 1;
	planned_shape(family, g->tsval, (uint16_t)(k * 7 + 1), &g->s);
	g->f = flow_of(&g->s, sport, dport);
	e.gen = plan_gen[g->kind];
	e.knobs = g->s.name;
	port_tsval[sport] = g->tsval + 1;
	if (tell_flow(EV_LABEL, family, sport, dport, g->isn, &e) || plan_write(&g->s, &g->f, g->isn))
		return -1;
	g->sa_of = (struct synack_of){ sport, g->isn };
	wait_for(g, ST_SYNACK, is_synack_of, &g->sa_of, ANSWER_WAIT_MS);
	return 0;
}

/* Its SYN-ACK came (held back: never answered). abandon-rst: an RST (seq ISN + 1) ends the
 * request; held-back: the SYN again (a retransmission: IP ID, flow label and TSval moved on),
 * which reaches the live request, and its second SYN-ACK is awaited; the others: nothing more.
 * Returns 0, 1 when the handshake is over, or -1. */
static int passive_synack(struct planned_gen *g)
{
	if (g->kind == PLAN_ABANDON_RST)
		return seg_write(g, 0x04, g->isn + 1, 0, 0, 0) ? -1 : 1;
	if (g->kind != PLAN_HELD_BACK)
		return 1;
	planned_shape(g->s.family, g->tsval + 1, (uint16_t)(g->i * 7 + 2), &g->s);
	if (plan_write(&g->s, &g->f, g->isn))
		return -1;
	wait_for(g, ST_SYNACK_AGAIN, is_synack_of, &g->sa_of, ANSWER_WAIT_MS);
	return 0;
}

/* The held-back handshake's second SYN-ACK came: the ACK makes the connection. 1 or -1. */
static int passive_complete(struct planned_gen *g)
{
	if (seg_write(g, 0x10, g->isn + 1, g->got.seq + 1, g->tsval + 2,
		      g->got.has_ts ? g->got.tsval : 0))
		return -1;
	note_open(g->sa_of.sport);
	return 1;
}

/* --- dup-synack ------------------------------------------------------------------------ */

static bool is_syn_from(const struct seg *s, const void *arg)
{
	const struct planned_gen *g = arg;

	return s->sport == g->w_port && (s->flags & 0x12) == 0x02;
}

static bool is_ack_from(const struct seg *s, const void *arg)
{
	const struct planned_gen *g = arg;

	return s->sport == g->w_port && (s->flags & 0x17) == 0x10 && s->ack == g->w_ack;
}

/* Our socket: TCP_SAVE_SYN @mode, connecting (non-blocking) to the peer; its port in *@lport. */
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

/* The SYN-ACK answering the socket's SYN, with IP ID and TSval moved on by @again. */
static int dup_write_synack(struct planned_gen *g, int again)
{
	const struct seg *syn = &g->syn;
	uint64_t k = g->i - g->p.held_back - g->p.abandoned;
	uint8_t pkt[CRAFT_MAX];
	size_t n;

	planned_shape(syn->family, g->tsval + (uint32_t)again, (uint16_t)(k * 7 + 1 + again), &g->s);
	g->s.flags = 0x12;
	for (int b = 0; b < 4; b++) /* TSecr: the socket's SYN's TSval */
		g->s.tcpopt[12 + b] = syn->has_ts ? (uint8_t)(syn->tsval >> (24 - 8 * b)) : 0;
	g->f = flow_of(&g->s, DUP_PEER_PORT, syn->sport);
	n = craft_synack(&g->s, &g->f, g->isn, syn->seq + 1, pkt);
	port_tsval[DUP_PEER_PORT] = g->tsval + (uint32_t)again;
	return dev_write(pkt, n) == (ssize_t)n ? 0 : -1;
}

/* Dup-synack g->i begins: its socket connects; its SYN is awaited. 0 or -1. */
static int dup_begin(struct planned_gen *g)
{
	uint64_t k = g->i - g->p.held_back - g->p.abandoned;

	g->kind = PLAN_DUP_SYNACK;
	g->af = k % 2 ? AF_INET6 : AF_INET;
	g->mode = (int)(k / 2) % 2 + 1;
	g->isn = (uint32_t)rng_next(&g->rng);
	g->tsval = (uint32_t)rng_next(&g->rng) >> 1;
	g->fd = dup_socket(g->af, g->mode, &g->w_port);
	if (g->fd < 0)
		return -1;
	g->w_ack = g->isn + 1;
	wait_for(g, ST_DUP_SYN, is_syn_from, g, ANSWER_WAIT_MS);
	return 0;
}

/* The record: the SYN-ACK headers the socket's kernel saved, for the server. 0 or -1. */
static int dup_send_record(struct planned_gen *g)
{
	struct gen_event e = { .kind = EV_RECORD, .mode = g->mode,
			       .index = g->i - g->p.held_back - g->p.abandoned, .seed = run_seed,
			       .gen = plan_gen[PLAN_DUP_SYNACK], .knobs = "plan/linux-ts synack" };
	socklen_t cl = sizeof(e.cookie);
	uint8_t native[1024];
	char small[160];
	size_t need = 0;

	if (getsockopt(g->fd, SOL_SOCKET, SO_COOKIE, &e.cookie, &cl))
		return -1;
	flow_of_socket(g->fd, false, &e.flow);
	e.native_len = read_native_guarded(g->fd, native, sizeof(native), &need, small,
					   sizeof(small));
	e.native = native;
	e.small = small;
	return tell_event(&e);
}

/* The socket closed with an RST (no FIN exchange left behind). */
static void dup_close(struct planned_gen *g)
{
	struct linger lin = { .l_onoff = 1, .l_linger = 0 };

	if (g->fd < 0)
		return;
	setsockopt(g->fd, SOL_SOCKET, SO_LINGER, &lin, sizeof(lin));
	close(g->fd);
	g->fd = -1;
}

/*
 * The dup-synack steps once what step @st waited for came (@came false: the wait ran out):
 * the SYN answered with a SYN-ACK, the socket's ACK awaited; the SYN-ACK again, the kernel's
 * answer to it (a challenge ACK) awaited a moment, so the duplicate was processed before the
 * read; then the record. Returns 0 (waiting), 1 (over) or -1 (printed).
 */
static int dup_step(struct planned_gen *g, int st, bool came)
{
	uint64_t k = g->i - g->p.held_back - g->p.abandoned;

	if (st == ST_DUP_CHALLENGE) {
		g->unanswered += !came; /* the kernel's business (the judge's), not a failure */
		if (dup_send_record(g)) {
			log_err("dup-synack %llu: sending its record", (unsigned long long)k);
			return -1;
		}
		g->dup_made++;
		return 1;
	}
	if (!came) {
		fprintf(stderr, "syntwin-server: dup-synack %llu: %s\n", (unsigned long long)k,
			st == ST_DUP_SYN ? "no SYN from its socket" : "the handshake did not complete");
		return -1;
	}
	if (st == ST_DUP_SYN) {
		g->syn = g->got;
		if (dup_write_synack(g, 0))
			return -1;
		wait_for(g, ST_DUP_ACK, is_ack_from, g, ANSWER_WAIT_MS);
		return 0;
	}
	if (dup_write_synack(g, 1)) {
		log_err("dup-synack %llu: write the second SYN-ACK", (unsigned long long)k);
		return -1;
	}
	wait_for(g, ST_DUP_CHALLENGE, is_ack_from, g, CHALLENGE_WAIT_MS);
	return 0;
}

/* --- the sequence ---------------------------------------------------------------------- */

static uint64_t passive_count(const struct planned_gen *g)
{
	return g->p.held_back + g->p.abandoned;
}

/* Handshake g->i is over (@rc < 0: it failed): an abandon-close group's listeners are closed
 * after its last (in time, or the plan failed), a dup-synack socket closed; the next is due. */
static void handshake_end(struct planned_gen *g, int rc)
{
	bool passive = g->i < passive_count(g), failed = rc < 0;

	if (failed && passive)
		fprintf(stderr, "syntwin-server: planned %s handshake %llu (port %llu) failed\n",
			plan_gen[g->kind], (unsigned long long)g->i,
			(unsigned long long)(PLAN_SPORT + g->i));
	if (passive && close_group_edge(g, g->i, false)) {
		uint64_t ms = mono_ms() - g->t0;

		close_listeners(g->lfd);
		if (ms > CLOSE_BEFORE_MS) {
			fprintf(stderr, "syntwin-server: abandon-close: the listeners closed %llu ms "
				"after the group's first SYN (plan: under %d ms, before any request's "
				"first timer)\n", (unsigned long long)ms, CLOSE_BEFORE_MS);
			failed = true;
		}
	}
	if (!passive)
		dup_close(g);
	g->bad += failed;
	g->i++;
	g->st = ST_BEGIN;
	g->waiting = false;
}

/* Every handshake made: the dup-synack summary sent; the held-back connections' closes are
 * awaited (ST_CLOSING). */
static void all_made(struct planned_gen *g)
{
	struct gen_event done = { .kind = EV_DONE, .count = g->dup_made };

	if (g->p.dup_synack && tell_event(&done)) {
		log_err("sending the dup-synack summary");
		g->bad++;
	}
	g->st = ST_CLOSING;
	g->deadline_ms = mono_ms() + CLOSES_WAIT_MS;
}

/* The end: its line, the device closed. */
static void planned_end(struct planned_gen *g)
{
	printf("planned: %llu held-back SYN-ACKs (the SYN retransmitted into its request), %llu "
	       "abandoned handshakes, %llu duplicate SYN-ACKs (%llu not answered), %llu failed\n",
	       (unsigned long long)g->p.held_back, (unsigned long long)g->p.abandoned,
	       (unsigned long long)g->p.dup_synack, (unsigned long long)g->unanswered,
	       (unsigned long long)g->bad);
	fflush(stdout);
	close_listeners(g->lfd);
	dup_close(g);
	tun_off_loop();
	g->running = false;
	g->finished = true;
	g->st = ST_DONE;
}

/* Goes on as far as it can without waiting: handshakes begun (one that cannot begin is over,
 * failed), the closes awaited, the end. */
static void run(struct planned_gen *g)
{
	while (g->running && !g->waiting) {
		int rc;

		if (g->st == ST_CLOSING) {
			if (peer_open_count() && mono_ms() < g->deadline_ms)
				return;
			planned_end(g);
			return;
		}
		if (g->i == passive_count(g) + g->p.dup_synack) {
			all_made(g);
			continue;
		}
		rc = g->i < passive_count(g) ? passive_begin(g) : dup_begin(g);
		if (rc)
			handshake_end(g, -1);
	}
}

/* What step g->st waited for came (@came), or its time ran out: the handshake goes on. */
static void advance(struct planned_gen *g, bool came)
{
	int st = g->st, rc;

	g->waiting = false;
	if (st == ST_SYNACK || st == ST_SYNACK_AGAIN)
		rc = !came ? -1 : st == ST_SYNACK ? passive_synack(g) : passive_complete(g);
	else
		rc = dup_step(g, st, came);
	if (rc)
		handshake_end(g, rc);
	run(g);
}

/* The device opened (tun0, in this process's netns: the server's) and on the loop. */
static int planned_start(struct planned_gen *g)
{
	if (tun_on_loop(g->ep, g->tag))
		return -1;
	g->running = true;
	return 0;
}

static int planned_gen_open(struct planned_gen *g, const struct planned *p, uint64_t seed,
		     gen_sink sink, void *ctx, int ep,
		     uint32_t tag)
{
	*g = (struct planned_gen){ .p = *p, .rng = seed, .ep = ep, .tag = tag, .fd = -1,
				   .lfd = { -1, -1, -1, -1 } };
	if (p->held_back + p->abandoned > PLAN_MAX) {
		fprintf(stderr, "syntwin-server: held-back + abandoned handshakes: at most %d\n",
			PLAN_MAX);
		return -1;
	}
	peer_sink = sink;
	peer_sink_ctx = ctx;
	run_seed = seed;
	return 0;
}

static void planned_gen_step(struct planned_gen *g)
{
	if (g->finished)
		return;
	if (!g->running && planned_start(g)) {
		g->bad++;
		g->finished = true;
		return;
	}
	if (g->waiting && mono_ms() >= g->deadline_ms)
		advance(g, false);
	run(g);
}

static void planned_gen_event(struct planned_gen *g)
{
	struct seg s;

	if (!g->running)
		return;
	if (!g->waiting) {
		pump_ready(NULL, NULL, &s); /* FINs answered, closes counted */
		run(g);
		return;
	}
	if (pump_ready(g->want, g->want_arg, &g->got))
		advance(g, true);
}

static int planned_gen_wait_ms(const struct planned_gen *g)
{
	return mono_wait_ms(g->running && g->waiting, g->running && g->st == ST_CLOSING,
			    g->deadline_ms);
}

static bool planned_gen_finished(const struct planned_gen *g)
{
	return g->finished;
}

static uint64_t planned_gen_close(struct planned_gen *g)
{
	if (g->running) {
		fprintf(stderr, "syntwin-server: the planned handshakes were cut short (at %llu of "
			"%llu)\n", (unsigned long long)g->i,
			(unsigned long long)(passive_count(g) + g->p.dup_synack));
		planned_end(g); /* (what the run owed came: not a failure) */
	}
	peer_sink = NULL;
	return g->bad;
}

/* The generator's calls for the run's loop (generator.h). */
static bool ops_asked(const struct gen_opts *o)
{
	return o->planned && (o->planned->held_back || o->planned->abandoned || o->planned->dup_synack);
}

static int ops_open(void *state, const struct gen_opts *o, gen_sink sink, void *ctx, int ep,
		    uint32_t tag)
{
	struct planned_gen *g = state;

	return planned_gen_open(g, o->planned, o->planned_seed, sink, ctx, ep, tag);
}

static int ops_step(void *g)
{
	planned_gen_step(g);
	return 0;
}

static void ops_event(void *g, uint32_t tag)
{
	(void)tag;
	planned_gen_event(g);
}

static bool ops_finished(const void *g)
{
	return planned_gen_finished(g);
}

static int ops_wait_ms(const void *g)
{
	return planned_gen_wait_ms(g);
}

static uint64_t ops_close(void *g)
{
	return planned_gen_close(g);
}

const struct gen_ops planned_ops = {
	.what = "the planned handshakes", .size = sizeof(struct planned_gen), .tag = GEN_TAG_CRAFTED, .tags = 1,
	.asked = ops_asked, .open = ops_open, .step = ops_step, .event = ops_event,
	.finished = ops_finished, .wait_ms = ops_wait_ms, .close = ops_close,
};
