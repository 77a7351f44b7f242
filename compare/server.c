// SPDX-License-Identifier: GPL-2.0
/*
 * syntwin-server (guest, server netns): listeners with TCP_SAVE_SYN 1 and 2 for IPv4 and IPv6;
 * for every accepted socket, read the kernel's saved SYN, take the BPF capture bound to its
 * cookie, classify, and record. With --active N, also N active-direction records from
 * syntwin-client (the SYN-ACK headers its kernel saved; client_msg.h), compared the same way.
 * Writes connections.jsonl, mismatches.pcap and summary.json.
 * Exit: 0 all identical or explained and complete; 1 unexplained differences or partial; 2 usage.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <linux/tcp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <sys/socket.h>
#include <sys/un.h>

#include "client_msg.h"
#include "capture_client.h"
#include "classify.h"
#include "decode.h"
#include "inet_csum.h"
#include "json_out.h"
#include "native_read.h"
#include "net_helpers.h"
#include "netstat.h"
#include "parse_num.h"
#include "report.h"
#include "rng.h"
#include "slabinfo.h"

#define PORT_BASE 7001

struct opts {
	const char *out, *netns, *series_hash, *ready_file, *mix, *rerun_of;
	uint64_t connections, seed, small_buffer_permille, idle_s, test_corrupt, active;
	bool hex_all;
};

struct stats {
	uint64_t conns, verdict[V_MAX], reason[R_MAX], unexplained, small_buffer_checks;
	uint64_t active, active_announced, compared;
	uint64_t lost;		/* bpf-missing records put down to map eviction (R_EVICTED) */
	long long evictions;	/* capture_evictions() at the end; -1 while running */
	long long slab_start, slab_end, syn_slab_start, syn_slab_end; /* bytes, -1 unknown */
	int write_errno;	/* a results file could not be written: the run stops */
	uint64_t shapes, gen_sockets, gen_unknown, gen_crafted, gen_tap, gen_fuzz, rejected;
	int64_t cookies_base, tcpext_base[4];
	const char *cookie_counter; /* the TcpExt counter that cross-checks syncookie proofs */
	uint64_t records_written; /* JSONL records on disk (report.lines_written) */
	bool partial;
};

/*
 * TcpExt counters reported as growth over the run. The last two exist only with the series'
 * counter patch (kernel-series/0001); there TCPSynNotSavedCookie counts exactly the accepted
 * sockets of TCP_SAVE_SYN listeners that came from a cookie, and is the syncookie proof.
 */
static const char *const tcpext_names[4] = { "SyncookiesRecv", "TCPTimeWaitOverflow",
					     "TCPSynSaved", "TCPSynNotSavedCookie" };

static volatile sig_atomic_t stop;
static void on_signal(int sig) { stop = sig; }

static const char usage[] =
	"usage: syntwin-server --out DIR [--connections N] [--seed S] [--netns NAME]\n"
	"                      [--series-hash H] [--small-buffer-permille P] [--idle-timeout S]\n"
	"                      [--ready-file F] [--active N] [--hex-all] [--mix NAME]\n"
	"                      [--rerun-of DIR] [--test-corrupt K]\n"
	"  --hex-all         both byte strings in every JSONL record, not only differing ones\n"
	"  --active N        also expect N active-direction records from syntwin-client\n"
	"  --test-corrupt K  TEST ONLY: flip one byte of every K-th BPF record before comparing\n";

static int parse(int argc, char **argv, struct opts *o)
{
	char err[256];

	*o = (struct opts){ .netns = "server", .series_hash = "", .mix = "", .rerun_of = "",
			    .connections = 10000,
			    .seed = 1, .small_buffer_permille = 50, .idle_s = 30 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int rc = 0;

		if (!strcmp(a, "--hex-all")) {
			o->hex_all = true;
			continue;
		}
		if (!v) {
			fprintf(stderr, "syntwin-server: %s: missing value\n%s", a, usage);
			return -1;
		}
		if (!strcmp(a, "--out"))
			o->out = v;
		else if (!strcmp(a, "--netns"))
			o->netns = v;
		else if (!strcmp(a, "--series-hash"))
			o->series_hash = v;
		else if (!strcmp(a, "--ready-file"))
			o->ready_file = v;
		else if (!strcmp(a, "--mix"))
			o->mix = v;
		else if (!strcmp(a, "--rerun-of"))
			o->rerun_of = v;
		else if (!strcmp(a, "--connections"))
			rc = parse_u64_range(a, v, 0, 100000000, &o->connections, err, sizeof(err));
		else if (!strcmp(a, "--seed"))
			rc = parse_u64_range(a, v, 0, UINT64_MAX, &o->seed, err, sizeof(err));
		else if (!strcmp(a, "--small-buffer-permille"))
			rc = parse_u64_range(a, v, 0, 1000, &o->small_buffer_permille, err, sizeof(err));
		else if (!strcmp(a, "--idle-timeout"))
			rc = parse_u64_range(a, v, 1, 3600, &o->idle_s, err, sizeof(err));
		else if (!strcmp(a, "--active"))
			rc = parse_u64_range(a, v, 0, 100000000, &o->active, err, sizeof(err));
		else if (!strcmp(a, "--test-corrupt"))
			rc = parse_u64_range(a, v, 1, UINT64_MAX, &o->test_corrupt, err, sizeof(err));
		else {
			fprintf(stderr, "syntwin-server: unknown option '%s'\n%s", a, usage);
			return -1;
		}
		if (rc) {
			fprintf(stderr, "syntwin-server: %s\n", err);
			return -1;
		}
		i++;
	}
	if (!o->out) {
		fprintf(stderr, "syntwin-server: --out is required\n%s", usage);
		return -1;
	}
	return 0;
}

