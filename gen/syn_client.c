// SPDX-License-Identifier: GPL-2.0
/*
 * syntwin-client (guest, client netns): N seeded connections spread over the server's four
 * listeners (IPv4/IPv6 x TCP_SAVE_SYN 1/2), each with kernel-built SYNs shaped by the socket-knob
 * matrix (knobs.h): MSS, receive buffer, TOS/traffic class, TTL/hop limit, IPv4 options, IPv6
 * hop-by-hop / destination options, TCP Fast Open with data, TCP-MD5, source port, and the client
 * netns's SACK / timestamps / window scaling / ECN sysctls per batch. Before each connect() it
 * tells syntwin-server the source port, index and knobs (client_msg.h), so each record names how
 * its SYN was made. With --active every socket also sets TCP_SAVE_SYN before connect() and sends
 * the saved SYN-ACK to the server. --syncookie-tail N connections run with syncookies forced in
 * the server netns: the last N, or with --syncookie-at I those from number I on, after which the
 * rest run the normal way while the listener still counts as recently flooded (two minutes):
 * a kernel that then stops saving SYNs is caught. --parallel K keeps K connects in flight.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "client_msg.h"
#include "knobs.h"
#include "native_read.h"
#include "net_helpers.h"
#include "parse_num.h"
#include "rerun.h"
#include "rng.h"
#include "topology.h"

#define MAX_PARALLEL 64
#define SYSCTL_BATCH 64
#define SYN_RETRIES 4		/* TCP_SYNCNT: the kernel's own give-up after 31 s */
#define CONNECT_WAIT_MS 45000	/* past it: the generator's, for a kernel that never answers */
#define SRC_PORT_BASE TOPO_CLIENT_SPORT_BASE	/* explicit source ports: below the ephemeral range */
#define SRC_PORT_SPAN 20000

static const char usage[] =
	"usage: syntwin-client [--connections N] [--seed S] [--netns NAME] [--mix default|plain]\n"
	"                      [--parallel K] [--active] [--small-buffer-permille P]\n"
	"                      [--syncookie-tail N [--syncookie-at I]] [--server4 A] [--server6 A]\n"
	"                      [--rerun JSONL] [--shard I/N] [--count] [--test-reset I]\n"
	"  --test-reset I  TEST ONLY: connection #I waits for the server's reset before it is\n"
	"                  checked (the server resets it: syntwin-server --test-reset I)\n";

struct opts {
	uint64_t n, seed, small, parallel, cookie_tail;
	int64_t cookie_at;	/* first connection with syncookies forced; -1: the last cookie_tail */
	int64_t test_reset;	/* TEST ONLY: the connection that waits for its reset; -1 none */
	const char *netns, *s4, *s6, *rerun, *shard;
	bool count;	/* print how many connections the selection makes, and exit */
	const struct knob_mix *mix;
	bool active;
};

struct slot {
	int fd;
	bool check;		/* the small-buffer check of the active read, drawn at start */
	uint64_t i;
	struct knobs k;
	char desc[208];
	char client[46];	/* the address and port it is bound to, kept from the start: */
	uint16_t client_port;	/* a socket reset or failed may have lost its port since */
};

static int ufd = -1, ns_client = -1, ns_server = -1;
static uint64_t run_seed;
static uint8_t port_used[SRC_PORT_SPAN];
/* failed: connections whose connect() failed, each reported to the server, which judges it;
 * errors: the client's own (a message not sent, a socket not made): those fail the client */
static uint64_t sent, failed, made, errors;

