// SPDX-License-Identifier: GPL-2.0
/*
 * The socket-knob generator (sock_gen.h): per connection, knobs from the seeded plan, a socket
 * made in the client netns and bound (its source port known before the SYN), the label handed
 * to the sink, a non-blocking connect(); when it finishes, the active record (the SYN-ACK its
 * kernel saved) or the failure. Between batches of SYSCTL_BATCH connections, and at the edges
 * of the syncookie phase, no connection is in flight while the netns sysctls change.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mono_time.h"
#include "native_read.h"
#include "net_helpers.h"
#include "rng.h"
#include "sock_gen.h"
#include "generators.h"
#include "topology.h"

#define SYSCTL_BATCH 64
#define SYN_RETRIES 4		/* TCP_SYNCNT: the kernel's own give-up after 31 s */
#define CONNECT_WAIT_MS 45000	/* past it: the generator's, for a kernel that never answers */
#define RESET_WAIT_MS 10000	/* TEST ONLY: the wait for the server's reset */
#define SRC_PORT_BASE TOPO_CLIENT_SPORT_BASE	/* explicit source ports: below the ephemeral range */

/* Writes @val to /proc/sys/@key in netns @nsfd, then returns to the caller's netns. */
static int sysctl_in(struct sock_gen *g, int nsfd, const char *key, int val)
{
	char path[128];
	FILE *f;
	int rc = 0;

	if (netns_set(nsfd, nsfd == g->ns_server ? "server" : g->o.netns))
		return -1;
	snprintf(path, sizeof(path), "/proc/sys/%s", key);
	f = fopen(path, "we");
	if (!f || fprintf(f, "%d\n", val) < 0 || fclose(f)) {
		log_err("write %s", path);
		rc = -1;
	}
	if (netns_set(g->ns_home, "home"))
		rc = -1;
	return rc;
}

/* The batch's client-netns sysctls; written only when they change. */
static int apply_sysctls(struct sock_gen *g, const struct knobs *k)
{
	static const char *const keys[4] = { "net/ipv4/tcp_sack", "net/ipv4/tcp_timestamps",
					     "net/ipv4/tcp_window_scaling", "net/ipv4/tcp_ecn" };
	static const int defaults[4] = { 1, 1, 1, 2 };
	int want[4] = { k->sack, k->timestamps, k->wscale, k->ecn };

	for (int j = 0; j < 4; j++) {
		int v = want[j] < 0 ? defaults[j] : want[j];

		if (v != g->cur_sysctl[j] && sysctl_in(g, g->ns_client, keys[j], v))
			return -1;
		g->cur_sysctl[j] = v;
	}
	return 0;
}

static int set_int(int fd, int level, int name, int val, const char *what)
{
	if (setsockopt(fd, level, name, &val, sizeof(val)) == 0)
		return 0;
	log_err("setsockopt(%s=%d)", what, val);
	return -1;
}

/* A free explicit source port from the seed; 0 if none is left. */
static int pick_port(struct sock_gen *g)
{
	uint64_t start = rng_next(&g->rng) % SOCK_GEN_PORT_SPAN;

	for (uint64_t j = 0; j < SOCK_GEN_PORT_SPAN; j++) {
		uint64_t p = (start + j) % SOCK_GEN_PORT_SPAN;

		if (!g->port_used[p]) {
			g->port_used[p] = 1;
			return (int)(SRC_PORT_BASE + p);
		}
	}
	return 0;
}

/* The addresses of each path: the veth itself, QinQ over it, or a single 802.1Q tag. */
static const char *client_addr(const struct knobs *k)
{
	static const char *const a[VLAN_KINDS][2] = { { TOPO_CLIENT4, TOPO_CLIENT6 },
						       { TOPO_QINQ_CLIENT4, TOPO_QINQ_CLIENT6 },
						       { TOPO_VLAN_CLIENT4, TOPO_VLAN_CLIENT6 } };

	return a[k->vlan][k->family == AF_INET6];
}