/*
 * A SYN's shape, as fingerprinting tools see it: family, TTL, TOS, IPv4 option kinds or IPv6
 * extension header types, TCP flags and the TCP option kinds in order (not their values).
 * FNV-1a of those bytes; distinct shapes are counted in a fixed open-addressing set.
 */
#define SHAPE_SET (1u << 16)
static uint64_t shape_set[SHAPE_SET];

static uint64_t shape_of(const uint8_t *b, size_t len, size_t mac)
{
	uint64_t h = 0xcbf29ce484222325ull;
	struct syn_layout l;
	const uint8_t *ip = b + mac;
#define MIX(x) (h = (h ^ (uint8_t)(x)) * 0x100000001b3ull)

	if (syn_layout(b, len, mac, &l) || !l.family)
		return 0;
	MIX(l.family);
	if (l.family == AF_INET) {
		MIX(ip[8]);
		MIX(ip[1]);
		for (size_t i = 20; i < l.net_len; i += ip[i] <= 1 ? 1 : (ip[i + 1] ? ip[i + 1] : 1))
			MIX(ip[i]);
	} else {
		uint8_t next = ip[6];
		size_t off = 40;

		MIX(ip[7]);
		MIX((ip[0] & 0x0f) << 4 | ip[1] >> 4);
		while (off < l.net_len) {
			MIX(next);
			next = ip[off];
			off += (ip[off + 1] + 1u) * 8u;
		}
	}
	MIX(b[l.tcp_off + 13]);
	for (size_t i = l.tcp_off + 20; i < l.tcp_off + l.tcp_len;
	     i += b[i] <= 1 ? 1 : (b[i + 1] ? b[i + 1] : l.tcp_len)) {
		MIX(b[i]);
		if (!b[i])
			break;
	}
#undef MIX
	return h ? h : 1;
}

static void count_shape(struct stats *st, uint64_t h)
{
	for (uint32_t i = (uint32_t)h % SHAPE_SET, n = 0; h && n < SHAPE_SET; i = (i + 1) % SHAPE_SET, n++) {
		if (shape_set[i] == h)
			return;
		if (!shape_set[i]) {
			shape_set[i] = h;
			st->shapes++;
			return;
		}
	}
}

/*
 * The receiver's facts for the IPv4 option model (classify.h): the server netns's own IPv4
 * addresses and their broadcast addresses, and the run's time window: from the server's start
 * to the moment of each comparison, 1 s of margin each side (the guest has one clock; the margin
 * covers only the order of the calls, not any drift).
 */
#define ENV_MAX_ADDRS 32
static uint32_t env_addrs[ENV_MAX_ADDRS];
static struct ipv4_env rx_env = { .addrs = env_addrs };

static uint64_t realtime_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int rx_env_init(void)
{
	struct ifaddrs *ifs, *i;

	if (getifaddrs(&ifs)) {
		log_err("getifaddrs");
		return -1;
	}
	for (i = ifs; i; i = i->ifa_next) {
		const struct sockaddr_in *a = (const void *)i->ifa_addr;
		const struct sockaddr_in *b = (const void *)i->ifa_broadaddr;

		if (!a || a->sin_family != AF_INET)
			continue;
		if (rx_env.n_addrs < ENV_MAX_ADDRS)
			env_addrs[rx_env.n_addrs++] = a->sin_addr.s_addr;
		if ((i->ifa_flags & IFF_BROADCAST) && b && b->sin_family == AF_INET &&
		    rx_env.n_addrs < ENV_MAX_ADDRS)
			env_addrs[rx_env.n_addrs++] = b->sin_addr.s_addr;
	}
	freeifaddrs(ifs);
	rx_env.lo_ms = realtime_ms() - 1000;
	return 0;
}

/* Append @c to the JSONL; the first failure stops the run (st->write_errno). */
static void record(struct report *rep, const struct conn_record *c, struct stats *st)
{
	if (report_conn(rep, c) && !st->write_errno)
		st->write_errno = errno ? errno : EIO;
}

/*
 * Compare one connection's native headers (@n bytes, 0 none) with the witness's capture bound to
 * @c->cookie, classify, count and record. Passive and active records alike.
 */