static int parse(int argc, char **argv, struct opts *o)
{
	char err[256];

	*o = (struct opts){ .cookie_at = -1, .test_reset = -1, .n = 1000, .seed = 1, .small = 50, .parallel = 1, .netns = "client",
			    .s4 = TOPO_SERVER4, .s6 = TOPO_SERVER6, .mix = &knob_mix_default };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int rc = 0;

		if (!strcmp(a, "--active") || !strcmp(a, "--count")) {
			*(a[2] == 'a' ? &o->active : &o->count) = true;
			continue;
		}
		if (!v) {
			fprintf(stderr, "syntwin-client: %s: missing value\n%s", a, usage);
			return -1;
		}
		i++;
		if (!strcmp(a, "--connections"))
			rc = parse_u64_range(a, v, 1, 100000000, &o->n, err, sizeof(err));
		else if (!strcmp(a, "--seed"))
			rc = parse_u64_range(a, v, 0, UINT64_MAX, &o->seed, err, sizeof(err));
		else if (!strcmp(a, "--small-buffer-permille"))
			rc = parse_u64_range(a, v, 0, 1000, &o->small, err, sizeof(err));
		else if (!strcmp(a, "--parallel"))
			rc = parse_u64_range(a, v, 1, MAX_PARALLEL, &o->parallel, err, sizeof(err));
		else if (!strcmp(a, "--syncookie-tail"))
			rc = parse_u64_range(a, v, 0, 100000000, &o->cookie_tail, err, sizeof(err));
		else if (!strcmp(a, "--syncookie-at")) {
			uint64_t at;

			rc = parse_u64_range(a, v, 0, 100000000, &at, err, sizeof(err));
			o->cookie_at = (int64_t)at;
		} else if (!strcmp(a, "--test-reset")) {
			uint64_t at;

			rc = parse_u64_range(a, v, 0, 100000000, &at, err, sizeof(err));
			o->test_reset = (int64_t)at;
		} else if (!strcmp(a, "--mix") && (!strcmp(v, "default") || !strcmp(v, "plain")))
			o->mix = !strcmp(v, "plain") ? &knob_mix_plain : &knob_mix_default;
		else if (!strcmp(a, "--netns"))
			o->netns = v;
		else if (!strcmp(a, "--rerun"))
			o->rerun = v;
		else if (!strcmp(a, "--shard"))
			o->shard = v;
		else if (!strcmp(a, "--server4"))
			o->s4 = v;
		else if (!strcmp(a, "--server6"))
			o->s6 = v;
		else {
			fprintf(stderr, "syntwin-client: bad option '%s %s'\n%s", a, v, usage);
			return -1;
		}
		if (rc) {
			fprintf(stderr, "syntwin-client: %s\n", err);
			return -1;
		}
	}
	if (o->cookie_at < 0)
		o->cookie_at = (int64_t)(o->n - (o->cookie_tail > o->n ? o->n : o->cookie_tail));
	if ((uint64_t)o->cookie_at + o->cookie_tail > o->n) {
		fprintf(stderr, "syntwin-client: --syncookie-at %lld + --syncookie-tail %llu exceeds "
			"--connections\n", (long long)o->cookie_at, (unsigned long long)o->cookie_tail);
		return -1;
	}
	return 0;
}

/* Writes @val to /proc/sys/@key in netns @nsfd, then returns to the client netns. */
static int sysctl_in(int nsfd, const char *key, int val)
{
	char path[128];
	FILE *f;
	int rc = 0;

	if (netns_set(nsfd, nsfd == ns_server ? "server" : "client"))
		return -1;
	snprintf(path, sizeof(path), "/proc/sys/%s", key);
	f = fopen(path, "we");
	if (!f || fprintf(f, "%d\n", val) < 0 || fclose(f)) {
		log_err("write %s", path);
		rc = -1;
	}
	if (netns_set(ns_client, "client"))
		rc = -1;
	return rc;
}