static const char *server_addr(const struct knobs *k, const struct sock_gen_opts *o)
{
	static const char *const a[VLAN_KINDS][2] = { { NULL, NULL },
						       { TOPO_QINQ_SERVER4, TOPO_QINQ_SERVER6 },
						       { TOPO_VLAN_SERVER4, TOPO_VLAN_SERVER6 } };

	if (!k->vlan)
		return k->family == AF_INET6 ? o->s6 : o->s4;
	return a[k->vlan][k->family == AF_INET6];
}

/* The per-socket knobs before bind(): MSS, buffer, TOS, TTL, IP options, IPv6 extension
 * headers, the SYN retries, TCP_SAVE_SYN (active), the MD5 key. Returns 0 or -1 (printed). */
static int socket_knobs(int fd, const struct knobs *k, const struct sock_gen_opts *o)
{
	int v6 = k->family == AF_INET6;
	uint8_t opt[40];
	size_t ol;

	if ((k->mss && set_int(fd, IPPROTO_TCP, TCP_MAXSEG, k->mss, "TCP_MAXSEG")) ||
	    (k->rcvbuf && set_int(fd, SOL_SOCKET, SO_RCVBUF, k->rcvbuf, "SO_RCVBUF")) ||
	    (k->tos >= 0 && set_int(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP, v6 ? IPV6_TCLASS : IP_TOS,
				    k->tos, "TOS")) ||
	    (k->ttl >= 0 && set_int(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP,
				    v6 ? IPV6_UNICAST_HOPS : IP_TTL, k->ttl, "TTL")))
		return -1;
	ol = knobs_ipopt_bytes(k->ipopt, opt);
	if (ol && setsockopt(fd, IPPROTO_IP, IP_OPTIONS, opt, (socklen_t)ol)) {
		log_err("setsockopt(IP_OPTIONS)");
		return -1;
	}
	ol = k->v6ext ? knobs_v6ext_bytes(opt) : 0;
	if (((k->v6ext & V6EXT_HOP) &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_HOPOPTS, opt, (socklen_t)ol)) ||
	    ((k->v6ext & V6EXT_DST) &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_DSTOPTS, opt, (socklen_t)ol))) {
		log_err("setsockopt(IPV6 extension header)");
		return -1;
	}
	/* the kernel, not this generator, ends a handshake: SYNs at 0, 1, 3, 7 and 15 s, ETIMEDOUT at
	 * 31 s (on a lossy wire a handshake may need the fourth retransmission) */
	if (set_int(fd, IPPROTO_TCP, TCP_SYNCNT, SYN_RETRIES, "TCP_SYNCNT") ||
	    (o->active && set_int(fd, IPPROTO_TCP, TCP_SAVE_SYN, k->mode, "TCP_SAVE_SYN")))
		return -1;
	return k->md5 ? md5_key_for(fd, k->family, v6 ? o->s6 : o->s4) : 0;
}

/*
 * Connection @i's source port when no knob sets one: a function of its number for the first
 * TOPO_CLIENT_AUTO_PORT_SPAN connections, the kernel's choice (0) after them. A port the
 * kernel picks at random sometimes repeated the 4-tuple of a connection closed a moment before
 * (the server's side of it in TIME_WAIT): the server dropped that SYN and took it when it came
 * again a second later, so the same seeded run (or its shards) differed in copies from boot to
 * boot. By number no 4-tuple
 * repeats, and a connection has the same port in a run, its shards and its rerun. Past the
 * span numbers would repeat every 4-tuple of 28,232 connections earlier, still in the server's
 * TIME_WAIT (a SYN taken through TIME_WAIT gets no syncookie, so a big run's syncookie tail
 * would lose its cookies): there the kernel chooses, as before.
 */
static uint16_t auto_port(uint64_t i)
{
	return i < TOPO_CLIENT_AUTO_PORT_SPAN ? (uint16_t)(TOPO_CLIENT_AUTO_PORT_BASE + i) : 0;
}

/* Binds @fd to @addr, port @port; a port by number (@by_number) that is still taken in the
 * client netns (a socket of this port's last use that has not closed yet) falls back to
 * the kernel's choice. Returns 0, or -1 (printed). */