static void compare_one(struct conn_record *c, const uint8_t *native, int n, const char *small,
			const struct opts *o, struct capture_client *cc, struct report *rep,
			struct stats *st)
{
	bool active = !strcmp(c->direction, "active");
	struct compare_input in = { .mode = c->mode, .env = &rx_env };
	struct compare_result res;
	struct capture_rec rec;
	int have_bpf, bad;

	c->res = &res;
	rx_env.hi_ms = realtime_ms() + 1000;
	have_bpf = capture_lookup_cookie(cc, c->cookie, &rec, true) == 0;
	if (have_bpf && o->test_corrupt && (st->compared + 1) % o->test_corrupt == 0 &&
	    rec.cap_len > 20)
		rec.data[rec.cap_len - 5] ^= 0x5a; /* TEST ONLY (--test-corrupt) */
	st->compared++;

	in.native = n > 0 ? native : NULL;
	in.native_len = n > 0 ? (size_t)n : 0;
	in.bpf = have_bpf ? rec.data : NULL;
	in.bpf_len = have_bpf ? rec.cap_len : 0;
	in.bpf_mac_len = have_bpf ? rec.mac_len : 0;
	/* The witness saw this connection's ACK validated as a syncookie (prove_syncookie() in
	 * bpf/syn_capture.bpf.c): per connection, and nothing the saved-SYN code can touch. */
	in.syncookie_proven = have_bpf && !active && (rec.flags & CAP_F_COOKIE_ACK);
	bad = classify(&in, &res);
	if (have_bpf && (rec.flags & CAP_F_RECAPTURED)) {
		/* A retransmitted SYN: the witness holds the last copy, the kernel saved the copy
		 * that created its request socket. The first copy counts as well. */
		struct capture_rec first;

		if (capture_take_replaced(cc, &rec, &first) == 0 && bad && in.native) {
			struct compare_input in1 = in;
			struct compare_result r1;

			in1.bpf = first.data;
			in1.bpf_len = first.cap_len;
			in1.bpf_mac_len = first.mac_len;
			if (!classify(&in1, &r1)) {
				const char *was = reason_names[r1.reason]; /* "" for R_NONE */

				res = r1;
				res.verdict = V_EXPLAINED;
				res.reason = R_RETRANSMIT;
				snprintf(res.detail, sizeof(res.detail),
					 "a retransmitted SYN: the kernel saved its first copy, the "
					 "witness also holds a later one; equal to the first%s%s",
					 was[0] ? " but for " : "", was);
				bad = 0;
			}
		}
	}
	/* A missing capture is put down to eviction only while the maps have evicted more
	 * records than were already put down to it (rare: one map walk each). */
	if (res.verdict == V_BPF_MISSING && capture_evictions(cc) > (long long)st->lost) {
		/* Lost by the witness, not a kernel difference: the run becomes partial. */
		res.reason = R_EVICTED;
		snprintf(res.detail, sizeof(res.detail),
			 "no capture: the witness's maps overflowed (%u entries) and evicted it",
			 cc->capacity);
		st->lost++;
		bad = 0;
	}
	if (c->gen && !strcmp(c->gen, "rejected")) {
		res.verdict = V_DIFFER;
		res.reason = R_NONE;
		snprintf(res.detail, sizeof(res.detail), "the kernel accepted a SYN it must drop (%s)",
			 c->knobs);
		bad = 1;
	}
	if (small[0] && strcmp(small, "ok")) {
		/* The API broke its contract: unexplained, whatever the bytes say. */
		if (!bad) {
			res.verdict = V_DIFFER;
			res.reason = R_NONE;
			snprintf(res.detail, sizeof(res.detail), "TCP_SAVED_SYN small-buffer contract: %s",
				 small);
		}
		bad = 1;
	}
	if (active) {
		st->active++;
	} else {
		st->conns++;
		if (have_bpf)
			count_shape(st, shape_of(rec.data, rec.cap_len, rec.mac_len));
		if (c->gen && !strcmp(c->gen, "sockets"))
			st->gen_sockets++;
		else if (c->gen && !strcmp(c->gen, "crafted"))
			st->gen_crafted++;
		else if (c->gen && !strcmp(c->gen, "crafted-tap"))
			st->gen_tap++;
		else if (c->gen && !strcmp(c->gen, "fuzz"))
			st->gen_fuzz++;
		else
			st->gen_unknown++;
	}
	st->verdict[res.verdict]++;
	st->reason[res.reason]++;
	st->unexplained += bad;
	if (bad)
		fprintf(stderr, "syntwin: %s %s %s:%u mode %d: %s: %s\n",
			c->family == AF_INET6 ? "IPv6" : "IPv4", c->direction, active ? c->daddr : c->saddr,
			active ? c->dport : c->sport, c->mode, verdict_names[res.verdict], res.detail);
	c->native = in.native;
	c->native_len = in.native_len;
	c->bpf = in.bpf;
	c->bpf_len = in.bpf_len;
	c->bpf_mac_len = in.bpf_mac_len;
	c->small_buffer = small;
	if (have_bpf && rec.vlan_present)
		snprintf(c->bpf_vlan, sizeof(c->bpf_vlan), "%04x:%u", ntohs(rec.vlan_proto),
			 rec.vlan_tci & 0x0fffu);
	record(rep, c, st);
}