/* The batch's netns sysctls; written only when they change. */
static int apply_sysctls(const struct knobs *k)
{
	static int cur[4] = { -2, -2, -2, -2 };
	static const char *const keys[4] = { "net/ipv4/tcp_sack", "net/ipv4/tcp_timestamps",
					     "net/ipv4/tcp_window_scaling", "net/ipv4/tcp_ecn" };
	static const int defaults[4] = { 1, 1, 1, 2 };
	int want[4] = { k->sack, k->timestamps, k->wscale, k->ecn };

	for (int j = 0; j < 4; j++) {
		int v = want[j] < 0 ? defaults[j] : want[j];

		if (v != cur[j] && sysctl_in(ns_client, keys[j], v))
			return -1;
		cur[j] = v;
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
static int pick_port(uint64_t *rng)
{
	uint64_t start = rng_next(rng) % SRC_PORT_SPAN;

	for (uint64_t j = 0; j < SRC_PORT_SPAN; j++) {
		uint64_t p = (start + j) % SRC_PORT_SPAN;

		if (!port_used[p]) {
			port_used[p] = 1;
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

static const char *server_addr(const struct knobs *k, const struct opts *o)
{
	static const char *const a[VLAN_KINDS][2] = { { NULL, NULL },
						       { TOPO_QINQ_SERVER4, TOPO_QINQ_SERVER6 },
						       { TOPO_VLAN_SERVER4, TOPO_VLAN_SERVER6 } };

	if (!k->vlan)
		return k->family == AF_INET6 ? o->s6 : o->s4;
	return a[k->vlan][k->family == AF_INET6];
}

/* Socket with every knob applied and bound (so its source port is known before the SYN). */
static int make_socket(struct knobs *k, const struct opts *o, uint64_t *rng)
{
	int v6 = k->family == AF_INET6;
	int fd = socket(k->family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	struct sockaddr_storage ss;
	socklen_t sl;
	uint8_t opt[40];
	size_t ol;

	if (fd < 0)
		return -1;
	if (k->mss && set_int(fd, IPPROTO_TCP, TCP_MAXSEG, k->mss, "TCP_MAXSEG"))
		goto fail;
	if (k->rcvbuf && set_int(fd, SOL_SOCKET, SO_RCVBUF, k->rcvbuf, "SO_RCVBUF"))
		goto fail;
	if (k->tos >= 0 && set_int(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP, v6 ? IPV6_TCLASS : IP_TOS,
				   k->tos, "TOS"))
		goto fail;
	if (k->ttl >= 0 && set_int(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP,
				   v6 ? IPV6_UNICAST_HOPS : IP_TTL, k->ttl, "TTL"))
		goto fail;
	ol = knobs_ipopt_bytes(k->ipopt, opt);
	if (ol && setsockopt(fd, IPPROTO_IP, IP_OPTIONS, opt, (socklen_t)ol)) {
		log_err("setsockopt(IP_OPTIONS)");
		goto fail;
	}
	if (k->v6ext) {
		ol = knobs_v6ext_bytes(opt);
		if ((k->v6ext & V6EXT_HOP) &&
		    setsockopt(fd, IPPROTO_IPV6, IPV6_HOPOPTS, opt, (socklen_t)ol)) {
			log_err("setsockopt(IPV6_HOPOPTS)");
			goto fail;
		}
		if ((k->v6ext & V6EXT_DST) &&
		    setsockopt(fd, IPPROTO_IPV6, IPV6_DSTOPTS, opt, (socklen_t)ol)) {
			log_err("setsockopt(IPV6_DSTOPTS)");
			goto fail;
		}
	}
	/* the kernel, not this generator, ends a handshake: SYNs at 0, 1, 3, 7 and 15 s, ETIMEDOUT at
	 * 31 s (on a lossy wire a handshake may need the fourth retransmission) */
	if (set_int(fd, IPPROTO_TCP, TCP_SYNCNT, SYN_RETRIES, "TCP_SYNCNT"))
		goto fail;
	if (o->active && set_int(fd, IPPROTO_TCP, TCP_SAVE_SYN, k->mode, "TCP_SAVE_SYN"))
		goto fail;
	if (k->md5 && md5_key_for(fd, k->family, v6 ? o->s6 : o->s4))
		goto fail;
	if (k->src_port)
		k->src_port = pick_port(rng);
	/* MD5 connections come from their own address: the server's key is per peer address. */
	sl = make_sockaddr(k->family, k->md5 ? (v6 ? TOPO_MD5_CLIENT6 : TOPO_MD5_CLIENT4) :
					       client_addr(k), (uint16_t)k->src_port, &ss);
	if (bind(fd, (struct sockaddr *)&ss, sl)) {
		log_err("bind source port %d", k->src_port);
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}

/* @m's flow for connection @s: the address and port its socket was bound to, and the
 * server's. Returns 0, or -1. */
static int msg_flow(const struct slot *s, const struct opts *o, struct active_msg *m)
{
	uint8_t server[16];

	memcpy(m->client, s->client, sizeof(m->client));
	m->client_port = s->client_port;
	if (inet_pton(s->k.family, server_addr(&s->k, o), server) != 1)
		return -1;
	inet_ntop(s->k.family, server, m->server, sizeof(m->server));
	m->family = s->k.family;
	m->server_port = (uint16_t)(7000 + s->k.mode);
	snprintf(m->gen, sizeof(m->gen), "sockets");
	return 0;
}

/* CLOCK_MONOTONIC in ns: the clock of the witness's bpf_ktime_get_ns() */
static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The label of connection @s, keyed by its flow (its kernel picks the ISN, so none is given). */
static int tell_server(const struct slot *s, const struct opts *o)
{
	struct active_msg m = { .kind = CLIENT_GEN, .mode = s->k.mode, .index = s->i };

	if (msg_flow(s, o, &m))
		return -1;
	m.seed = run_seed;
	snprintf(m.knobs, sizeof(m.knobs), "%s", s->desc);
	m.t_ns = monotonic_ns();
	return send(ufd, &m, sizeof(m), 0) == sizeof(m) ? 0 : -1;
}

/* Connection @s failed with @err: the server sets its label aside (its flow: the address and
 * port the socket is bound to, which stay bound after the failure). */
static void tell_failed(const struct slot *s, const struct opts *o, int err)
{
	struct active_msg m = { .kind = CLIENT_FAILED, .mode = s->k.mode, .index = s->i,
				.count = (uint32_t)err, .seed = run_seed };

	snprintf(m.knobs, sizeof(m.knobs), "%s", s->desc);
	if (msg_flow(s, o, &m) || send(ufd, &m, sizeof(m), 0) != sizeof(m)) {
		errors++;
		log_err("telling the server connection %llu failed", (unsigned long long)s->i);
	}
}

/* Starts connection @s (non-blocking): 0 in flight, 1 its connect() failed (reported to the
 * server), -1 the client's own error. */
static int start(struct slot *s, const struct opts *o)
{
	struct sockaddr_storage ss;
	socklen_t sl = make_sockaddr(s->k.family, server_addr(&s->k, o),
				     (uint16_t)(7000 + s->k.mode), &ss);
	int rc;

	socket_addr(s->fd, 0, s->client, &s->client_port);
	if (tell_server(s, o)) {
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

		tell_failed(s, o, err);
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
static int send_record(const struct slot *s, const struct opts *o, int err)
{
	struct active_msg m = { .kind = ACTIVE_RECORD, .mode = s->k.mode, .index = s->i,
				.count = (uint32_t)err };
	socklen_t cl = sizeof(m.cookie);

	if (msg_flow(s, o, &m))
		return -1;
	getsockopt(s->fd, SOL_SOCKET, SO_COOKIE, &m.cookie, &cl);
	m.seed = run_seed;
	snprintf(m.knobs, sizeof(m.knobs), "%s", s->desc);
	/* the small-buffer check (drawn per connection) only where the connection stands */
	m.native_len = read_native_checked(s->fd, s->check && !err, m.native, sizeof(m.native),
					   m.small, sizeof(m.small));
	if (err && m.native_len <= 0)
		return 0;
	if (send(ufd, &m, sizeof(m), 0) != sizeof(m))
		return -1;
	sent++;
	return 1;
}

/*
 * A connect finished (writable): check it, send the active record, close. A connection that
 * failed is reported either way: with its record when its kernel had saved a SYN-ACK (it was
 * established, then reset), else on its own (tell_failed()).
 */
static void finish(struct slot *s, const struct opts *o)
{
	int err = 0, sent_record = 0;
	socklen_t el = sizeof(err);

	if ((int64_t)s->i == o->test_reset) {
		/* TEST ONLY: established; the server resets it once it has judged its child */
		struct pollfd p = { .fd = s->fd, .events = POLLRDHUP };

		if (poll(&p, 1, 10000) != 1)
			fprintf(stderr, "syntwin: TEST RESET: no reset of #%lld in 10 s\n",
				(long long)o->test_reset);
	}
	getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &err, &el);
	if (o->active)
		sent_record = send_record(s, o, err);
	if (sent_record < 0 && errors++ < 5)
		log_err("sending active record #%llu", (unsigned long long)s->i);
	if (err) {
		failed++;
		if (sent_record <= 0) /* no record carried the failure to the server */
			tell_failed(s, o, err);
		if (failed <= 5)
			fprintf(stderr, "syntwin: connect #%llu (%s): %s%s\n", (unsigned long long)s->i,
				s->desc, strerror(err), sent_record > 0 ? " (after its SYN-ACK)" : "");
	} else {
		made++;
	}
	close(s->fd);
	s->fd = -1;
}

/* Waits for in-flight connects; with @all, until none is left. */
static void reap(struct slot *slots, int nslots, bool all, const struct opts *o)
{
	for (;;) {
		struct pollfd p[MAX_PARALLEL];
		int idx[MAX_PARALLEL], np = 0, r;

		for (int j = 0; j < nslots; j++)
			if (slots[j].fd >= 0) {
				p[np] = (struct pollfd){ .fd = slots[j].fd, .events = POLLOUT };
				idx[np++] = j;
			}
		if (!np || (!all && np < nslots))
			return;
		r = poll(p, (nfds_t)np, CONNECT_WAIT_MS);
		if (r <= 0) {
			/* the kernel gave none of them its verdict in time: count them, do not hang */
			for (int j = 0; j < np; j++) {
				tell_failed(&slots[idx[j]], o, ETIMEDOUT);
				if (failed++ < 5)
					fprintf(stderr, "syntwin: connect #%llu timed out\n",
						(unsigned long long)slots[idx[j]].i);
				close(slots[idx[j]].fd);
				slots[idx[j]].fd = -1;
			}
			continue;
		}
		for (int j = 0; j < np; j++)
			if (p[j].revents)
				finish(&slots[idx[j]], o);
		if (!all)
			return;
	}
}

int main(int argc, char **argv)
{
	struct slot slots[MAX_PARALLEL];
	struct knobs k = { .sack = -1, .timestamps = -1, .wscale = -1, .ecn = -1 };
	struct opts o;
	uint64_t rng;
	bool cookies = false;
	struct rerun_set only = { 0 };

	if (parse(argc, argv, &o))
		return 2;
	char err[128];

	if (o.rerun && rerun_load(o.rerun, "sockets", &only))
		return 2;
	if (o.shard && shard_parse(o.shard, &only, err, sizeof(err))) {
		fprintf(stderr, "syntwin-client: %s\n", err);
		return 2;
	}
	if (o.count) {
		/* a rerun's selection is the earlier run's indexes; a shard's is a slice of --connections */
		uint64_t cnt = 0, end = only.from_run ? only.n : o.n;

		for (uint64_t j = 0; j < end; j++)
			cnt += rerun_has(&only, only.from_run ? only.idx[j] : j);
		printf("%llu\n", (unsigned long long)cnt);
		return 0;
	}
	rng = o.seed;
	run_seed = o.seed;
	ufd = client_channel_connect();
	ns_server = open_netns("server");
	if (ufd < 0 || ns_server < 0 || enter_netns(o.netns))
		return 2;
	ns_client = open_netns(o.netns);
	/* TFO: data in the SYN without a cookie (the server takes it without one too) */
	if (ns_client < 0 || sysctl_in(ns_client, "net/ipv4/tcp_fastopen", 5))
		return 2;
	for (int j = 0; j < MAX_PARALLEL; j++)
		slots[j].fd = -1;

	for (uint64_t i = 0; i < o.n; i++) {
		struct slot *s = NULL;
		int rc;

		uint64_t at = (uint64_t)o.cookie_at, end = at + o.cookie_tail;

		if (i % SYSCTL_BATCH == 0 || (o.cookie_tail && (i == at || i == end))) {
			reap(slots, (int)o.parallel, true, &o);
			knobs_pick_sysctls(&rng, o.mix, &k);
			if (apply_sysctls(&k))
				return 2;
			if (cookies != (o.cookie_tail && i >= at && i < end)) {
				cookies = !cookies;
				if (sysctl_in(ns_server, "net/ipv4/tcp_syncookies", cookies ? 2 : 1))
					return 2;
			}
		}
		reap(slots, (int)o.parallel, false, &o);
		for (int j = 0; j < (int)o.parallel && !s; j++)
			if (slots[j].fd < 0)
				s = &slots[j];
		knobs_pick(&rng, i, o.mix, &k);
		if (rerun_active(&only) && !rerun_has(&only, i)) {
			/* not selected: draw what making it would have drawn, so the rest stays equal */
			if (k.src_port)
				pick_port(&rng);
			if (o.active)
				rng_permille(&rng, (unsigned int)o.small);
			continue;
		}
		s->i = i;
		s->fd = make_socket(&k, &o, &rng);
		/* drawn here, in connection order, not when the connect completes: with
		 * --parallel K the completions come in any order, and a rerun must draw the same */
		s->check = o.active && rng_permille(&rng, (unsigned int)o.small);
		s->k = k;
		knobs_describe(&k, s->desc, sizeof(s->desc));
		rc = s->fd < 0 ? -1 : start(s, &o);
		if (rc) {
			if (rc > 0)
				failed++;
			else
				errors++;
			if (s->fd >= 0)
				close(s->fd);
			s->fd = -1;
		}
	}
	reap(slots, (int)o.parallel, true, &o);
	if (cookies)
		sysctl_in(ns_server, "net/ipv4/tcp_syncookies", 1);
	k.sack = k.timestamps = k.wscale = k.ecn = -1;
	apply_sysctls(&k);
	if (o.active) {
		struct active_msg m = { .kind = ACTIVE_DONE, .count = (uint32_t)sent };

		/* The server may already have every record and be gone: that is fine. */
		if (send(ufd, &m, sizeof(m), 0) != sizeof(m) && errno != ECONNREFUSED)
			log_err("sending the active summary");
	}
	printf("client: %llu connections made, %llu failed (each reported to the server)%s\n",
	       (unsigned long long)made, (unsigned long long)failed,
	       o.active ? ", SYN-ACK headers sent for each" : "");
	/* a failed connection is the server's to judge; the client fails on its own errors */
	if (errors)
		fprintf(stderr, "syntwin-client: %llu error(s) of its own (named above)\n",
			(unsigned long long)errors);
	return errors ? 1 : 0;
}