static int bind_source(int fd, int family, const char *addr, uint16_t port, bool by_number)
{
	struct sockaddr_storage ss;
	socklen_t sl = make_sockaddr(family, addr, port, &ss);

	if (bind(fd, (struct sockaddr *)&ss, sl) == 0)
		return 0;
	if (by_number && errno == EADDRINUSE) {
		sl = make_sockaddr(family, addr, 0, &ss);
		if (bind(fd, (struct sockaddr *)&ss, sl) == 0)
			return 0;
	}
	log_err("bind source port %u", port);
	return -1;
}

/* A socket of the client netns with every knob applied and bound (so its source port is known
 * before the SYN), for connection @i; the caller's netns is returned to. Returns the fd, or -1
 * (printed). */
static int make_socket(struct sock_gen *g, struct knobs *k, uint64_t i)
{
	int v6 = k->family == AF_INET6, fd;
	const char *addr;
	uint16_t port;

	if (netns_set(g->ns_client, g->o.netns))
		return -1;
	fd = socket(k->family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (netns_set(g->ns_home, "home")) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (fd < 0 || socket_knobs(fd, k, &g->o))
		goto fail;
	if (k->src_port)
		k->src_port = pick_port(g);
	/* MD5 connections come from their own address: the server's key is per peer address. */
	addr = k->md5 ? (v6 ? TOPO_MD5_CLIENT6 : TOPO_MD5_CLIENT4) : client_addr(k);
	port = k->src_port ? (uint16_t)k->src_port : auto_port(i);
	if (bind_source(fd, k->family, addr, port, !k->src_port && port))
		goto fail;
	return fd;
fail:
	if (fd >= 0)
		close(fd);
	return -1;
}

/* An event about connection @s of @kind: its flow, index, seed and knobs. */
static void event_of(const struct sock_gen *g, const struct sock_gen_slot *s,
		     enum gen_event_kind kind, struct gen_event *e)
{
	*e = (struct gen_event){ .kind = kind, .flow = s->flow, .mode = s->k.mode, .index = s->i,
				 .seed = g->o.seed, .gen = "sockets", .knobs = s->desc };
}

/* The flow of connection @s: the address and port its socket was bound to, and the server's.
 * Returns 0, or -1 if the server's address does not parse. */
static int flow_of_slot(const struct sock_gen *g, struct sock_gen_slot *s)
{
	uint8_t server[16];

	if (inet_pton(s->k.family, server_addr(&s->k, &g->o), server) != 1)
		return -1;
	/* (the client's end: the address and port the socket is bound to) */
	flow_of_socket(s->fd, false, &s->flow);
	flow_set(&s->flow, s->k.family, s->flow.saddr, ntohs(s->flow.sport), server,
		 (uint16_t)(TOPO_PORT_BASE + s->k.mode - 1), 0);
	return 0;
}

/* Connection @s failed with @err before a SYN-ACK was saved: the sink sets its label aside. */
static void tell_failed(struct sock_gen *g, const struct sock_gen_slot *s, int err)
{
	struct gen_event e;

	event_of(g, s, EV_FAILED, &e);
	e.err = err;
	if (g->sink(g->ctx, &e) == 0)
		return;
	g->errors++;
	log_err("telling the server connection %llu failed", (unsigned long long)s->i);
}

/* Starts connection @s (non-blocking): 0 in flight, 1 its connect() failed (reported), -1 the
 * generator's own error. The label goes first, with its time (CLOCK_MONOTONIC, the clock of
 * the witness's timestamps): its kernel picks the ISN, so none is given. */
static int start(struct sock_gen *g, struct sock_gen_slot *s)
{
	struct sockaddr_storage ss;
	socklen_t sl = make_sockaddr(s->k.family, server_addr(&s->k, &g->o),
				     (uint16_t)(TOPO_PORT_BASE + s->k.mode - 1), &ss);
	struct gen_event e;
	int rc;

	if (flow_of_slot(g, s) || (event_of(g, s, EV_LABEL, &e), e.t_ns = mono_ns(),
				   g->sink(g->ctx, &e))) {
		log_err("telling the server about connection %llu", (unsigned long long)s->i);
		return -1;
	}
	if (s->k.tfo) {
		char data[48];
		int len = snprintf(data, sizeof(data), "syntwin-tfo-%llu", (unsigned long long)s->i);

		rc = (int)sendto(s->fd, data, (size_t)len, MSG_FASTOPEN, (struct sockaddr *)&ss, sl);
		rc = rc == len ? 0 : -1;
	} else {
		rc = connect(s->fd, (struct sockaddr *)&ss, sl);
	}
	if (rc && errno != EINPROGRESS) {
		int err = errno;

		tell_failed(g, s, err);
		errno = err;
		log_err("connect #%llu", (unsigned long long)s->i);
		return 1;
	}
	return 0;
}

/*
 * The active record of connection @s: the SYN-ACK headers its kernel saved, with the socket's
 * cookie. @err: the connection failed after it (a reset): the record says so, and the server
 * judges the failure against the witness. Returns 1 sent, 0 nothing saved (failed before a
 * SYN-ACK was taken), -1 not sent.
 */
static int send_record(struct sock_gen *g, const struct sock_gen_slot *s, int err)
{
	struct gen_event e;
	socklen_t cl = sizeof(e.cookie);
	uint8_t native[1024];
	char small[160];

	event_of(g, s, EV_RECORD, &e);
	e.err = err;
	getsockopt(s->fd, SOL_SOCKET, SO_COOKIE, &e.cookie, &cl);
	/* the small-buffer check (drawn per connection) only where the connection stands */
	e.native_len = read_native_checked(s->fd, s->check && !err, native, sizeof(native), small,
					   sizeof(small));
	e.native = native;
	e.small = small;
	if (err && e.native_len <= 0)
		return 0;
	if (g->sink(g->ctx, &e))
		return -1;
	g->sent++;
	return 1;
}

static void free_slot(struct sock_gen_slot *s)
{
	close(s->fd); /* (which takes it out of the epoll set) */
	s->fd = -1;
	s->awaiting_reset = false;
}

/*
 * A connect finished (writable): check it, send the active record, close. A connection that
 * failed is reported either way: with its record when its kernel had saved a SYN-ACK (it was
 * established, then reset), else on its own (tell_failed()).
 */
static void finish(struct sock_gen *g, struct sock_gen_slot *s)
{
	int err = 0, sent_record = 0;
	socklen_t el = sizeof(err);

	getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &err, &el);
	if (g->o.active)
		sent_record = send_record(g, s, err);
	if (sent_record < 0 && g->errors++ < 5)
		log_err("sending active record #%llu", (unsigned long long)s->i);
	if (err) {
		g->failed++;
		if (sent_record <= 0) /* no record carried the failure to the server */
			tell_failed(g, s, err);
		if (g->failed <= 5)
			fprintf(stderr, "syntwin: connect #%llu (%s): %s%s\n", (unsigned long long)s->i,
				s->desc, strerror(err), sent_record > 0 ? " (after its SYN-ACK)" : "");
	} else {
		g->made++;
	}
	free_slot(s);
}