/* What the generators said about each connection before making it, by family and source port
 * (unique while the connection exists). */
struct gen_info {
	bool set;
	uint64_t index, seed;
	char gen[16], knobs[208];
};
static struct gen_info *gen_table; /* [2][65536] */

static struct gen_info *gen_slot(int family, uint16_t port)
{
	return &gen_table[(family == AF_INET6) * 65536 + port];
}

static void drain_channel(int ufd, const struct opts *o, struct capture_client *cc,
			  struct report *rep, struct stats *st);

/* Fills @c's generator fields from the table (draining the channel once if need be). */
static void gen_attach(struct conn_record *c, int ufd, const struct opts *o,
		       struct capture_client *cc, struct report *rep, struct stats *st)
{
	struct gen_info *g = gen_slot(c->family, c->sport);

	if (!g->set && ufd >= 0)
		drain_channel(ufd, o, cc, rep, st);
	if (!g->set)
		return;
	c->gen = g->gen;
	c->knobs = g->knobs;
	c->gen_index = g->index;
	c->gen_seed = g->seed;
	g->set = false;
}

/* A passive connection: the accepted socket's saved SYN. */
static void one_socket(int fd, int family, int mode, int ufd, const struct opts *o,
		       uint64_t *rng, struct capture_client *cc, struct report *rep,
		       struct stats *st)
{
	struct conn_record c = { .family = family, .mode = mode, .direction = "passive" };
	socklen_t cl = sizeof(c.cookie);
	uint8_t native[1024];
	char small[160];
	bool check;
	int n;

	socket_addr(fd, 1, c.saddr, &c.sport);
	socket_addr(fd, 0, c.daddr, &c.dport);
	getsockopt(fd, SOL_SOCKET, SO_COOKIE, &c.cookie, &cl);
	if (!c.sport) {
		/* The peer is gone already (reset before the accept; getpeername() fails): its
		 * address and port are in the captured SYN. */
		struct capture_rec peek;
		struct capture_key k;

		if (capture_lookup_cookie(cc, c.cookie, &peek, false) == 0 &&
		    capture_key_of(&peek, &k) == 0) {
			inet_ntop(k.family, k.saddr, c.saddr, sizeof(c.saddr));
			c.sport = ntohs(k.sport);
		}
	}
	gen_attach(&c, ufd, o, cc, rep, st);
	check = rng_permille(rng, (unsigned int)o->small_buffer_permille);
	st->small_buffer_checks += check;
	n = read_native_checked(fd, check, native, sizeof(native), small, sizeof(small));
	compare_one(&c, native, n, small, o, cc, rep, st);
}

/* Channel messages from the generators: GEN notes, active RECORDs, DONE. */
static void drain_channel(int ufd, const struct opts *o, struct capture_client *cc,
			  struct report *rep, struct stats *st)
{
	struct active_msg m;
	ssize_t got;

	while ((got = recv(ufd, &m, sizeof(m), MSG_DONTWAIT)) > 0) {
		struct conn_record c = { .family = m.family, .mode = m.mode, .direction = "active",
					 .cookie = m.cookie, .sport = m.server_port,
					 .dport = m.client_port };

		if (got != sizeof(m))
			continue;
		if (m.kind == ACTIVE_DONE) {
			st->active_announced += m.count;
			continue;
		}
		m.gen[sizeof(m.gen) - 1] = 0;
		m.knobs[sizeof(m.knobs) - 1] = 0;
		if (m.kind == CLIENT_GEN) {
			struct gen_info *g = gen_slot(m.family, m.client_port);

			g->set = true;
			g->index = m.index;
			g->seed = m.seed;
			memcpy(g->gen, m.gen, sizeof(g->gen));
			memcpy(g->knobs, m.knobs, sizeof(g->knobs));
			continue;
		}
		if (m.kind != ACTIVE_RECORD)
			continue;
		c.gen = m.gen;
		c.knobs = m.knobs;
		c.gen_index = m.index;
		c.gen_seed = m.seed;
		m.small[sizeof(m.small) - 1] = 0;
		snprintf(c.saddr, sizeof(c.saddr), "%.45s", m.server);
		snprintf(c.daddr, sizeof(c.daddr), "%.45s", m.client);
		st->small_buffer_checks += m.small[0] != 0;
		compare_one(&c, m.native, m.native_len > (int)sizeof(m.native) ? -1 : m.native_len,
			    m.small, o, cc, rep, st);
	}
}

/* Fast Open (the client's TFO SYNs carry data) and the TCP-MD5 key of the client's MD5 source
 * address (198.18.0.3 / fd00:5959::3): SYNs from it must be signed, all others must not. */
static int listener_knobs(int fd, int family)
{
	int qlen = 1024;

	if (setsockopt(fd, IPPROTO_TCP, TCP_FASTOPEN, &qlen, sizeof(qlen))) {
		log_err("setsockopt(TCP_FASTOPEN)");
		return -1;
	}
	return md5_key_for(fd, family, family == AF_INET ? "198.18.0.3" : "fd00:5959::3");
}

/* The datagram socket the generators send to (client_msg.h). */
static int active_socket(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), big = 4 << 20;

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", CLIENT_SOCK_PATH);
	unlink(CLIENT_SOCK_PATH);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		log_err("bind %s", CLIENT_SOCK_PATH);
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	return fd;
}

static bool declared_rejected(const struct capture_key *k);

/* Unbound captures, less the must-drop SYNs (reported on their own as rejected-by-kernel). */
static int count_unbound(const struct capture_key *k, const struct capture_rec *r, void *arg)
{
	(void)r;
	if (!declared_rejected(k))
		(*(uint64_t *)arg)++;
	return 0;
}

/* Name every capture no accepted socket took: each is a SYN the kernel did not turn into an
 * accepted connection, or a binding the witness missed. */
/* A generator said this SYN must be dropped (gen "rejected"). */
static bool declared_rejected(const struct capture_key *k)
{
	struct gen_info *g = gen_slot(k->family, ntohs(k->sport));

	return g->set && !strcmp(g->gen, "rejected");
}

/*
 * Evidence in the captured bytes that the kernel had to drop the SYN: a data offset below 5 or
 * beyond the packet (the witness flags CAP_F_PARSE_ERR), or a TCP checksum that does not add up
 * (a SYN without payload is captured whole). Returns what it found, or NULL.
 */
static const char *rejection_evidence(const struct capture_rec *r)
{
	struct syn_layout l;
	const uint8_t *ip = r->data + r->mac_len;
	size_t tot;

	if (r->flags & CAP_F_PARSE_ERR)
		return "the TCP data offset is below 5 or beyond the packet";
	if (syn_layout(r->data, r->cap_len, r->mac_len, &l) || !l.family)
		return NULL;
	tot = l.family == AF_INET ? (size_t)(ip[2] << 8 | ip[3]) : 40u + (size_t)(ip[4] << 8 | ip[5]);
	if (tot != l.net_len + l.tcp_len)
		return NULL; /* payload not captured: the checksum cannot be checked */
	if ((l.family == AF_INET ? tcp_csum4(ip + 12, ip + 16, r->data + l.tcp_off, l.tcp_len) :
				   tcp_csum6(ip + 8, ip + 24, r->data + l.tcp_off, l.tcp_len)) != 0)
		return "the TCP checksum is wrong";
	return NULL;
}

struct unbound_ctx {
	const struct opts *o;
	struct report *rep;
	struct stats *st;
};

/*
 * Captures no accepted socket took. A SYN a generator declared must-drop, with the evidence in
 * its bytes, is explained (rejected-by-kernel) and recorded; a declared one without evidence is
 * unexplained; any other is printed decoded and counted in unbound_captures.
 */
static int print_unbound(const struct capture_key *k, const struct capture_rec *r, void *arg)
{
	struct unbound_ctx *u = arg;
	char text[512];
	struct syn_layout l;

	if (u && declared_rejected(k)) {
		struct gen_info *g = gen_slot(k->family, ntohs(k->sport));
		const char *why = rejection_evidence(r);
		struct compare_result res = { .verdict = why ? V_EXPLAINED : V_NATIVE_MISSING,
					      .reason = why ? R_REJECTED : R_NONE, .diff_off = -1 };
		struct conn_record c = { .family = k->family, .mode = 0, .direction = "passive",
					 .sport = ntohs(k->sport), .dport = ntohs(k->dport),
					 .bpf = r->data, .bpf_len = r->cap_len,
					 .bpf_mac_len = r->mac_len, .res = &res, .gen = g->gen,
					 .knobs = g->knobs, .gen_index = g->index,
					 .gen_seed = g->seed };

		snprintf(res.detail, sizeof(res.detail), "%s%s",
			 why ? "dropped by the kernel as it must be: " :
			       "declared must-drop, no socket, but no reason to drop in its bytes",
			 why ? why : "");
		inet_ntop(k->family, k->saddr, c.saddr, sizeof(c.saddr));
		inet_ntop(k->family, k->daddr, c.daddr, sizeof(c.daddr));
		u->st->verdict[res.verdict]++;
		u->st->reason[res.reason]++;
		u->st->rejected++;
		u->st->unexplained += !why;
		if (!why)
			fprintf(stderr, "syntwin: %s %s\n", g->knobs, res.detail);
		record(u->rep, &c, u->st);
		return 0;
	}
	syn_layout(r->data, r->cap_len, r->mac_len, &l);
	syn_decode_text(r->data, &l, text, sizeof(text));
	fprintf(stderr, "syntwin: unbound capture (isn %u): %s\n", k->seq,
		text);
	return 0;
}