static void sock_gen_event(struct sock_gen *g, uint32_t tag)
{
	struct sock_gen_slot *s = &g->slots[tag - g->tag];
	struct epoll_event ev = { .events = EPOLLRDHUP, .data.u32 = tag };

	if (s->fd < 0)
		return;
	if ((int64_t)s->i == g->o.test_reset && !s->awaiting_reset) {
		/* TEST ONLY: established; the server resets it once it has judged its child (in
		 * this same loop): wait for that, not for writability */
		s->awaiting_reset = true;
		s->deadline_ms = mono_ms() + RESET_WAIT_MS;
		if (epoll_ctl(g->ep, EPOLL_CTL_MOD, s->fd, &ev) == 0)
			return;
		log_err("TEST RESET: epoll_ctl");
	}
	finish(g, s);
}

/* Slots past their wait: the kernel gave them no verdict in time (counted, not waited for). */
static void time_out(struct sock_gen *g)
{
	uint64_t now = mono_ms();

	for (uint64_t j = 0; j < g->o.parallel; j++) {
		struct sock_gen_slot *s = &g->slots[j];

		if (s->fd < 0 || now < s->deadline_ms)
			continue;
		if (s->awaiting_reset) {
			fprintf(stderr, "syntwin: TEST RESET: no reset of #%lld in %d s\n",
				(long long)g->o.test_reset, RESET_WAIT_MS / 1000);
			finish(g, s);
			continue;
		}
		tell_failed(g, s, ETIMEDOUT);
		if (g->failed++ < 5)
			fprintf(stderr, "syntwin: connect #%llu timed out\n", (unsigned long long)s->i);
		free_slot(s);
	}
}