/* Bytes of the caches a saved SYN lives in (kmalloc-96, kmalloc-128; see bench/memory.sh). */
static long long saved_syn_slab(void)
{
	long long a = slab_bytes("kmalloc-96"), b = slab_bytes("kmalloc-128");

	return a < 0 || b < 0 ? -1 : a + b;
}

/* The TcpExt counters' growth over the run, null where this kernel lacks the counter. */
static void summary_tcpext(struct json_out *j, const struct stats *st)
{
	json_open(j, "tcpext", '{');
	for (int i = 0; i < 4; i++) {
		int64_t now = tcpext_counter(tcpext_names[i]);

		if (now < 0 || st->tcpext_base[i] < 0)
			json_null(j, tcpext_names[i]);
		else
			json_i64(j, tcpext_names[i], now - st->tcpext_base[i]);
	}
	json_close(j);
}

/*
 * Syncookie explanations rest on the witness's per-connection proof (CAP_F_COOKIE_ACK); the
 * kernel's own counter is a cross-check. With the series' TCPSynNotSavedCookie (it counts
 * exactly the accepted cookie children of TCP_SAVE_SYN listeners) the two must be equal; with
 * only SyncookiesRecv (every validated cookie, accepted or not) the proofs may not exceed it.
 * Returns whether they agree (true while the run is still going: counts are compared at the end).
 */
static bool cookie_cross_check(const struct stats *st, int64_t *growth)
{
	int64_t now = tcpext_counter(st->cookie_counter);

	*growth = now < 0 || st->cookies_base < 0 ? -1 : now - st->cookies_base;
	if (*growth < 0)
		return false;
	if (!strcmp(st->cookie_counter, "TCPSynNotSavedCookie"))
		return (uint64_t)*growth == st->reason[R_SYNCOOKIE];
	return (uint64_t)*growth >= st->reason[R_SYNCOOKIE];
}

static void summary_syncookie(struct json_out *j, const struct stats *st, bool final)
{
	int64_t growth;
	bool agree = cookie_cross_check(st, &growth);

	json_str(j, "syncookie_proof", "witness: the flow's ACK validated as a syncookie at tc "
		 "ingress (bpf_tcp_check_syncookie) with no request socket");
	json_open(j, "syncookie_cross_check", '{');
	json_str(j, "counter", st->cookie_counter);
	json_i64(j, "growth", growth);
	json_u64(j, "proven", st->reason[R_SYNCOOKIE]);
	json_str(j, "rule", strcmp(st->cookie_counter, "TCPSynNotSavedCookie") ? "proven <= growth" :
		 "proven == growth");
	if (final)
		json_bool(j, "agree", agree);
	else
		json_null(j, "agree");
	json_close(j);
}

static void summary_counts(struct json_out *j, const struct opts *o, const struct stats *st)
{
	json_u64(j, "connections", st->conns);
	json_u64(j, "expected_connections", o->connections);
	json_u64(j, "active_connections", st->active);
	json_u64(j, "expected_active", o->active);
	json_open(j, "generators", '{');
	json_u64(j, "sockets", st->gen_sockets);
	json_u64(j, "crafted", st->gen_crafted);
	json_u64(j, "crafted-tap", st->gen_tap);
	json_u64(j, "fuzz", st->gen_fuzz);
	json_u64(j, "rejected", st->rejected);
	json_u64(j, "unknown", st->gen_unknown);
	json_close(j);
	json_u64(j, "distinct_syn_shapes", st->shapes);
	json_u64(j, "identical", st->verdict[V_IDENTICAL]);
	json_open(j, "explained", '{');
	for (int r = R_IPV4_OPTION_REWRITE; r < R_MAX; r++)
		if (r != R_EVICTED)
			json_u64(j, reason_names[r], st->reason[r]);
	json_close(j);
	json_u64(j, "unexplained", st->unexplained);
	json_u64(j, "differ", st->verdict[V_DIFFER]);
	json_u64(j, "native_missing", st->verdict[V_NATIVE_MISSING]);
	json_u64(j, "bpf_missing", st->verdict[V_BPF_MISSING]);
	json_u64(j, "small_buffer_checks", st->small_buffer_checks);
}

static void summary_witness(struct json_out *j, struct capture_client *cc, const struct stats *st)
{
	__u64 cnt[CNT_MAX] = { 0 };
	uint64_t unbound = 0;
	struct bpf_error be;

	capture_counters(cc, cnt);
	capture_each_unbound(cc, count_unbound, &unbound);
	json_u64(j, "unbound_captures", unbound);
	json_u64(j, "records_written", st->records_written);
	json_u64(j, "records_lost", st->lost);
	if (st->evictions >= 0)
		json_i64(j, "witness_evictions", st->evictions);
	else
		json_null(j, "witness_evictions");
	json_open(j, "memory", '{');
	json_i64(j, "slab_bytes_start", st->slab_start);
	json_i64(j, "slab_bytes_end", st->slab_end);
	json_i64(j, "saved_syn_slab_bytes_start", st->syn_slab_start);
	json_i64(j, "saved_syn_slab_bytes_end", st->syn_slab_end);
	json_i64(j, "witness_map_bytes", capture_map_bytes(cc));
	json_close(j);
	json_open(j, "bpf_counters", '{');
	for (int i = 0; i < CNT_MAX; i++)
		json_u64(j, capture_counter_names[i], cnt[i]);
	json_close(j);
	/* the last unexpected helper failure of each program (source line in bpf/, errno) */
	json_open(j, "bpf_last_error", '{');
	for (__u32 slot = 0; slot < 2; slot++) {
		if (capture_error(cc, slot, &be) || !be.line)
			continue;
		json_open(j, slot ? "sockops" : "tc", '{');
		json_u64(j, "line", be.line);
		json_i64(j, "err", be.err);
		json_close(j);
	}
	json_close(j);
}