static int busy_slots(const struct sock_gen *g)
{
	int busy = 0;

	for (uint64_t j = 0; j < g->o.parallel; j++)
		busy += g->slots[j].fd >= 0;
	return busy;
}

/* At a batch's first connection and at the syncookie phase's edges, with nothing in flight:
 * the batch's sysctls and the server netns's syncookie mode. Returns 0 or -1. */
static int batch_sysctls(struct sock_gen *g, uint64_t i)
{
	uint64_t at = (uint64_t)g->o.cookie_at, end = at + g->o.cookie_tail;
	bool want = g->o.cookie_tail && i >= at && i < end;

	knobs_pick_sysctls(&g->rng, g->o.mix, &g->k);
	if (apply_sysctls(g, &g->k))
		return -1;
	if (g->cookies != want) {
		g->cookies = want;
		if (sysctl_in(g, g->ns_server, "net/ipv4/tcp_syncookies", want ? 2 : 1))
			return -1;
	}
	return 0;
}

static bool batch_edge(const struct sock_gen *g, uint64_t i)
{
	uint64_t at = (uint64_t)g->o.cookie_at, end = at + g->o.cookie_tail;

	return i % SYSCTL_BATCH == 0 || (g->o.cookie_tail && (i == at || i == end));
}

/* A free slot, or NULL. */
static struct sock_gen_slot *free_slot_of(struct sock_gen *g)
{
	for (uint64_t j = 0; j < g->o.parallel; j++)
		if (g->slots[j].fd < 0)
			return &g->slots[j];
	return NULL;
}

/* Connection @s->i: made, in flight, on @g's epoll set. Counts its failures. */
static void launch(struct sock_gen *g, struct sock_gen_slot *s)
{
	struct epoll_event ev = { .events = EPOLLOUT,
				  .data.u32 = g->tag + (uint32_t)(s - g->slots) };
	int rc;

	s->fd = make_socket(g, &s->k, s->i);
	/* drawn here, in connection order, not when the connect completes: with --parallel K
	 * the completions come in any order, and a rerun must draw the same */
	s->check = g->o.active && rng_permille(&g->rng, (unsigned int)g->o.small);
	knobs_describe(&s->k, s->desc, sizeof(s->desc));
	rc = s->fd < 0 ? -1 : start(g, s);
	if (!rc && epoll_ctl(g->ep, EPOLL_CTL_ADD, s->fd, &ev)) {
		log_err("epoll_ctl connection %llu", (unsigned long long)s->i);
		rc = -1;
	}
	if (!rc) {
		s->deadline_ms = mono_ms() + CONNECT_WAIT_MS;
		return;
	}
	*(rc > 0 ? &g->failed : &g->errors) += 1;
	if (s->fd >= 0)
		free_slot(s);
}

static int sock_gen_step(struct sock_gen *g)
{
	time_out(g);
	while (g->next < g->o.n) {
		uint64_t i = g->next;
		struct sock_gen_slot *s;

		if (batch_edge(g, i) && g->sysctls_at != i) {
			if (busy_slots(g))
				return 0; /* the batch's sysctls wait for an empty wire */
			if (batch_sysctls(g, i))
				return -1;
			g->sysctls_at = i;
		}
		s = free_slot_of(g);
		if (!s)
			return 0;
		knobs_pick(&g->rng, i, g->o.mix, &g->k);
		g->next++;
		if (rerun_active(&g->only) && !rerun_has(&g->only, i)) {
			/* not selected: draw what making it would have drawn, so the rest stays equal */
			if (g->k.src_port)
				pick_port(g);
			if (g->o.active)
				rng_permille(&g->rng, (unsigned int)g->o.small);
			continue;
		}
		s->i = i;
		s->k = g->k;
		launch(g, s);
	}
	return 0;
}

static bool sock_gen_finished(const struct sock_gen *g)
{
	return g->next >= g->o.n && !busy_slots(g);
}

static int sock_gen_open(struct sock_gen *g, const struct sock_gen_opts *o, gen_sink sink,
		  void *ctx, int ep, uint32_t tag)
{
	memset(g, 0, sizeof(*g));
	g->o = *o;
	g->sink = sink;
	g->ctx = ctx;
	g->ep = ep;
	g->tag = tag;
	g->rng = o->seed;
	g->sysctls_at = UINT64_MAX;
	g->k = (struct knobs){ .sack = -1, .timestamps = -1, .wscale = -1, .ecn = -1 };
	for (int j = 0; j < 4; j++)
		g->cur_sysctl[j] = -2;
	for (int j = 0; j < SOCK_GEN_MAX_PARALLEL; j++)
		g->slots[j].fd = -1;
	g->ns_home = netns_here();
	g->ns_server = open_netns("server");
	g->ns_client = open_netns(o->netns);
	if (g->ns_home < 0 || g->ns_server < 0 || g->ns_client < 0 || sock_gen_selection(o, &g->only))
		return -1;
	/* TFO: data in the SYN without a cookie (the server takes it without one too) */
	return sysctl_in(g, g->ns_client, "net/ipv4/tcp_fastopen", 5);
}

static uint64_t sock_gen_close(struct sock_gen *g)
{
	struct knobs dflt = { .sack = -1, .timestamps = -1, .wscale = -1, .ecn = -1 };

	for (uint64_t j = 0; j < g->o.parallel; j++)
		if (g->slots[j].fd >= 0) /* the run stopped under it */
			free_slot(&g->slots[j]);
	if (g->cookies && sysctl_in(g, g->ns_server, "net/ipv4/tcp_syncookies", 1))
		g->errors++;
	if (apply_sysctls(g, &dflt))
		g->errors++;
	if (g->o.active) {
		struct gen_event e = { .kind = EV_DONE, .count = g->sent };

		if (g->sink(g->ctx, &e))
			log_err("sending the active summary");
	}
	printf("client: %llu connections made, %llu failed (each reported to the server)%s\n",
	       (unsigned long long)g->made, (unsigned long long)g->failed,
	       g->o.active ? ", SYN-ACK headers sent for each" : "");
	if (g->errors)
		fprintf(stderr, "syntwin: sockets: %llu error(s) of its own (named above)\n",
			(unsigned long long)g->errors);
	close(g->ns_home);
	close(g->ns_server);
	close(g->ns_client);
	free(g->only.idx);
	return g->errors;
}

/* The generator's calls for the run's loop (generator.h). */
static bool ops_asked(const struct gen_opts *o)
{
	return o->sockets != NULL;
}

static int ops_open(void *state, const struct gen_opts *o, gen_sink sink, void *ctx, int ep,
		    uint32_t tag)
{
	struct sock_gen *g = state;

	return sock_gen_open(g, o->sockets, sink, ctx, ep, tag);
}

static int ops_step(void *g)
{
	return sock_gen_step(g);
}

static void ops_event(void *g, uint32_t tag)
{
	sock_gen_event(g, tag);
}

static bool ops_finished(const void *g)
{
	return sock_gen_finished(g);
}

static uint64_t ops_close(void *g)
{
	return sock_gen_close(g);
}

const struct gen_ops sock_gen_ops = {
	.what = "the socket generator", .size = sizeof(struct sock_gen), .tag = GEN_TAG_SOCKETS, .tags = SOCK_GEN_MAX_PARALLEL,
	.asked = ops_asked, .open = ops_open, .step = ops_step, .event = ops_event,
	.finished = ops_finished, .wait_ms = NULL, .close = ops_close,
};