static int write_summary(const struct opts *o, struct capture_client *cc, const struct stats *st,
			 bool final)
{
	struct json_out j;
	struct utsname u;
	const char *doc;
	int rc;

	uname(&u);
	json_init(&j, true);
	json_open(&j, NULL, '{');
	summary_counts(&j, o, st);
	summary_witness(&j, cc, st);
	summary_tcpext(&j, st);
	summary_syncookie(&j, st, final);
	json_str(&j, "kernel", u.release);
	json_str(&j, "series_hash", o->series_hash);
	json_u64(&j, "seed", o->seed);
	json_str(&j, "mix", o->mix);
	json_str(&j, "rerun_of", o->rerun_of);
	json_bool(&j, "partial", st->partial);
	json_close(&j);
	doc = json_done(&j);
	if (!doc) {
		fprintf(stderr, "syntwin-server: the summary could not be built (out of memory)\n");
		errno = ENOMEM;
		json_free(&j);
		return -1;
	}
	rc = write_file_atomic(o->out, "summary.json", doc);
	json_free(&j);
	return rc;
}

int main(int argc, char **argv)
{
	struct epoll_event ev, evs[8];
	struct capture_client cc;
	struct report rep;
	struct stats st = { 0 };
	struct opts o;
	int ep, lfd[4], rc, ufd = -1;
	char drain[2048];
	uint64_t rng;
	int64_t cookie_growth;
	time_t last = time(NULL), last_progress = last;

	if (parse(argc, argv, &o))
		return 2;
	rng = o.seed;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (enter_netns(o.netns) || rx_env_init() || capture_client_open(&cc) ||
	    report_open(&rep, o.out))
		return 2;
	rep.hex_all = o.hex_all;
	st.cookie_counter = tcpext_counter("TCPSynNotSavedCookie") >= 0 ? "TCPSynNotSavedCookie" :
								   "SyncookiesRecv";
	st.cookies_base = tcpext_counter(st.cookie_counter);
	for (int i = 0; i < 4; i++)
		st.tcpext_base[i] = tcpext_counter(tcpext_names[i]);
	ep = epoll_create1(EPOLL_CLOEXEC);
	for (int i = 0; i < 4; i++) {
		int family = i < 2 ? AF_INET : AF_INET6, mode = i % 2 + 1;

		lfd[i] = start_listener(family, family == AF_INET ? "0.0.0.0" : "::",
					PORT_BASE + mode - 1, mode, 4096);
		/* Non-blocking, so the accept loop below ends with EAGAIN instead of waiting. */
		if (lfd[i] < 0 || fcntl(lfd[i], F_SETFL, O_NONBLOCK) || listener_knobs(lfd[i], family))
			return 2;
		ev = (struct epoll_event){ .events = EPOLLIN, .data.u32 = i };
		epoll_ctl(ep, EPOLL_CTL_ADD, lfd[i], &ev);
	}
	gen_table = calloc(2 * 65536, sizeof(*gen_table));
	{
		ufd = active_socket();
		if (!gen_table || ufd < 0)
			return 2;
		ev = (struct epoll_event){ .events = EPOLLIN, .data.u32 = 4 };
		epoll_ctl(ep, EPOLL_CTL_ADD, ufd, &ev);
	}
	if (o.ready_file) {
		FILE *rf = fopen(o.ready_file, "w");

		if (!rf || fclose(rf)) {
			fprintf(stderr, "syntwin-server: cannot write %s\n", o.ready_file);
			return 2;
		}
	}
	/* Start-of-run memory (soak runs compare it with the end), then a summary marked partial at
	 * once: whatever ends this process from here on leaves one on disk. */
	st.evictions = -1;
	st.slab_start = slab_bytes("");
	st.syn_slab_start = saved_syn_slab();
	st.slab_end = st.syn_slab_end = -1;
	st.partial = true;
	if (write_summary(&o, &cc, &st, false))
		return 2;

	while ((st.conns < o.connections || st.active < o.active) && !stop) {
		int n = epoll_wait(ep, evs, 8, 1000);
		time_t now = time(NULL);

		for (int e = 0; e < n; e++) {
			int i = evs[e].data.u32, fd;

			if (i == 4) {
				drain_channel(ufd, &o, &cc, &rep, &st);
				last = now;
				continue;
			}
			while ((fd = accept4(lfd[i], NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
				one_socket(fd, i < 2 ? AF_INET : AF_INET6, i % 2 + 1, ufd, &o, &rng, &cc,
					   &rep, &st);
				/* Take what a Fast Open SYN carried: closing with unread data would
				 * reset the connection under the client. */
				while (recv(fd, drain, sizeof(drain), MSG_DONTWAIT) > 0)
					;
				close(fd);
				last = now;
				if (st.conns >= o.connections)
					break;
			}
		}
		if (st.write_errno)
			break;
		if (now - last_progress >= 3) {
			/* Checkpoint: the records so far on disk, and a partial summary that counts
			 * them, so a killed server still leaves both. */
			int bad = report_flush(&rep);

			st.records_written = rep.lines_written;
			if (bad || write_summary(&o, &cc, &st, false)) {
				st.write_errno = errno ? errno : EIO;
				break;
			}
			printf("  ... %llu/%llu connections compared (active %llu/%llu), %llu unexplained\n",
			       (unsigned long long)st.conns, (unsigned long long)o.connections,
			       (unsigned long long)st.active, (unsigned long long)o.active,
			       (unsigned long long)st.unexplained);
			fflush(stdout);
			last_progress = now;
		}
		if ((uint64_t)(now - last) >= o.idle_s) {
			fprintf(stderr, "syntwin-server: nothing for %llu s; stopping with %llu of %llu "
				"connections, %llu of %llu active records\n",
				(unsigned long long)o.idle_s, (unsigned long long)st.conns,
				(unsigned long long)o.connections, (unsigned long long)st.active,
				(unsigned long long)o.active);
			break;
		}
	}
	if (ufd >= 0) {
		close(ufd);
		unlink(CLIENT_SOCK_PATH);
	}
	capture_each_unbound(&cc, print_unbound, &(struct unbound_ctx){ &o, &rep, &st });
	st.evictions = capture_evictions(&cc);
	if (st.evictions > 0 || st.lost)
		fprintf(stderr, "syntwin-server: the witness's maps (%u entries each) evicted %lld "
			"record(s); %llu connection(s) have no capture: results are partial (raise "
			"--entries)\n", cc.capacity, st.evictions, (unsigned long long)st.lost);
	st.slab_end = slab_bytes("");
	st.syn_slab_end = saved_syn_slab();
	st.partial = st.conns < o.connections || st.active < o.active || st.evictions > 0 ||
		     st.lost || st.write_errno;
	if (stop)
		fprintf(stderr, "syntwin-server: stopped by signal %d; results kept, marked partial\n",
			(int)stop);
	if (st.write_errno)
		fprintf(stderr, "syntwin-server: cannot write results in %s: %s; stopped with %llu "
			"of %llu connections (marked partial if the summary could be written)\n",
			o.out, strerror(st.write_errno), (unsigned long long)st.conns,
			(unsigned long long)o.connections);
	rc = report_close(&rep); /* first: the summary counts the records it flushed */
	st.records_written = rep.lines_written;
	if (!cookie_cross_check(&st, &cookie_growth)) {
		/* The kernel's count and the witness's proofs disagree: a failure either way. */
		fprintf(stderr, "syntwin: syncookie cross-check failed: %llu connection(s) proven by "
			"the witness, TcpExt%s grew by %lld (rule: %s)\n",
			(unsigned long long)st.reason[R_SYNCOOKIE], st.cookie_counter,
			(long long)cookie_growth, strcmp(st.cookie_counter, "TCPSynNotSavedCookie") ?
			"proven <= growth" : "proven == growth");
		st.unexplained++;
	}
	rc |= write_summary(&o, &cc, &st, true);
	if (rc && !st.write_errno)
		fprintf(stderr, "syntwin-server: cannot finish the results in %s\n", o.out);
	char actives[64] = "";

	if (o.active)
		snprintf(actives, sizeof(actives), " + %llu active (SYN-ACK)",
			 (unsigned long long)st.active);
	printf("%llu connections%s: %llu identical, %llu explained (ipv4-option-rewrite %llu, "
	       "syncookie %llu, vlan-offload %llu, rejected-by-kernel %llu, syn-retransmit %llu), "
	       "%llu unexplained%s\n",
	       (unsigned long long)st.conns, actives, (unsigned long long)st.verdict[V_IDENTICAL],
	       (unsigned long long)st.verdict[V_EXPLAINED],
	       (unsigned long long)st.reason[R_IPV4_OPTION_REWRITE],
	       (unsigned long long)st.reason[R_SYNCOOKIE],
	       (unsigned long long)st.reason[R_VLAN_OFFLOAD],
	       (unsigned long long)st.reason[R_REJECTED],
	       (unsigned long long)st.reason[R_RETRANSMIT], (unsigned long long)st.unexplained,
	       st.partial ? " (PARTIAL)" : "");
	capture_client_close(&cc);
	if (rc || st.write_errno)
		return 2;
	return st.unexplained || st.partial ? 1 : 0;
}
