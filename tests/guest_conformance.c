// SPDX-License-Identifier: GPL-2.0
/*
 * syntwin-conformance: the TCP_SAVE_SYN / TCP_SAVED_SYN behaviours the seeds promise, checked one
 * by one over the guest's veth pair (client netns -> server netns), for IPv4 and IPv6 and for
 * mode 1 and mode 2 where a behaviour has a mode. Each check prints one line:
 *   PASS <behaviour> <family> [mode N]: <what was seen>
 *   FAIL <behaviour> <family> [mode N]: observed <x>, expected <y>
 * Exit 0 only if every check passed. Needs compare/topology.sh's netns "client" and "server".
 * Line numbers cited below are of net/ipv4/ in linux-source-6.1 (6.1.192).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <sys/socket.h>
#include <unistd.h>

#include "copy_readers.h"
#include "copy_readers.skel.h"
#include "fail_copy_alloc.skel.h"
#include "hold_acks.skel.h"
#include "net_helpers.h"
#include "netstat.h"
#include "parse_num.h"
#include "provides.h"
#include "saved_syn_mem.h"
#include "slabinfo.h"
#include "topology.h"

#define MAC_LEN 14
#define SYN_BUF 1024

struct family {
	int af;
	const char *name, *server, *client;
};

static const struct family families[] = {
	{ AF_INET, "ipv4", TOPO_SERVER4, TOPO_CLIENT4 },
	{ AF_INET6, "ipv6", TOPO_SERVER6, TOPO_CLIENT6 },
};

static int ns_client = -1, ns_server = -1;
static uint8_t mac_client[6], mac_server[6];
static int failures, passes;
static unsigned int leak_connections = 10000;
static bool fault_injection;		/* --fault-injection: save-fails runs (and must) */
/* --provides FILE (required): what the series declares, never what the kernel shows */
static struct provides declared;
/* TCPSynSaveFail at the start, and the copies' allocations failed on purpose since (save-fails):
 * where the series declares the counter, it moves by exactly those */
static long long save_fail_base;
static unsigned int copies_failed_on_purpose;

/* --- plumbing ---------------------------------------------------------------------------- */

static void verdict(bool ok, const char *test, const struct family *f, int mode, const char *fmt,
		    ...) __attribute__((format(printf, 5, 6)));
static void verdict(bool ok, const char *test, const struct family *f, int mode, const char *fmt,
		    ...)
{
	va_list ap;

	printf("%s %s %s", ok ? "PASS" : "FAIL", test, f->name);
	if (mode)
		printf(" mode %d", mode);
	printf(": ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (ok)
		passes++;
	else
		failures++;
}

static void in_ns(int nsfd)
{
	if (netns_set(nsfd, "the test's netns"))
		exit(2);
}

static int open_ns(const char *name)
{
	int fd = open_netns(name);

	if (fd < 0) {
		fprintf(stderr, "syntwin-conformance: run compare/topology.sh up first\n");
		exit(2);
	}
	return fd;
}

static void read_mac(int nsfd, const char *dev, uint8_t mac[6])
{
	struct ifreq ifr = { 0 };
	int fd;

	in_ns(nsfd);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	if (fd < 0 || ioctl(fd, SIOCGIFHWADDR, &ifr) < 0) {
		log_err("SIOCGIFHWADDR %s", dev);
		exit(2);
	}
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	close(fd);
}

/* Writes @value to /proc/sys/@key in netns @nsfd; the old value goes to @old if non-NULL. */
static void sysctl_set(int nsfd, const char *key, const char *value, char *old, size_t oldsz)
{
	char path[128];
	FILE *f;

	in_ns(nsfd);
	snprintf(path, sizeof(path), "/proc/sys/%s", key);
	if (old) {
		f = fopen(path, "re");
		if (!f || !fgets(old, (int)oldsz, f)) {
			log_err("read %s", path);
			exit(2);
		}
		old[strcspn(old, "\n")] = 0;
		fclose(f);
	}
	f = fopen(path, "we");
	if (!f || fprintf(f, "%s\n", value) < 0 || fclose(f) != 0) {
		log_err("write %s=%s", path, value);
		exit(2);
	}
}

/* A listener on the server address; TCP_SAVE_SYN @before listen() and/or @after it (< 0: not). */
static int listener(const struct family *f, int before, int after)
{
	int fd;

	in_ns(ns_server);
	fd = start_listener(f->af, f->server, 0, before, 128);
	if (fd < 0)
		exit(2);
	if (after >= 0 && setsockopt(fd, IPPROTO_TCP, TCP_SAVE_SYN, &after, sizeof(after)) < 0) {
		log_err("setsockopt(TCP_SAVE_SYN=%d) after listen", after);
		exit(2);
	}
	return fd;
}

struct conn {
	int cfd, afd;
	uint16_t cport, sport;
};

/* Client-side socket options applied before connect(). */
struct client_opts {
	const void *dstopts; /* IPV6_DSTOPTS bytes */
	size_t dstopts_len;
	const char *tfo_data; /* send this in the SYN with MSG_FASTOPEN */
};

/* Connects from the client netns to @lfd's port and accepts. Exits on failure (setup error). */
static struct conn connect_accept(const struct family *f, int lfd, const struct client_opts *o)
{
	struct sockaddr_storage ss;
	struct conn c = { .sport = socket_port(lfd) };
	socklen_t len = make_sockaddr(f->af, f->server, c.sport, &ss);
	int rc;

	in_ns(ns_client);
	c.cfd = socket(f->af, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c.cfd < 0) {
		log_err("socket");
		exit(2);
	}
	if (o && o->dstopts &&
	    setsockopt(c.cfd, IPPROTO_IPV6, IPV6_DSTOPTS, o->dstopts, o->dstopts_len) < 0) {
		log_err("setsockopt(IPV6_DSTOPTS)");
		exit(2);
	}
	if (o && o->tfo_data)
		rc = sendto(c.cfd, o->tfo_data, strlen(o->tfo_data), MSG_FASTOPEN,
			    (struct sockaddr *)&ss, len) == (ssize_t)strlen(o->tfo_data) ? 0 : -1;
	else
		rc = connect(c.cfd, (struct sockaddr *)&ss, len);
	if (rc < 0) {
		log_err("connect %s port %u", f->server, c.sport);
		exit(2);
	}
	c.cport = socket_port(c.cfd);
	c.afd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (c.afd < 0) {
		log_err("accept");
		exit(2);
	}
	return c;
}

/*
 * Server closes first, then the client resets, so no TIME_WAIT socket outlives the connection
 * (thousands of them would only make the leak check noisier).
 */
static void conn_close(struct conn *c)
{
	struct linger lin = { .l_onoff = 1, .l_linger = 0 };

	close(c->afd);
	setsockopt(c->cfd, SOL_SOCKET, SO_LINGER, &lin, sizeof(lin));
	close(c->cfd);
}

/* One getsockopt(TCP_SAVED_SYN) with a @cap-byte buffer. */
struct read_result {
	int rc, err;
	socklen_t optlen;
	uint8_t buf[SYN_BUF];
};

static struct read_result saved_syn(int fd, socklen_t cap)
{
	struct read_result r = { .optlen = cap };

	r.rc = getsockopt(fd, IPPROTO_TCP, TCP_SAVED_SYN, r.buf, &r.optlen);
	r.err = r.rc < 0 ? errno : 0;
	return r;
}

/*
 * The saved SYN must be exactly [MAC header (mode 2)] + network header with every extension
 * header + TCP header of a SYN from the client to @c's ports, with nothing after the TCP header.
 * The expected length comes from the packet's own header fields. Returns NULL if it is, else a
 * description of the first thing wrong. *@ip_total gets the IP datagram length the header claims.
 */
/*
 * The network header's length at @ip (@n bytes): IPv4's IHL, or IPv6's 40 bytes and every
 * hop-by-hop, routing and destination-options header after it, (hdr_ext_len + 1) * 8 bytes
 * each. *@next: the protocol after it.
 */
static size_t network_len(const struct family *f, const uint8_t *ip, size_t n, uint8_t *next)
{
	size_t net;

	if (f->af == AF_INET) {
		*next = ip[9];
		return (ip[0] & 0x0f) * 4u;
	}
	*next = ip[6];
	net = 40;
	while ((*next == 0 || *next == 43 || *next == 60) && net + 2 <= n) {
		*next = ip[net];
		net += (ip[net + 1] + 1u) * 8u;
	}
	return net;
}

static const char *check_layout(const struct family *f, int mode, const uint8_t *p, size_t n,
				const struct conn *c, size_t *ip_total)
{
	static char why[160];
	size_t mac = mode == 2 ? MAC_LEN : 0, net, off;
	const uint8_t *ip = p + mac, *tcp;
	uint8_t next;

	if (n < mac + 20)
		return "shorter than a MAC + IP header";
	if (f->af == AF_INET) {
		if (ip[0] >> 4 != 4) {
			snprintf(why, sizeof(why), "IP version nibble %u at offset %zu, want 4",
				 ip[0] >> 4, mac);
			return why;
		}
		net = network_len(f, ip, n - mac, &next);
		*ip_total = (size_t)ip[2] << 8 | ip[3];
	} else {
		if (ip[0] >> 4 != 6) {
			snprintf(why, sizeof(why), "IP version nibble %u at offset %zu, want 6",
				 ip[0] >> 4, mac);
			return why;
		}
		net = network_len(f, ip, n - mac, &next);
		*ip_total = 40 + ((size_t)ip[4] << 8 | ip[5]);
	}
	if (next != IPPROTO_TCP) {
		snprintf(why, sizeof(why), "next protocol %u after %zu network bytes, want 6", next,
			 net);
		return why;
	}
	off = mac + net;
	if (n < off + 20) {
		snprintf(why, sizeof(why), "%zu bytes end inside the TCP header at %zu", n, off);
		return why;
	}
	tcp = p + off;
	if ((size_t)(tcp[12] >> 4) * 4 + off != n) {
		snprintf(why, sizeof(why), "%zu bytes, headers say %zu (mac %zu + net %zu + tcp %u)",
			 n, off + (tcp[12] >> 4) * 4u, mac, net, (tcp[12] >> 4) * 4u);
		return why;
	}
	if ((tcp[13] & 0x12) != 0x02) {
		snprintf(why, sizeof(why), "TCP flags 0x%02x, want SYN without ACK", tcp[13]);
		return why;
	}
	if ((tcp[0] << 8 | tcp[1]) != c->cport || (tcp[2] << 8 | tcp[3]) != c->sport) {
		snprintf(why, sizeof(why), "ports %u -> %u, want %u -> %u", tcp[0] << 8 | tcp[1],
			 tcp[2] << 8 | tcp[3], c->cport, c->sport);
		return why;
	}
	if (mode == 2) {
		uint16_t et = f->af == AF_INET ? 0x0800 : 0x86dd;

		if (memcmp(p, mac_server, 6) || memcmp(p + 6, mac_client, 6)) {
			snprintf(why, sizeof(why),
				 "MAC header %02x:%02x:%02x:%02x:%02x:%02x <- %02x:%02x:%02x:%02x:%02x:%02x, want s0 <- c0",
				 p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10],
				 p[11]);
			return why;
		}
		if ((p[12] << 8 | p[13]) != et) {
			snprintf(why, sizeof(why), "ethertype %04x, want %04x", p[12] << 8 | p[13],
				 et);
			return why;
		}
	}
	return NULL;
}

/* Reads the saved SYN with a large buffer and checks its layout; fills @what for the verdict. */
static bool read_good_syn(const struct family *f, int mode, const struct conn *c, char *what,
			  size_t whatsz, size_t *len, size_t *ip_total, uint8_t *copy)
{
	struct read_result r = saved_syn(c->afd, SYN_BUF);
	const char *bad;

	if (r.rc < 0) {
		snprintf(what, whatsz, "observed getsockopt error %s, expected the saved SYN",
			 strerror(r.err));
		return false;
	}
	if (r.optlen == 0) {
		snprintf(what, whatsz, "observed 0 bytes, expected the saved SYN");
		return false;
	}
	bad = check_layout(f, mode, r.buf, r.optlen, c, ip_total);
	if (bad) {
		snprintf(what, whatsz, "observed %s, expected exact headers", bad);
		return false;
	}
	*len = r.optlen;
	if (copy)
		memcpy(copy, r.buf, r.optlen);
	snprintf(what, whatsz, "%u bytes of headers", r.optlen);
	return true;
}

/* TcpExt counter @name as the server netns sees it, or -1. */
static long long tcpext(const char *name)
{
	in_ns(ns_server);
	return tcpext_counter(name);
}

/* --- the behaviours ------------------------------------------------------------------------ */

/* 1. TCP_SAVE_SYN works set before listen() and set after it: tcp_reqsk_record_syn() (tcp_input.c
 *    :6995) reads the listener's save_syn when each SYN arrives, not at listen() time.
 */
static void t_save_before_after_listen(const struct family *f, int mode)
{
	for (int after = 0; after <= 1; after++) {
		int lfd = after ? listener(f, -1, mode) : listener(f, mode, -1);
		struct conn c = connect_accept(f, lfd, NULL);
		size_t len, tot;
		char what[256];
		bool ok = read_good_syn(f, mode, &c, what, sizeof(what), &len, &tot, NULL);

		verdict(ok, after ? "save-set-after-listen" : "save-set-before-listen", f, mode,
			"%s", what);
		conn_close(&c);
		close(lfd);
	}
}

/* 2. Read once: the copy is freed by the first successful read (tcp.c:4385). */
static void t_read_once(const struct family *f, int mode)
{
	int lfd = listener(f, mode, -1);
	struct conn c = connect_accept(f, lfd, NULL);
	size_t len, tot;
	char what[256];
	struct read_result r2;

	if (!read_good_syn(f, mode, &c, what, sizeof(what), &len, &tot, NULL)) {
		verdict(false, "read-once", f, mode, "first read: %s", what);
	} else {
		r2 = saved_syn(c.afd, SYN_BUF);
		if (r2.rc == 0 && r2.optlen == 0)
			verdict(true, "read-once", f, mode,
				"first read %zu bytes, second read rc 0 optlen 0", len);
		else
			verdict(false, "read-once", f, mode,
				"observed second read rc %d optlen %u, expected rc 0 optlen 0",
				r2.rc, r2.optlen);
	}
	conn_close(&c);
	close(lfd);
}

/* The client of @c resets its connection (SO_LINGER 0, close); the server's socket has seen
 * the RST once a read on it fails with ECONNRESET (at most 2 s). Exits on a setup error. */
static void reset_by_client(struct conn *c)
{
	struct linger lin = { .l_onoff = 1, .l_linger = 0 };
	struct pollfd p = { .fd = c->afd, .events = POLLIN };
	char byte;

	setsockopt(c->cfd, SOL_SOCKET, SO_LINGER, &lin, sizeof(lin));
	close(c->cfd);
	c->cfd = -1;
	if (poll(&p, 1, 2000) != 1 || recv(c->afd, &byte, 1, MSG_DONTWAIT) >= 0 ||
	    errno != ECONNRESET) {
		log_err("the server's socket never saw the client's reset");
		exit(2);
	}
}

/*
 * 11. A connection reset by its peer after accept keeps its copy until it is read or closed
 *     (tcp_reset() and tcp_done() leave it: only a read, a disconnect or the socket's
 *     destruction free it): the read after the reset returns the exact headers.
 */
static void t_reset_keeps_copy(const struct family *f, int mode)
{
	int lfd = listener(f, mode, -1);
	struct conn c = connect_accept(f, lfd, NULL);
	size_t len, tot;
	char what[256];
	bool ok;

	reset_by_client(&c);
	ok = read_good_syn(f, mode, &c, what, sizeof(what), &len, &tot, NULL);
	verdict(ok, "reset-keeps-copy", f, mode, "after the peer's reset: %s", what);
	close(c.afd);
	close(lfd);
}

/*
 * 9. Two readers at once (two threads, one socket, released together): exactly one gets the
 *    copy, the other 0 bytes -- the read and its free happen under the socket's lock
 *    (tcp.c:4365-4386). A kernel that reads without it hands the copy to both, or frees it
 *    twice. A race: many rounds, and a correct kernel never fails one.
 */
struct racer {
	int fd;
	pthread_barrier_t *go;
	struct read_result r;
};

static void *race_read(void *arg)
{
	struct racer *x = arg;

	pthread_barrier_wait(x->go);
	x->r = saved_syn(x->fd, SYN_BUF);
	return NULL;
}

/* One round on @c: 0 if exactly one reader got good headers and the other 0 bytes, else 1
 * (with what went wrong in @what if it is the first). */
static int race_round(const struct family *f, int mode, const struct conn *c, char *what,
		      size_t whatsz)
{
	pthread_barrier_t go;
	struct racer a = { .fd = c->afd, .go = &go }, b = { .fd = c->afd, .go = &go };
	pthread_t ta, tb;
	const struct read_result *got;
	size_t tot;
	const char *bad;

	if (pthread_barrier_init(&go, NULL, 2) || pthread_create(&ta, NULL, race_read, &a) ||
	    pthread_create(&tb, NULL, race_read, &b)) {
		log_err("pthread");
		exit(2);
	}
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	pthread_barrier_destroy(&go);
	if (a.r.rc || b.r.rc || !a.r.optlen == !b.r.optlen) {
		if (!what[0])
			snprintf(what, whatsz, "observed rc %d/%d optlen %u/%u, expected one read "
				 "with the copy and one of 0 bytes", a.r.rc, b.r.rc, a.r.optlen,
				 b.r.optlen);
		return 1;
	}
	got = a.r.optlen ? &a.r : &b.r;
	bad = check_layout(f, mode, got->buf, got->optlen, c, &tot);
	if (bad && !what[0])
		snprintf(what, whatsz, "observed %s in the read that got the copy", bad);
	return bad != NULL;
}

static void t_concurrent_readers(const struct family *f, int mode)
{
	enum { ROUNDS = 200 };
	int lfd = listener(f, mode, -1), failed = 0;
	char what[256] = "";

	for (int i = 0; i < ROUNDS; i++) {
		struct conn c = connect_accept(f, lfd, NULL);

		failed += race_round(f, mode, &c, what, sizeof(what));
		conn_close(&c);
	}
	if (failed)
		verdict(false, "concurrent-readers", f, mode, "%d of %d rounds: %s", failed, ROUNDS,
			what);
	else
		verdict(true, "concurrent-readers", f, mode, "%d rounds, two readers each: one got "
			"the copy, the other 0 bytes", ROUNDS);
	close(lfd);
}

/*
 * 3. Buffer too small: -EINVAL with optlen set to the needed length, and the copy is kept
 *    (tcp.c:4367-4374, seed 004); a read with that length then returns it.
 */
static void t_small_buffer(const struct family *f, int mode)
{
	int lfd = listener(f, mode, -1);
	struct conn c = connect_accept(f, lfd, NULL);
	struct read_result tiny = saved_syn(c.afd, 4), minus1, exact;
	size_t need = tiny.optlen, tot;
	const char *bad;

	if (tiny.rc != -1 || tiny.err != EINVAL || need <= 4) {
		verdict(false, "small-buffer-einval", f, mode,
			"observed rc %d (%s) optlen %u with a 4-byte buffer, expected -1 EINVAL and the needed length",
			tiny.rc, tiny.rc < 0 ? strerror(tiny.err) : "no error", tiny.optlen);
		goto out;
	}
	minus1 = saved_syn(c.afd, need - 1);
	if (minus1.rc != -1 || minus1.err != EINVAL || minus1.optlen != need) {
		verdict(false, "small-buffer-einval", f, mode,
			"observed rc %d optlen %u with a %zu-byte buffer, expected -1 EINVAL optlen %zu",
			minus1.rc, minus1.optlen, need - 1, need);
		goto out;
	}
	exact = saved_syn(c.afd, need);
	bad = exact.rc == 0 && exact.optlen == need ?
		      check_layout(f, mode, exact.buf, exact.optlen, &c, &tot) :
		      "a short or failed read";
	if (bad)
		verdict(false, "small-buffer-einval", f, mode,
			"observed %s (rc %d optlen %u) with the %zu-byte buffer the kernel asked for, expected the saved SYN",
			bad, exact.rc, exact.optlen, need);
	else
		verdict(true, "small-buffer-einval", f, mode,
			"4 and %zu bytes: EINVAL, optlen %zu; then %u bytes read", need - 1, need,
			exact.optlen);
out:
	conn_close(&c);
	close(lfd);
}

/* 4. Nothing saved (listener without the option, and TCP_SAVE_SYN=0): rc 0, optlen 0 (tcp.c:4388). */
static void t_nothing_saved(const struct family *f)
{
	for (int zero = 0; zero <= 1; zero++) {
		int lfd = listener(f, zero ? 0 : -1, -1);
		struct conn c = connect_accept(f, lfd, NULL);
		struct read_result r = saved_syn(c.afd, SYN_BUF);
		bool ok = r.rc == 0 && r.optlen == 0;

		verdict(ok, zero ? "nothing-saved-option-0" : "nothing-saved-option-unset", f, 0,
			ok ? "rc 0, optlen 0" : "observed rc %d optlen %u, expected rc 0 optlen 0",
			r.rc, r.optlen);
		conn_close(&c);
		close(lfd);
	}
}

/*
 * 5. Headers only: network header (with every IPv6 extension header) .. end of TCP header for
 *    mode 1, MAC .. TCP for mode 2; never payload. A TFO SYN carries data, so the IP length field
 *    of the saved header is larger than what was saved; the data reaches the accepted socket.
 */
static void t_headers_only(const struct family *f, int mode)
{
	static const char data[] = "syntwin-tfo-payload";
	struct client_opts tfo = { .tfo_data = data };
	int lfd = listener(f, mode, -1), qlen = 16;
	size_t len, tot, mac = mode == 2 ? MAC_LEN : 0;
	char what[256], got[64] = { 0 };
	struct conn c;
	bool ok;

	if (setsockopt(lfd, IPPROTO_TCP, TCP_FASTOPEN, &qlen, sizeof(qlen)) < 0) {
		log_err("setsockopt(TCP_FASTOPEN)");
		exit(2);
	}
	c = connect_accept(f, lfd, &tfo);
	ok = read_good_syn(f, mode, &c, what, sizeof(what), &len, &tot, NULL);
	if (ok && tot != len - mac + strlen(data)) {
		ok = false;
		snprintf(what, sizeof(what),
			 "observed IP length %zu for %zu header bytes, expected the SYN to carry %zu bytes of data",
			 tot, len - mac, strlen(data));
	}
	if (ok && (read(c.afd, got, sizeof(got) - 1) != (ssize_t)strlen(data) || strcmp(got, data))) {
		ok = false;
		snprintf(what, sizeof(what), "observed '%s' on the accepted socket, expected '%s'",
			 got, data);
	}
	verdict(ok, "headers-only-tfo-syn", f, mode,
		ok ? "%s; the SYN carried %zu data bytes, none saved" : "%s", what, strlen(data));
	conn_close(&c);

	if (f->af == AF_INET6) {
		/* 8-byte destination options header: PadN of 4 bytes. The kernel fills nexthdr. */
		static const uint8_t dst[8] = { 0, 0, 1, 4, 0, 0, 0, 0 };
		struct client_opts ext = { .dstopts = dst, .dstopts_len = sizeof(dst) };

		uint8_t copy[SYN_BUF];

		c = connect_accept(f, lfd, &ext);
		ok = read_good_syn(f, mode, &c, what, sizeof(what), &len, &tot, copy);
		/* check_layout() walked the chain; here: it was there, and all of it was saved */
		if (ok && (copy[mac + 6] != 60 || len - mac != tot)) {
			ok = false;
			snprintf(what, sizeof(what),
				 "observed next header %u and %zu saved of a %zu-byte datagram, expected 60 and all of it",
				 copy[mac + 6], len - mac, tot);
		}
		verdict(ok, "headers-only-ipv6-exthdr", f, mode, "%s%s", what,
			ok ? " incl. an 8-byte destination options header" : "");
		conn_close(&c);
	}
	close(lfd);
}

/*
 * 6. Syncookies: a connection validated by a cookie has no request sock that saw the SYN, so
 *    nothing is saved (tcp_input.c:7166: tcp_reqsk_record_syn() runs only if !want_cookie).
 *    TcpExtSyncookiesRecv proves a cookie validated it.
 */
static void t_syncookie(const struct family *f, int mode)
{
	char old[32];
	long long before, after;
	int lfd = listener(f, mode, -1);
	struct conn c;
	struct read_result r;
	bool ok;

	sysctl_set(ns_server, "net/ipv4/tcp_syncookies", "2", old, sizeof(old));
	before = tcpext("SyncookiesRecv");
	c = connect_accept(f, lfd, NULL);
	after = tcpext("SyncookiesRecv");
	sysctl_set(ns_server, "net/ipv4/tcp_syncookies", old, NULL, 0);
	r = saved_syn(c.afd, SYN_BUF);
	ok = r.rc == 0 && r.optlen == 0 && after > before;
	if (ok)
		verdict(true, "syncookie-nothing-saved", f, mode,
			"rc 0 optlen 0; TcpExtSyncookiesRecv +%lld", after - before);
	else
		verdict(false, "syncookie-nothing-saved", f, mode,
			"observed rc %d optlen %u, SyncookiesRecv +%lld; expected rc 0 optlen 0, +1 or more",
			r.rc, r.optlen, after - before);
	conn_close(&c);
	close(lfd);
}

/*
 * 7. Option values. setsockopt accepts 0, 1, 2 and refuses anything else with EINVAL, leaving the
 *    value alone (tcp.c:3757-3763: "if (val < 0 || val > 2) err = -EINVAL"). getsockopt returns
 *    the stored value (tcp.c:4358-4360). An accepted socket is a clone of its listener
 *    (sk_clone_lock() copies the whole sock), so it reports the listener's value. Turning the
 *    option off on the listener stops saving for later SYNs.
 */
static int get_save_syn(int fd)
{
	int v = -99;
	socklen_t l = sizeof(v);

	if (getsockopt(fd, IPPROTO_TCP, TCP_SAVE_SYN, &v, &l) < 0)
		return -100 - errno;
	return v;
}

static void t_option_values(const struct family *f, int mode)
{
	int lfd = listener(f, mode, -1), bad[] = { 3, -1, 256 };
	struct conn c;
	struct read_result r;
	bool ok = true;
	char what[256] = "";

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]) && ok; i++) {
		int rc = setsockopt(lfd, IPPROTO_TCP, TCP_SAVE_SYN, &bad[i], sizeof(bad[i]));
		int e = errno, now = get_save_syn(lfd);

		if (rc != -1 || e != EINVAL || now != mode) {
			ok = false;
			snprintf(what, sizeof(what),
				 "observed setsockopt(%d) rc %d (%s), value now %d; expected EINVAL and value %d",
				 bad[i], rc, rc < 0 ? strerror(e) : "no error", now, mode);
		}
	}
	if (ok) {
		c = connect_accept(f, lfd, NULL);
		if (get_save_syn(c.afd) != mode) {
			ok = false;
			snprintf(what, sizeof(what),
				 "observed accepted socket's TCP_SAVE_SYN %d, expected the listener's %d",
				 get_save_syn(c.afd), mode);
		}
		conn_close(&c);
	}
	if (ok)
		snprintf(what, sizeof(what),
			 "3, -1, 256 refused with EINVAL; getsockopt returns %d on listener and child",
			 mode);
	verdict(ok, "option-values", f, mode, "%s", what);

	/* Off after listen(): later SYNs are not saved. */
	{
		int zero = 0;

		setsockopt(lfd, IPPROTO_TCP, TCP_SAVE_SYN, &zero, sizeof(zero));
		c = connect_accept(f, lfd, NULL);
		r = saved_syn(c.afd, SYN_BUF);
		ok = r.rc == 0 && r.optlen == 0 && get_save_syn(lfd) == 0;
		verdict(ok, "option-turned-off", f, mode,
			ok ? "set to 0 after listen: later connection has nothing saved" :
			     "observed rc %d optlen %u, expected rc 0 optlen 0",
			r.rc, r.optlen);
		conn_close(&c);
	}
	close(lfd);
}

/* Waits (up to 3 s: closed sockets are destroyed asynchronously) until the follower's live
 * count is @want, and returns the counts then. */
static void mem_settle(struct saved_syn_mem *m, int64_t want, struct mem_counts *c)
{
	for (int i = 0; i < 300; i++) {
		saved_syn_mem_read(m, c);
		if (c->live == want)
			return;
		usleep(10 * 1000);
	}
}

/*
 * 10. A socket disconnected (connect(AF_UNSPEC)) before its copy was read keeps no copy: the
 *     read then returns 0 bytes, and the copy was freed by the disconnect, the socket still
 *     open (tcp_disconnect(), tcp.c:3213). A kernel that kept it would hand the old SYN to the
 *     socket once it connects again. Counted exactly by the memory follower.
 */
static void t_disconnect_frees(struct saved_syn_mem *m, int lfd[2][2], int64_t base)
{
	enum { N = 100 };
	struct sockaddr unspec = { .sa_family = AF_UNSPEC };
	struct conn c[N];
	struct mem_counts a, b;
	int kept = 0;

	mem_settle(m, base, &a);
	for (int i = 0; i < N; i++)
		c[i] = connect_accept(&families[i % 2], lfd[i % 2][(i / 2) % 2], NULL);
	for (int i = 0; i < N; i++) {
		struct read_result r;

		if (connect(c[i].afd, &unspec, sizeof(unspec)) < 0) {
			log_err("connect(AF_UNSPEC)");
			exit(2);
		}
		r = saved_syn(c[i].afd, SYN_BUF);
		kept += r.rc != 0 || r.optlen != 0;
	}
	saved_syn_mem_read(m, &b);
	verdict(!kept && b.allocs - a.allocs == N && b.frees - a.frees == N && b.live == a.live,
		"disconnect-frees", &families[0], 0,
		"%d accepted sockets disconnected unread (both families and modes), still open: "
		"%d read a copy after, %llu copies allocated, %llu freed, %lld live; expected 0, "
		"%d, %d, 0", N, kept, (unsigned long long)(b.allocs - a.allocs),
		(unsigned long long)(b.frees - a.frees), (long long)(b.live - a.live), N, N);
	for (int i = 0; i < N; i++)
		conn_close(&c[i]);
}

/* Is @r (a read of an active socket's copy, TCP_SAVE_SYN @mode) a SYN-ACK's headers from port
 * @from to port @to of family @f: the MAC header in mode 2 only, then IP (no options or
 * extension headers on this path), then TCP with SYN and ACK set, and nothing after? */
static bool synack_headers(const struct read_result *r, const struct family *f, int mode,
			   uint16_t from, uint16_t to)
{
	size_t off = mode == 2 ? 14 : 0, ip = f->af == AF_INET ? 20 : 40;
	const uint8_t *t = r->buf + off + ip;

	if (r->rc || r->optlen < off + ip + 20 || r->buf[off] >> 4 != (f->af == AF_INET ? 4 : 6) ||
	    (f->af == AF_INET && (r->buf[off] & 15) != 5))
		return false;
	return (t[13] & 0x3f) == 0x12 && (t[0] << 8 | t[1]) == from && (t[2] << 8 | t[3]) == to &&
	       r->optlen == off + ip + (size_t)(t[12] >> 4) * 4;
}

/*
 * 18. An accepted socket inherits its listener's TCP_SAVE_SYN (sock_copy()) and
 *     tcp_disconnect() keeps it: disconnected (connect(AF_UNSPEC)) and connected again to
 *     another listener, it is an active open with the option set (road F3,
 *     docs/saved-copy-life.md). A series that declares the SYN-ACK save (provides:
 *     synack-save) saves that SYN-ACK: the read is its headers, from the other listener's port
 *     to the socket's, the MAC header in mode 2 only, and TCPSynAckSaved grows by one; a kernel
 *     that declares no such save saves nothing. Every copy allocated is freed once.
 */
static void t_reconnect_synack(struct saved_syn_mem *m, const struct family *f, int mode)
{
	struct sockaddr unspec = { .sa_family = AF_UNSPEC };
	int lfd = listener(f, mode, -1), other = listener(f, -1, -1), inherited = -1, oafd;
	uint16_t from = socket_port(other), to;
	long long saved0 = tcpext("TCPSynAckSaved"), saved1;
	socklen_t il = sizeof(inherited), len;
	struct sockaddr_storage ss;
	struct mem_counts m0, m1;
	struct read_result r;
	bool saved, want, shape, counted;
	struct conn c;

	saved_syn_mem_read(m, &m0);
	c = connect_accept(f, lfd, NULL);
	getsockopt(c.afd, IPPROTO_TCP, TCP_SAVE_SYN, &inherited, &il);
	len = make_sockaddr(f->af, f->server, from, &ss);
	if (connect(c.afd, &unspec, sizeof(unspec)) < 0 ||
	    connect(c.afd, (struct sockaddr *)&ss, len) < 0) {
		log_err("reconnect-synack: disconnect and connect again");
		exit(2);
	}
	to = socket_port(c.afd);
	oafd = accept4(other, NULL, NULL, SOCK_CLOEXEC);
	r = saved_syn(c.afd, SYN_BUF);
	saved1 = tcpext("TCPSynAckSaved");
	saved = r.rc == 0 && r.optlen > 0;
	want = declared.synack_save;
	shape = !saved || synack_headers(&r, f, mode, from, to);
	counted = !provides_counter(&declared, "TCPSynAckSaved") || saved1 - saved0 == (want ? 1 : 0);
	close(oafd);
	conn_close(&c);
	close(other);
	close(lfd);
	mem_settle(m, m0.live, &m1);
	verdict(inherited == mode && saved == want && shape && counted &&
			m1.allocs - m0.allocs == 1 + (uint64_t)saved &&
			m1.frees - m0.frees == m1.allocs - m0.allocs && m1.live == m0.live,
		"reconnect-synack", f, mode, "accepted from a TCP_SAVE_SYN %d listener (the socket "
		"reports %d), disconnected, connected again: read rc %d, %u bytes%s (SYN-ACK save "
		"%s); TCPSynAckSaved %+lld; %llu copies allocated, %llu freed, %lld live; expected "
		"%s, %d allocated and freed, 0 live", mode, inherited, r.rc, r.optlen,
		saved ? (shape ? ", the SYN-ACK's headers" : ", NOT the SYN-ACK's headers") : "",
		declared.synack_save ? "declared" : "not declared",
		saved1 - saved0, (unsigned long long)(m1.allocs - m0.allocs),
		(unsigned long long)(m1.frees - m0.frees), (long long)(m1.live - m0.live),
		want ? "the SYN-ACK's headers" : "0 bytes", 1 + (int)want);
}

/*
 * 19. A socket that connects to itself (bound to the server address, then connect() to that
 *     address and port: a simultaneous open with itself, road F2) receives its own SYN in
 *     SYN_SENT and its own SYN-ACK in SYN_RECV: the series saves a SYN-ACK only in SYN_SENT,
 *     so the reference keeps nothing. Whatever a kernel keeps, it is never the SYN (the flags
 *     of a bare SYN), only a SYN-ACK's headers, and every copy allocated is freed once.
 */
static void t_self_connect(struct saved_syn_mem *m, const struct family *f, int mode)
{
	struct sockaddr_storage ss;
	socklen_t len = make_sockaddr(f->af, f->server, 0, &ss);
	struct mem_counts m0, m1;
	struct read_result r;
	uint16_t port;
	bool shape;
	int fd;

	in_ns(ns_server);
	saved_syn_mem_read(m, &m0);
	fd = socket(f->af, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&ss, len) ||
	    setsockopt(fd, IPPROTO_TCP, TCP_SAVE_SYN, &mode, sizeof(mode))) {
		log_err("self-connect: socket");
		exit(2);
	}
	port = socket_port(fd);
	len = make_sockaddr(f->af, f->server, port, &ss);
	if (connect(fd, (struct sockaddr *)&ss, len) < 0) {
		log_err("self-connect: connect to itself");
		exit(2);
	}
	r = saved_syn(fd, SYN_BUF);
	shape = r.rc == 0 && (r.optlen == 0 || synack_headers(&r, f, mode, port, port));
	close(fd);
	mem_settle(m, m0.live, &m1);
	verdict(shape && m1.frees - m0.frees == m1.allocs - m0.allocs && m1.live == m0.live,
		"self-connect", f, mode, "a socket connected to itself with TCP_SAVE_SYN %d: read rc "
		"%d, %u bytes%s; %llu copies allocated, %llu freed, %lld live; expected nothing or "
		"a SYN-ACK's headers (the reference: nothing), every copy freed", mode, r.rc,
		r.optlen, r.optlen && !shape ? ", NOT a SYN-ACK's headers" : "",
		(unsigned long long)(m1.allocs - m0.allocs),
		(unsigned long long)(m1.frees - m0.frees), (long long)(m1.live - m0.live));
}

/*
 * 8. Closing an accepted socket without reading frees the copy (tcp_ipv4.c:2306,
 *    tcp_v4_destroy_sock(), used by IPv6 too). Counted exactly by the saved-SYN memory
 *    follower (bpf/saved_syn_mem.bpf.c: every kmalloc from a saved-SYN function, followed to
 *    its kfree): 1,000 unread connections held are exactly 1,000 live copies; after N
 *    connections closed unread (both families, both modes) exactly N more were allocated and
 *    freed, and none is left.
 */
static void t_no_leak(struct saved_syn_mem *m)
{
	const unsigned int held = 1000;
	const struct family *f = &families[0];
	struct mem_counts c0, c1, c2;
	struct conn *hold;
	int lfd[2][2];

	for (int fi = 0; fi < 2; fi++)
		for (int md = 0; md < 2; md++)
			lfd[fi][md] = listener(&families[fi], md + 1, -1);

	hold = calloc(held, sizeof(*hold));
	if (!hold)
		exit(2);
	mem_settle(m, 0, &c0);
	for (unsigned int i = 0; i < held; i++)
		hold[i] = connect_accept(f, lfd[0][0], NULL);
	saved_syn_mem_read(m, &c1);
	verdict(c1.allocs - c0.allocs == held && c1.live - c0.live == (int64_t)held &&
		c1.untracked == c0.untracked, "held-copies-counted", f, 1,
		"%u unread connections held: %llu copies allocated, %lld live, %llu untracked "
		"(from %s); expected exactly %u and %u", held,
		(unsigned long long)(c1.allocs - c0.allocs), (long long)(c1.live - c0.live),
		(unsigned long long)(c1.untracked - c0.untracked), saved_syn_mem_sites(m), held, held);
	for (unsigned int i = 0; i < held; i++)
		conn_close(&hold[i]);
	free(hold);

	t_disconnect_frees(m, lfd, c0.live);
	mem_settle(m, c0.live, &c1);
	for (unsigned int i = 0; i < leak_connections; i++) {
		struct conn c = connect_accept(&families[i % 2], lfd[i % 2][(i / 2) % 2], NULL);

		conn_close(&c);
	}
	mem_settle(m, c0.live, &c2);
	verdict(c2.allocs - c1.allocs == leak_connections &&
		c2.frees - c1.frees == leak_connections && c2.live == c0.live && c2.untracked == c0.untracked,
		"closed-unread-no-leak", f, 0,
		"%u connections closed unread (both families, both modes): %llu copies allocated, "
		"%llu freed, %lld left; expected exactly %u, %u, 0", leak_connections,
		(unsigned long long)(c2.allocs - c1.allocs), (unsigned long long)(c2.frees - c1.frees),
		(long long)(c2.live - c0.live), leak_connections, leak_connections);
	for (int fi = 0; fi < 2; fi++)
		for (int m = 0; m < 2; m++)
			close(lfd[fi][m]);
}

/* A listener in the reuseport group of @port (0: a new port), TCP_SAVE_SYN @mode, and
 * TCP_DEFER_ACCEPT @defer seconds: a handshake's bare ACK leaves its request waiting for data
 * (for 1 s: until its first SYN-ACK timer, which retransmits the SYN-ACK). */
static int reuseport_listener(const struct family *f, int mode, uint16_t port, int defer)
{
	struct sockaddr_storage ss;
	socklen_t len = make_sockaddr(f->af, f->server, port, &ss);
	int one = 1, fd;

	in_ns(ns_server);
	fd = socket(f->af, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) ||
	    setsockopt(fd, IPPROTO_TCP, TCP_SAVE_SYN, &mode, sizeof(mode)) ||
	    setsockopt(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &defer, sizeof(defer)) ||
	    bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 16)) {
		log_err("reuseport listener on port %u", port);
		exit(2);
	}
	return fd;
}

/* A client connected to @port (its handshake done, nothing sent yet). */
static struct conn client_connect(const struct family *f, uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t len = make_sockaddr(f->af, f->server, port, &ss);
	struct conn c = { .afd = -1, .sport = port };

	in_ns(ns_client);
	c.cfd = socket(f->af, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c.cfd < 0 || connect(c.cfd, (struct sockaddr *)&ss, len) < 0) {
		log_err("connect %s port %u", f->server, port);
		exit(2);
	}
	c.cport = socket_port(c.cfd);
	return c;
}

static void send_byte(const struct conn *c)
{
	if (send(c->cfd, "x", 1, 0) != 1) {
		log_err("send");
		exit(2);
	}
}

/* Waits up to @ms for listener @lfd to have a connection to accept. */
static bool acceptable(int lfd, int ms)
{
	struct pollfd p = { .fd = lfd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

/* Waits up to @ms for TcpExt counter @name (server netns) to reach @want; returns its value. */
static long long counter_reaches(const char *name, long long want, int ms)
{
	long long v = tcpext(name);

	for (int t = 0; v < want && t < ms; t += 10) {
		usleep(10 * 1000);
		v = tcpext(name);
	}
	return v;
}

/*
 * 12. A request or child moved to another listener of its reuseport group when its own
 *     listener closes (net.ipv4.tcp_migrate_req 1) keeps its copy, moved exactly once: on every
 *     road that moves one (inet_connection_sock.c): a child in the accept queue
 *     (inet_csk_listen_stop(), the request cloned), a request whose data arrives after the close
 *     (inet_csk_complete_hashdance(), cloned at the ACK), and a request whose SYN-ACK timer fires
 *     after it (reqsk_timer_handler(), cloned by the timer). Each is accepted on the other
 *     listener with the exact headers of its own SYN; the memory follower sees every copy
 *     freed once, none twice, none left. Only the timer's road moves a copy the request still
 *     holds (on the other two the child took it first: tcp_move_syn()), so each road is proved
 *     taken, by the kernel's TCPMigrateReqSuccess moving once per road in turn, before the
 *     next step. A kernel that leaves the copy with the old request frees it under the new one
 *     (a copy freed twice), one that clones without it loses it (0 bytes).
 */
enum { MIG_QUEUE, MIG_AT_ACK, MIG_TIMER, MIG_ROADS };
static const char *const mig_road[MIG_ROADS] = {
	"migrate-accept-queue", "migrate-at-ack", "migrate-on-timer",
};

static void t_migrate(struct saved_syn_mem *m, const struct family *f, int mode)
{
	int a = reuseport_listener(f, mode, 0, 30), b;
	struct conn c[MIG_ROADS];
	struct mem_counts m0, m1;
	long long moved0, moved[MIG_ROADS];
	char what[256], took[MIG_ROADS][96];

	if (m)
		saved_syn_mem_read(m, &m0);
	c[MIG_QUEUE] = client_connect(f, socket_port(a));
	send_byte(&c[MIG_QUEUE]);
	if (!acceptable(a, 2000)) {
		log_err("the first client's child never reached the accept queue");
		exit(2);
	}
	c[MIG_AT_ACK] = client_connect(f, socket_port(a));
	c[MIG_TIMER] = client_connect(f, socket_port(a));
	b = reuseport_listener(f, mode, socket_port(a), 30);
	moved0 = tcpext("TCPMigrateReqSuccess");
	close(a);		/* the child moves to b now; the requests stay, their listener closed */
	moved[MIG_QUEUE] = counter_reaches("TCPMigrateReqSuccess", moved0 + 1, 1000);
	send_byte(&c[MIG_AT_ACK]);	/* moved when its data arrives */
	moved[MIG_AT_ACK] = counter_reaches("TCPMigrateReqSuccess", moved0 + 2, 1000);
	/* moved by its SYN-ACK timer (1 s after its SYN-ACK), still without data */
	moved[MIG_TIMER] = counter_reaches("TCPMigrateReqSuccess", moved0 + 3, 5000);
	send_byte(&c[MIG_TIMER]);
	for (int r = 0; r < MIG_ROADS; r++)
		snprintf(took[r], sizeof(took[r]), "TCPMigrateReqSuccess +%lld after this road, want +%d",
			 moved[r] - moved0, r + 1);
	for (int n = 0; n < MIG_ROADS; n++) {
		struct sockaddr_storage peer;
		socklen_t plen = sizeof(peer);
		int fd = acceptable(b, 3000) ? accept4(b, (struct sockaddr *)&peer, &plen, SOCK_CLOEXEC) : -1;
		uint16_t port;
		char addr[64];

		if (fd < 0)
			break;
		socket_addr(fd, 1, addr, &port);
		for (int r = 0; r < MIG_ROADS; r++)
			if (c[r].cport == port)
				c[r].afd = fd;
	}
	for (int r = 0; r < MIG_ROADS; r++) {
		size_t len, tot;
		bool taken = moved[r] - moved0 == r + 1;
		bool ok = c[r].afd >= 0 &&
			  read_good_syn(f, mode, &c[r], what, sizeof(what), &len, &tot, NULL);

		verdict(ok && taken, mig_road[r], f, mode, "%s; %s",
			c[r].afd >= 0 ? what : "never accepted on the group's other listener", took[r]);
		if (c[r].afd < 0)
			c[r].afd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		conn_close(&c[r]);
	}
	close(b);
	if (!m)
		return;
	mem_settle(m, m0.live, &m1);
	/* at least one copy per SYN (a kernel may copy one when it moves it), each freed once */
	verdict(m1.allocs - m0.allocs >= MIG_ROADS && m1.frees - m0.frees == m1.allocs - m0.allocs &&
		m1.live == m0.live && m1.double_frees == m0.double_frees, "migrate-frees-once", f,
		mode, "%d SYNs, their copies moved and read: %llu allocated, %llu freed, %lld live, "
		"%llu freed twice; expected at least %d, as many freed, 0, 0", MIG_ROADS,
		(unsigned long long)(m1.allocs - m0.allocs), (unsigned long long)(m1.frees - m0.frees),
		(long long)(m1.live - m0.live), (unsigned long long)(m1.double_frees - m0.double_frees),
		MIG_ROADS);
}

/*
 * 13. A copy whose allocation fails (--fault-injection: bpf/fail_copy_alloc.bpf.c fails the
 *     first kmalloc inside tcp_conn_request(), once) costs the copy, never the connection:
 *     the connection is accepted, the read returns 0 bytes (no copy, never a stale or partial
 *     one), and where the series declares them TCPSynSaveFail moved by exactly one
 *     and TCPSynSaved not at all. Exactly one failure injected: the injector's own count.
 */
static void t_save_fails(struct fail_copy_alloc_bpf *fi, const struct family *f, int mode)
{
	int lfd = listener(f, mode, -1);
	long long fail0 = tcpext("TCPSynSaveFail"), saved0 = tcpext("TCPSynSaved"), fail1, saved1;
	bool counted;
	struct read_result r;
	struct conn c;
	char cnt[160];

	fi->bss->injected = 0;
	fi->bss->armed = 1;
	c = connect_accept(f, lfd, NULL);
	fi->bss->armed = 0;
	copies_failed_on_purpose += fi->bss->injected;
	r = saved_syn(c.afd, SYN_BUF);
	fail1 = tcpext("TCPSynSaveFail");
	saved1 = tcpext("TCPSynSaved");
	counted = (!provides_counter(&declared, "TCPSynSaveFail") || fail1 - fail0 == 1) &&
		  (!provides_counter(&declared, "TCPSynSaved") || saved1 == saved0);
	snprintf(cnt, sizeof(cnt), "TCPSynSaveFail +%lld, TCPSynSaved +%lld (declared: %s, %s)",
		 fail1 - fail0, saved1 - saved0,
		 provides_counter(&declared, "TCPSynSaveFail") ? "+1" : "not checked",
		 provides_counter(&declared, "TCPSynSaved") ? "+0" : "not checked");
	verdict(fi->bss->injected == 1 && r.rc == 0 && r.optlen == 0 && counted, "save-fails", f,
		mode, "%u allocation failure(s) injected, then the read: rc %d, %u bytes; %s; "
		"expected 1 injected, rc 0, 0 bytes", fi->bss->injected, r.rc, r.optlen, cnt);
	conn_close(&c);
	close(lfd);
}

/*
 * 20. Every counter the series declares is there, under its name, in the server's
 *     /proc/net/netstat: a kernel that misnames or drops one fails here, by name, and is never
 *     checked less for it (a missing counter would otherwise move by 0 where 0 is expected).
 *     Where TCPSynSaveFail is declared, it moved over the suite by exactly the allocations
 *     failed on purpose (save-fails; none without --fault-injection): a copy the kernel saved
 *     is never counted as failed.
 */
static void t_declared_counters(void)
{
	char missing[PROVIDES_MAX * PROVIDES_NAME] = "", fails[128] = "";
	long long moved = tcpext("TCPSynSaveFail") - save_fail_base;
	bool fail_ok = true;
	size_t used = 0;

	for (size_t i = 0; i < declared.ncounters; i++)
		if (tcpext(declared.counter[i]) < 0)
			used += (size_t)snprintf(missing + used, sizeof(missing) - used, " %s",
						 declared.counter[i]);
	if (provides_counter(&declared, "TCPSynSaveFail")) {
		fail_ok = moved == copies_failed_on_purpose;
		snprintf(fails, sizeof(fails), "; TCPSynSaveFail %+lld over the suite, want +%u (the "
			 "allocations failed on purpose)", moved, copies_failed_on_purpose);
	}
	verdict(!used && fail_ok, "declared-counters", &families[0], 0, "%zu counter(s) declared%s%s%s",
		declared.ncounters, used ? "; missing from /proc/net/netstat:" : ", all present",
		missing, fails);
}

/* --- Fast Open requests held, and a request that expires as it migrates -------------------- */

/* bpf/hold_acks.bpf.c on the client's device, egress: holds the bare ACKs to one server port. */
static struct hold_acks_bpf *ack_holder(void)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .attach_point = BPF_TC_EGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = 1, .priority = 1);
	struct hold_acks_bpf *h;
	int err;

	in_ns(ns_client);
	hook.ifindex = (int)if_nametoindex("c0");
	h = hold_acks_bpf__open_and_load();
	if (!h || !hook.ifindex) {
		log_err("hold_acks: load, or no c0 in the client netns");
		exit(2);
	}
	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST) {
		fprintf(stderr, "syntwin-conformance: clsact on c0: %s\n", strerror(-err));
		exit(2);
	}
	opts.prog_fd = bpf_program__fd(h->progs.hold_acks);
	err = bpf_tc_attach(&hook, &opts);
	if (err) {
		fprintf(stderr, "syntwin-conformance: tc egress hold_acks on c0: %s\n", strerror(-err));
		exit(2);
	}
	return h;
}

static void ack_holder_close(struct hold_acks_bpf *h)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .attach_point = BPF_TC_EGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = 1, .priority = 1);

	in_ns(ns_client);
	hook.ifindex = (int)if_nametoindex("c0");
	if (bpf_tc_detach(&hook, &opts))
		log_err("hold_acks: detach from c0");
	hold_acks_bpf__destroy(h);
}

/* @fd's TCP state (TCP_SYN_RECV, TCP_CLOSE, ...; tcp_states.h's numbers), or -1. */
static int tcp_state(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	return getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) ? -1 : ti.tcpi_state;
}

/* The ACK holder attached now, released at any exit (a setup error's too). */
static struct hold_acks_bpf *holder;

static void holder_release(void)
{
	if (holder)
		ack_holder_close(holder);
}

/* A Fast Open client: the SYN carries @data; its handshake ACK is held (@h armed on @port). */
static struct conn tfo_client(const struct family *f, uint16_t port, const char *data)
{
	struct sockaddr_storage ss;
	socklen_t len = make_sockaddr(f->af, f->server, port, &ss);
	struct conn c = { .afd = -1, .sport = port };

	in_ns(ns_client);
	c.cfd = socket(f->af, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c.cfd < 0 || sendto(c.cfd, data, strlen(data), MSG_FASTOPEN, (struct sockaddr *)&ss,
				len) != (ssize_t)strlen(data)) {
		log_err("Fast Open connect %s port %u", f->server, port);
		exit(2);
	}
	c.cport = socket_port(c.cfd);
	return c;
}

static void fastopen_on(int lfd)
{
	int qlen = 16;

	if (setsockopt(lfd, IPPROTO_TCP, TCP_FASTOPEN, &qlen, sizeof(qlen)) < 0) {
		log_err("setsockopt(TCP_FASTOPEN)");
		exit(2);
	}
}

/* The read of @c's copy: its own SYN's headers, the SYN carrying @data (the IP length says so). */
static bool tfo_copy_good(const struct family *f, int mode, const struct conn *c,
			  const char *data, char *what, size_t whatsz)
{
	size_t len, tot, mac = mode == 2 ? MAC_LEN : 0;

	if (!read_good_syn(f, mode, c, what, whatsz, &len, &tot, NULL))
		return false;
	if (tot == len - mac + strlen(data))
		return true;
	snprintf(what, whatsz, "observed IP length %zu for %zu header bytes, expected the SYN's "
		 "%zu data bytes", tot, len - mac, strlen(data));
	return false;
}

/* Every copy allocated since @m0 freed once, none twice, none left: a line for the verdict. */
static bool freed_once(struct saved_syn_mem *m, const struct mem_counts *m0, uint64_t want,
		       char *what, size_t whatsz)
{
	struct mem_counts m1;

	mem_settle(m, m0->live, &m1);
	snprintf(what, whatsz, "%llu copies allocated, %llu freed, %lld live, %llu freed twice; "
		 "expected %llu, %llu, 0, 0", (unsigned long long)(m1.allocs - m0->allocs),
		 (unsigned long long)(m1.frees - m0->frees), (long long)(m1.live - m0->live),
		 (unsigned long long)(m1.double_frees - m0->double_frees),
		 (unsigned long long)want, (unsigned long long)want);
	return m1.allocs - m0->allocs == want && m1.frees - m0->frees == want &&
	       m1.live == m0->live && m1.double_frees == m0->double_frees;
}

/*
 * 21. A Fast Open child accepted before the client's handshake ACK, then reset by the client
 *     (road J, docs/saved-copy-life.md): the child took the copy from its request when the
 *     SYN made it (tcp_move_syn()); the reset removes the request, kept by its listener for 60
 *     s on the reset list (reqsk_fastopen_remove(), reset), and closes the child. The child's
 *     copy survives the reset: the read is its SYN's exact headers. The request is freed when
 *     its listener closes (inet_csk_listen_stop(), the reset list), and every copy once.
 */
static void t_tfo_reset_before_ack(struct saved_syn_mem *m, struct hold_acks_bpf *h,
				   const struct family *f, int mode)
{
	static const char data[] = "syntwin-tfo-reset";
	int lfd = listener(f, mode, -1), before, after = -1;
	char what[256] = "never accepted", freed[192];
	struct linger lin = { .l_onoff = 1, .l_linger = 0 };
	struct mem_counts m0;
	struct conn c;
	bool read_ok = false, gone;

	fastopen_on(lfd);
	saved_syn_mem_read(m, &m0);
	h->bss->port = socket_port(lfd);
	c = tfo_client(f, h->bss->port, data);
	/* a kernel that queues no child fails here, by name (no setup error, no hang) */
	c.afd = acceptable(lfd, 2000) ? accept4(lfd, NULL, NULL, SOCK_CLOEXEC) : -1;
	before = tcp_state(c.afd);	/* SYN_RECV: its handshake ACK held */
	setsockopt(c.cfd, SOL_SOCKET, SO_LINGER, &lin, sizeof(lin));
	close(c.cfd);		/* the reset, before any ACK of the SYN-ACK reached the child */
	c.cfd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	for (int t = 0; c.afd >= 0 && after != TCP_CLOSE && t < 2000; t += 10) {
		usleep(10 * 1000);
		after = tcp_state(c.afd);
	}
	h->bss->port = 0;
	if (c.afd >= 0)
		read_ok = tfo_copy_good(f, mode, &c, data, what, sizeof(what));
	else
		c.afd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	conn_close(&c);
	close(lfd);
	gone = freed_once(m, &m0, 1, freed, sizeof(freed));
	verdict(read_ok && before == TCP_SYN_RECV && after == TCP_CLOSE && gone,
		"tfo-reset-before-ack", f, mode, "a Fast Open child accepted in state %d (want "
		"SYN_RECV %d: its handshake ACK held), reset by the client: state %d (want CLOSE "
		"%d), read: %s; its listener closed: %s", before, TCP_SYN_RECV, after, TCP_CLOSE,
		what, freed);
}

/*
 * 22. A Fast Open child still waiting for the client's handshake ACK when its listener closes
 *     (roads J and D6): moved to the other listener of its reuseport group with a clone of its request,
 *     the clone made the child's Fast Open request (inet_reqsk_clone(): fastopen_rsk) and
 *     counted in the new listener's Fast Open queue. Accepted there, the child's copy is its
 *     SYN's exact headers; TCPMigrateReqSuccess moved once; every copy freed once.
 */
static void t_tfo_migrate_before_ack(struct saved_syn_mem *m, struct hold_acks_bpf *h,
				     const struct family *f, int mode)
{
	static const char data[] = "syntwin-tfo-migrate";
	int a = reuseport_listener(f, mode, 0, 0), b;
	long long moved0, moved;
	char what[256] = "never accepted on the group's other listener", freed[192];
	struct mem_counts m0;
	struct conn c;
	bool read_ok = false, gone;
	int state = -1;

	fastopen_on(a);
	saved_syn_mem_read(m, &m0);
	h->bss->port = socket_port(a);
	c = tfo_client(f, h->bss->port, data);
	if (!acceptable(a, 2000)) {	/* a kernel fault, named: no child to migrate */
		h->bss->port = 0;
		c.afd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		conn_close(&c);
		close(a);
		verdict(0, "tfo-migrate-before-ack", f, mode, "the Fast Open child never reached "
			"the accept queue (2 s)");
		return;
	}
	b = reuseport_listener(f, mode, socket_port(a), 0);
	fastopen_on(b);
	moved0 = tcpext("TCPMigrateReqSuccess");
	close(a);
	moved = counter_reaches("TCPMigrateReqSuccess", moved0 + 1, 1000);
	c.afd = acceptable(b, 2000) ? accept4(b, NULL, NULL, SOCK_CLOEXEC) : -1;
	if (c.afd >= 0) {
		state = tcp_state(c.afd);	/* still SYN_RECV: its handshake ACK held */
		read_ok = tfo_copy_good(f, mode, &c, data, what, sizeof(what));
	}
	h->bss->port = 0;
	if (c.afd < 0)
		c.afd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	conn_close(&c);
	close(b);
	gone = freed_once(m, &m0, 1, freed, sizeof(freed));
	verdict(read_ok && state == TCP_SYN_RECV && moved == moved0 + 1 && gone,
		"tfo-migrate-before-ack", f, mode, "a Fast Open child waiting for its handshake ACK "
		"(held), its listener closed: TCPMigrateReqSuccess %+lld (want +1); accepted on the "
		"other listener in state %d (want SYN_RECV %d): %s; %s", moved - moved0, state,
		TCP_SYN_RECV, what, freed);
}

/* The SYN-ACK timeouts so far (num_timeout) of the request from client port @cport: the
 * "retrnsmt" column of its SYN_RECV line in the server netns's /proc/net/tcp{,6}; -1 if none. */
static int request_timeouts(const struct family *f, uint16_t cport)
{
	char line[512], rem[80], *colon;
	unsigned int st, tmo;
	int n = -1;
	FILE *p;

	in_ns(ns_server);
	p = fopen(f->af == AF_INET ? "/proc/net/tcp" : "/proc/net/tcp6", "re");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%*s %*s %79s %x %*s %*s %x", rem, &st, &tmo) == 3 && st == 3 &&
		    (colon = strrchr(rem, ':')) && strtoul(colon + 1, NULL, 16) == cport)
			n = (int)tmo;
	fclose(p);
	return n;
}

/*
 * 23. A request migrated by its SYN-ACK timer when it has no retry left (road D6): a request
 *     waiting for data (TCP_DEFER_ACCEPT, its timer run once), its listener closed, the
 *     group's other listener allowing one retry (TCP_SYNCNT 1, TCP_DEFER_ACCEPT 1 s): the
 *     timer clones it to the other listener and finds the clone expired
 *     (reqsk_timer_handler(): TCPMigrateReqFailure), so the clone gives the copy back
 *     (reqsk_migrate_reset()) and the request is dropped with it. Nothing is accepted; the
 *     copy is freed once, never twice (a kernel that leaves it with both frees it twice).
 */
static void t_migrate_expires(struct saved_syn_mem *m, const struct family *f, int mode)
{
	int a = reuseport_listener(f, mode, 0, 30), b, one = 1, tmo = -1;
	long long held0, held, fail0, fail;
	struct mem_counts m0;
	char freed[192];
	struct conn c;
	bool accepted, gone;

	saved_syn_mem_read(m, &m0);
	held0 = tcpext("TCPDeferAcceptDrop");
	c = client_connect(f, socket_port(a));
	held = counter_reaches("TCPDeferAcceptDrop", held0 + 1, 2000);
	/* its timer's first run (1 s after the SYN-ACK: no retry while it waits); the next at 3 s */
	for (int t = 0; tmo < 1 && t < 3000; t += 10) {
		usleep(10 * 1000);
		tmo = request_timeouts(f, c.cport);
	}
	b = reuseport_listener(f, mode, socket_port(a), 1);
	if (setsockopt(b, IPPROTO_TCP, TCP_SYNCNT, &one, sizeof(one)) < 0) {
		log_err("setsockopt(TCP_SYNCNT)");
		exit(2);
	}
	fail0 = tcpext("TCPMigrateReqFailure");
	close(a);
	fail = counter_reaches("TCPMigrateReqFailure", fail0 + 1, 5000);
	accepted = acceptable(b, 0);
	close(b);
	c.afd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	conn_close(&c);
	gone = freed_once(m, &m0, 1, freed, sizeof(freed));
	verdict(held == held0 + 1 && tmo == 1 && fail == fail0 + 1 && !accepted && gone,
		"migrate-expires", f, mode, "a request waiting for data (TCPDeferAcceptDrop %+lld, "
		"want +1), its timer run %d time(s) (want 1), its listener closed: "
		"TCPMigrateReqFailure %+lld (want +1), %s accepted; %s", held - held0, tmo,
		fail - fail0, accepted ? "one" : "none", freed);
}

/*
 * 24. A request whose clone cannot be allocated as it migrates (road D6; --fault-injection:
 *     the request cache's next two allocations fail, bpf/fail_copy_alloc.bpf.c) moves nowhere: at its
 *     ACK with data (inet_csk_complete_hashdance(): the new child forgotten) and at its timer
 *     (reqsk_timer_handler(): the request dropped). TCPMigrateReqFailure counts both (from
 *     inet_reqsk_clone()), nothing is accepted on the other listener, and both copies are
 *     freed once: the forgotten child's and the dropped request's.
 */
static void t_migrate_clone_fails(struct saved_syn_mem *m, struct fail_copy_alloc_bpf *fi,
				  const struct family *f, int mode)
{
	int a = reuseport_listener(f, mode, 0, 30), b;
	long long held0, held, fail0, fail, at_ack_fail;
	struct conn at_ack, on_timer;
	struct mem_counts m0;
	char freed[192];
	bool accepted, gone;
	int timer_runs;

	saved_syn_mem_read(m, &m0);
	held0 = tcpext("TCPDeferAcceptDrop");
	at_ack = client_connect(f, socket_port(a));
	on_timer = client_connect(f, socket_port(a));
	held = counter_reaches("TCPDeferAcceptDrop", held0 + 2, 2000);
	b = reuseport_listener(f, mode, socket_port(a), 30);
	fail0 = tcpext("TCPMigrateReqFailure");
	fi->bss->injected_requests = 0;
	fi->bss->armed_requests = 2;	/* no SYN arrives meanwhile: only clones are requests */
	close(a);
	send_byte(&at_ack);		/* cloned at its data; the other by its timer, at 1 s */
	/* the at-ACK road proved taken: its failure counted while the other request's timer has
	 * not yet run (both timers were armed together: neither had fired) */
	at_ack_fail = counter_reaches("TCPMigrateReqFailure", fail0 + 1, 500);
	timer_runs = request_timeouts(f, on_timer.cport);
	fail = counter_reaches("TCPMigrateReqFailure", fail0 + 2, 4000);
	fi->bss->armed_requests = 0;
	accepted = acceptable(b, 0);
	close(b);
	at_ack.afd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	conn_close(&at_ack);
	on_timer.afd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	conn_close(&on_timer);
	gone = freed_once(m, &m0, 2, freed, sizeof(freed));
	verdict(held == held0 + 2 && fi->bss->injected_requests == 2 && at_ack_fail == fail0 + 1 &&
			timer_runs == 0 && fail == fail0 + 2 && !accepted && gone,
		"migrate-clone-fails", f, mode, "two requests waiting for data (TCPDeferAcceptDrop "
		"%+lld, want +2), their listener closed, %u clone allocation(s) failed (want 2): "
		"TCPMigrateReqFailure %+lld at the ACK while the other's timer had run %d time(s) "
		"(want +1, 0), %+lld in all (want +2), %s accepted; %s", held - held0,
		fi->bss->injected_requests, at_ack_fail - fail0, timer_runs, fail - fail0,
		accepted ? "one" : "none", freed);
}

/* The fault injector, attached (NULL, with a FAIL, when this kernel cannot take it). */
static struct fail_copy_alloc_bpf *fault_injector(void)
{
	struct fail_copy_alloc_bpf *fi = fail_copy_alloc_bpf__open_and_load();

	if (fi && fail_copy_alloc_bpf__attach(fi) == 0)
		return fi;
	verdict(0, "fault-injector-attaches", &families[0], 0,
		"fmod_ret on should_failslab() did not load or attach (%s): --fault-injection needs "
		"a kernel with its error-injection list (the coverage kernel)", strerror(errno));
	fail_copy_alloc_bpf__destroy(fi);
	return NULL;
}

/*
 * 16. A listener that closes with no other listener to take its connections (no reuseport
 *     partner, though migration is on) frees every copy it held, once: the child in its accept
 *     queue is forgotten (inet_csk_listen_stop() -> inet_child_forget() -> tcp_disconnect()),
 *     the request still waiting for its data is dropped by its SYN-ACK timer
 *     (reqsk_timer_handler(): nowhere to migrate). Counted by the memory follower.
 */
static void t_listener_closes(struct saved_syn_mem *m, const struct family *f, int mode)
{
	int lfd = reuseport_listener(f, mode, 0, 30);
	long long held0, held;
	struct mem_counts m0, m1;
	struct conn child, req;

	saved_syn_mem_read(m, &m0);
	child = client_connect(f, socket_port(lfd));
	send_byte(&child);
	if (!acceptable(lfd, 2000)) {
		log_err("listener-closes: the child never reached the accept queue");
		exit(2);
	}
	held0 = tcpext("TCPDeferAcceptDrop");
	req = client_connect(f, socket_port(lfd));
	held = counter_reaches("TCPDeferAcceptDrop", held0 + 1, 2000);
	close(lfd);
	/* the child at once; the request at its timer (1 s after its SYN-ACK) */
	mem_settle(m, m0.live, &m1);
	verdict(held == held0 + 1 && m1.allocs - m0.allocs == 2 && m1.frees - m0.frees == 2 &&
		m1.live == m0.live && m1.double_frees == m0.double_frees, "listener-closes-frees",
		f, mode, "a queued child and a waiting request (TCPDeferAcceptDrop +%lld, want +1), "
		"their listener closed: %llu copies allocated, %llu freed, %lld live, %llu freed twice; "
		"expected 2, 2, 0, 0", held - held0, (unsigned long long)(m1.allocs - m0.allocs),
		(unsigned long long)(m1.frees - m0.frees), (long long)(m1.live - m0.live),
		(unsigned long long)(m1.double_frees - m0.double_frees));
	child.afd = req.afd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	conn_close(&child);
	req.afd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	conn_close(&req);
}

/*
 * 17. A request queue more than half full when its requests' timers fire (a flood with no
 *     cookies: reqsk_timer_handler() shortens the SYN-ACK retries of old requests when fewer
 *     than half are young), then its listener closed: every copy freed, once. Ten requests
 *     held by TCP_DEFER_ACCEPT on a listener of backlog 16 (10 * 2 > 16): from the sixth
 *     timer on, fewer than half are young. The listener closes after the first round, and the
 *     requests are dropped at their next timer (nowhere to migrate). Counted by the memory
 *     follower.
 */
#define HALF_FULL_REQUESTS 10

static void t_queue_half_full(struct saved_syn_mem *m, const struct family *f)
{
	int lfd = reuseport_listener(f, 1, 0, 30);
	struct conn req[HALF_FULL_REQUESTS];
	long long held0 = tcpext("TCPDeferAcceptDrop"), held;
	struct mem_counts m0, m1;

	saved_syn_mem_read(m, &m0);
	for (int i = 0; i < HALF_FULL_REQUESTS; i++)
		req[i] = client_connect(f, socket_port(lfd));
	held = counter_reaches("TCPDeferAcceptDrop", held0 + HALF_FULL_REQUESTS, 2000);
	usleep(1500 * 1000); /* every request's first timer (1 s after its SYN-ACK) */
	close(lfd);
	/* each request at its next timer, 2 s after its first */
	for (int i = 0; i < 600; i++) {
		saved_syn_mem_read(m, &m1);
		if (m1.live == m0.live)
			break;
		usleep(10 * 1000);
	}
	verdict(held == held0 + HALF_FULL_REQUESTS &&
			m1.allocs - m0.allocs == HALF_FULL_REQUESTS &&
			m1.frees - m0.frees == HALF_FULL_REQUESTS && m1.live == m0.live &&
			m1.double_frees == m0.double_frees,
		"queue-half-full-frees", f, 1, "%d requests held (TCPDeferAcceptDrop +%lld) on a "
		"listener of backlog 16 past their first timer, then the listener closed: %llu copies "
		"allocated, %llu freed, %lld live, %llu freed twice; expected %d, %d, 0, 0",
		HALF_FULL_REQUESTS, held - held0, (unsigned long long)(m1.allocs - m0.allocs),
		(unsigned long long)(m1.frees - m0.frees), (long long)(m1.live - m0.live),
		(unsigned long long)(m1.double_frees - m0.double_frees), HALF_FULL_REQUESTS,
		HALF_FULL_REQUESTS);
	for (int i = 0; i < HALF_FULL_REQUESTS; i++) {
		req[i].afd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		conn_close(&req[i]);
	}
}

/*
 * 15. TCP_SAVE_SYN changed on the listener while a request waits (TCP_DEFER_ACCEPT holds it
 *     until its data): the copy is the one recorded at the SYN, in the mode the listener had
 *     then (tcp_reqsk_record_syn(), tcp_input.c); nothing is recorded when the child is made.
 *     Mode 2 then 0 keeps the MAC header, 1 then 2 has none, 0 then 1 has no copy at all.
 */
static void t_mode_changed(const struct family *f)
{
	static const int change[][2] = { { 2, 0 }, { 1, 2 }, { 0, 1 } };

	for (size_t i = 0; i < sizeof(change) / sizeof(*change); i++) {
		int from = change[i][0], to = change[i][1];
		int lfd = reuseport_listener(f, from, 0, 30);
		long long held0 = tcpext("TCPDeferAcceptDrop"), held;
		struct conn c = client_connect(f, socket_port(lfd));
		size_t len = 0, tot;
		char what[256];
		bool ok;

		/* the handshake's bare ACK was held back: the request is waiting, not a child yet */
		held = counter_reaches("TCPDeferAcceptDrop", held0 + 1, 2000);
		if (setsockopt(lfd, IPPROTO_TCP, TCP_SAVE_SYN, &to, sizeof(to)) < 0) {
			log_err("setsockopt(TCP_SAVE_SYN=%d) with a request queued", to);
			exit(2);
		}
		send_byte(&c);
		c.afd = acceptable(lfd, 3000) ? accept4(lfd, NULL, NULL, SOCK_CLOEXEC) : -1;
		if (c.afd < 0) {
			log_err("mode-changed: the connection was never accepted");
			exit(2);
		}
		if (from) {
			ok = read_good_syn(f, from, &c, what, sizeof(what), &len, &tot, NULL);
		} else {
			struct read_result r = saved_syn(c.afd, SYN_BUF);

			ok = r.rc == 0 && r.optlen == 0;
			snprintf(what, sizeof(what), "rc %d, %u bytes; expected no copy", r.rc, r.optlen);
		}
		verdict(ok && held == held0 + 1, "mode-changed-while-queued", f, 0,
			"mode %d at the SYN, %d while the request waits (TCPDeferAcceptDrop +%lld, want +1): %s",
			from, to, held - held0, what);
		conn_close(&c);
		close(lfd);
	}
}

/* Does region @r hold exactly the @n bytes at @want? */
static bool region_is(const struct read_region *r, const uint8_t *want, size_t n)
{
	return r->len == (int32_t)n && n <= READ_MAX && !memcmp(r->b, want, n);
}

/* The 4 bytes of the MSS option among the TCP options of header @tcp (@n bytes), or NULL. */
static const uint8_t *mss_option(const uint8_t *tcp, size_t n)
{
	for (size_t i = 20; i + 1 < n && tcp[i] != 0;) {
		if (tcp[i] == 1) {
			i++;
			continue;
		}
		if (tcp[i] == 2 && tcp[i + 1] == 4 && i + 4 <= n)
			return tcp + i;
		if (tcp[i + 1] < 2)
			return NULL;
		i += tcp[i + 1];
	}
	return NULL;
}

/*
 * What each reader at place @p must have returned, given the copy @u (@n bytes, mode @mode,
 * network header @net bytes) the application read: NULL if all of it, else the first wrong
 * one. @live: the place read the SYN itself (its MAC header is there in either mode);
 * @whole: TCP_SAVED_SYN was read too; @mss: bpf_load_hdr_opt was.
 */
static const char *place_wrong(const struct read_place *p, const uint8_t *u, size_t n, int mode,
			       size_t net, bool live, bool whole, bool mss)
{
	size_t mac = mode == 2 ? MAC_LEN : 0;
	const uint8_t *want_mss = mss_option(u + mac + net, n - mac - net);

	if (!region_is(&p->tcp, u + mac + net, n - mac - net))
		return "TCP_BPF_SYN is not the copy's TCP header";
	if (!region_is(&p->ip, u + mac, n - mac))
		return "TCP_BPF_SYN_IP is not the copy's network and TCP headers";
	if (mode == 2 && !region_is(&p->mac, u, n))
		return "TCP_BPF_SYN_MAC is not the whole copy";
	if (mode == 1 && !live && p->mac.len != -ENOENT)
		return "TCP_BPF_SYN_MAC returned something for a copy without a MAC header";
	if (mode == 1 && live && !(p->mac.len == (int32_t)(MAC_LEN + n) &&
				   !memcmp(p->mac.b, mac_server, 6) &&
				   !memcmp(p->mac.b + 6, mac_client, 6) &&
				   !memcmp(p->mac.b + MAC_LEN, u, n)))
		return "TCP_BPF_SYN_MAC is not the SYN's MAC header and the copy";
	if (whole && !region_is(&p->saved, u, n))
		return "bpf_getsockopt(TCP_SAVED_SYN) is not the copy";
	if (mss && !(want_mss && p->mss_rc == 4 && !memcmp(p->mss, want_mss, 4)))
		return "bpf_load_hdr_opt(TCP_SYN) did not find the copy's MSS option";
	return NULL;
}

/* Place @map holds for @port, or a zeroed one (hits 0) if none; the entry is taken out, so a
 * later connection from the same port starts afresh. */
static struct read_place place_of(const struct bpf_map *map, uint16_t port)
{
	struct read_place p = { 0 };

	if (bpf_map_lookup_elem(bpf_map__fd(map), &port, &p) < 0)
		memset(&p, 0, sizeof(p));
	bpf_map_delete_elem(bpf_map__fd(map), &port);
	return p;
}

/* Waits up to @ms for @map to hold a place for @port. */
static bool place_reached(const struct bpf_map *map, uint16_t port, int ms)
{
	struct read_place p;

	for (int t = 0; t < ms; t += 10) {
		if (bpf_map_lookup_elem(bpf_map__fd(map), &port, &p) == 0)
			return true;
		usleep(10 * 1000);
	}
	return false;
}

/* The application's read of @c's copy and the length of its network header, or false. */
static bool user_copy(const struct family *f, int mode, const struct conn *c, uint8_t *u,
		      size_t *n, size_t *net, char *what, size_t whatsz)
{
	size_t tot, mac = mode == 2 ? MAC_LEN : 0;
	uint8_t next;

	if (!read_good_syn(f, mode, c, what, whatsz, n, &tot, u))
		return false;
	*net = network_len(f, u + mac, *n - mac, &next);	/* read_good_syn checked it */
	return true;
}

/*
 * 14. The kernel's in-kernel readers of the copy (bpf/copy_readers.bpf.c, through
 *     bpf_sock_ops_get_syn(), net/core/filter.c) hand out exactly what the application reads:
 *     at the first SYN-ACK (the live SYN), at a retransmitted one (the request's copy) and at
 *     the child's ESTABLISHED callback (the child's copy, and TCP_SAVED_SYN whole), each region
 *     (TCP, network + TCP, MAC + network + TCP) and the SYN's MSS option. A copy whose bytes
 *     are right but whose header lengths are wrong shows here and nowhere else.
 */
static void t_bpf_readers(struct copy_readers_bpf *rd, const struct family *f, int mode)
{
	static const char *const name[] = { "bpf-readers-synack", "bpf-readers-retransmit",
					    "bpf-readers-established" };
	int lfd = reuseport_listener(f, mode, 0, 1);	/* the request waits out one timer */
	struct conn c = client_connect(f, socket_port(lfd));
	struct read_place at[3];
	uint8_t u[SYN_BUF];
	size_t n, net;
	char what[256];
	bool have;

	/* the SYN-ACK timer (1 s) retransmits from the request; then the data makes the child */
	place_reached(rd->maps.at_retransmit, c.cport, 5000);
	send_byte(&c);
	c.afd = acceptable(lfd, 3000) ? accept4(lfd, NULL, NULL, SOCK_CLOEXEC) : -1;
	if (c.afd < 0) {
		log_err("bpf-readers: the connection was never accepted");
		exit(2);
	}
	at[0] = place_of(rd->maps.at_synack, c.cport);
	at[1] = place_of(rd->maps.at_retransmit, c.cport);
	at[2] = place_of(rd->maps.at_established, c.cport);
	have = user_copy(f, mode, &c, u, &n, &net, what, sizeof(what));
	for (int i = 0; i < 3; i++) {
		/* one first SYN-ACK and one ESTABLISHED callback; the timer may resend more than once */
		const char *bad = !have ? what : !at[i].hits ? "the place was never reached" :
			(i != 1 && at[i].hits != 1) ? "the place was reached more than once" :
			place_wrong(&at[i], u, n, mode, net, i == 0, i == 2, i < 2);

		verdict(!bad, name[i], f, mode, "%s (read %u time(s), %zu-byte copy)",
			bad ? bad : "every region equals the copy", at[i].hits, n);
	}
	conn_close(&c);
	close(lfd);
}

/* The readers, attached to the root cgroup (NULL, with a FAIL, if they cannot be). */
static struct copy_readers_bpf *copy_readers(void)
{
	struct copy_readers_bpf *rd = copy_readers_bpf__open_and_load();
	int cg = open("/sys/fs/cgroup", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (rd && cg >= 0) {
		rd->links.copy_readers = bpf_program__attach_cgroup(rd->progs.copy_readers, cg);
		if (rd->links.copy_readers) {
			close(cg);
			return rd;
		}
	}
	verdict(0, "bpf-readers-attach", &families[0], 0,
		"the sockops readers did not load or attach to /sys/fs/cgroup (%s)", strerror(errno));
	if (cg >= 0)
		close(cg);
	copy_readers_bpf__destroy(rd);
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: syntwin-conformance --provides FILE [--leak-connections N] "
		"[--fault-injection]\n"
		"  --provides FILE: what the series under test declares (common/provides.h;\n"
		"  /dev/null for a stock kernel): what the suite expects, never the kernel's word\n");
	exit(2);
}

int main(int argc, char **argv)
{
	char old_cli[32], old_srv[32], old_mig[32];
	struct fail_copy_alloc_bpf *inj = NULL;
	struct hold_acks_bpf *hold;
	struct copy_readers_bpf *rd;
	struct saved_syn_mem *mem;
	bool have_provides = false;
	char err[128];
	uint64_t v;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--leak-connections") && i + 1 < argc) {
			if (parse_u64_range("--leak-connections", argv[++i], 1, 10000000, &v, err,
					    sizeof(err)) < 0) {
				fprintf(stderr, "syntwin-conformance: %s\n", err);
				exit(2);
			}
			leak_connections = (unsigned int)v;
		} else if (!strcmp(argv[i], "--fault-injection")) {
			fault_injection = true;
		} else if (!strcmp(argv[i], "--provides") && i + 1 < argc) {
			if (provides_load(argv[++i], &declared, err, sizeof(err)) < 0) {
				fprintf(stderr, "syntwin-conformance: %s\n", err);
				exit(2);
			}
			have_provides = true;
		} else {
			usage();
		}
	}
	if (!have_provides)
		usage();
	/* the slab control holds 1,000 connections: 2,000 descriptors */
	struct rlimit nofile = { 65536, 65536 };

	if (setrlimit(RLIMIT_NOFILE, &nofile) < 0) {
		log_err("setrlimit(RLIMIT_NOFILE, 65536)");
		exit(2);
	}
	ns_client = open_ns("client");
	ns_server = open_ns("server");
	read_mac(ns_client, "c0", mac_client);
	read_mac(ns_server, "s0", mac_server);
	/* TFO: the client sends data without a cookie; the server takes it without one */
	sysctl_set(ns_client, "net/ipv4/tcp_fastopen", "5", old_cli, sizeof(old_cli));
	sysctl_set(ns_server, "net/ipv4/tcp_fastopen", "514", old_srv, sizeof(old_srv));
	/* a closing listener's requests and children move to its reuseport group's other one */
	sysctl_set(ns_server, "net/ipv4/tcp_migrate_req", "1", old_mig, sizeof(old_mig));
	/* the kmalloc/kfree follower of the saved copies (bpf/saved_syn_mem.bpf.c) */
	mem = saved_syn_mem_open();
	if (fault_injection)
		inj = fault_injector();
	else
		printf("NOT RUN save-fails, migrate-clone-fails: an allocation is failed on purpose "
		       "only with --fault-injection, on the coverage kernel (docs/coverage.md)\n");
	hold = ack_holder();
	holder = hold;
	atexit(holder_release);	/* never a filter left holding ACKs after an exit */
	save_fail_base = tcpext("TCPSynSaveFail");

	for (int fi = 0; fi < 2; fi++) {
		const struct family *f = &families[fi];

		for (int mode = 1; mode <= 2; mode++) {
			t_save_before_after_listen(f, mode);
			t_read_once(f, mode);
			t_concurrent_readers(f, mode);
			t_reset_keeps_copy(f, mode);
			t_small_buffer(f, mode);
			t_headers_only(f, mode);
			t_syncookie(f, mode);
			t_option_values(f, mode);
			t_migrate(mem, f, mode);
			if (mem)
				t_listener_closes(mem, f, mode);
			if (mem)
				t_reconnect_synack(mem, f, mode);
			if (mem)
				t_self_connect(mem, f, mode);
			if (inj)
				t_save_fails(inj, f, mode);
			if (mem) {
				t_tfo_reset_before_ack(mem, hold, f, mode);
				t_tfo_migrate_before_ack(mem, hold, f, mode);
				t_migrate_expires(mem, f, mode);
			}
			if (mem && inj)
				t_migrate_clone_fails(mem, inj, f, mode);
		}

		t_nothing_saved(f);
		t_mode_changed(f);
	}
	t_declared_counters();
	rd = copy_readers();
	for (int fi = 0; rd && fi < 2; fi++)
		for (int mode = 1; mode <= 2; mode++)
			t_bpf_readers(rd, &families[fi], mode);
	copy_readers_bpf__destroy(rd);
	if (mem)
		t_queue_half_full(mem, &families[0]);
	if (mem)
		t_no_leak(mem);
	else
		verdict(0, "memory-follower-loads", &families[0], 0,
			"the kmalloc/kfree follower did not load");
	saved_syn_mem_close(mem);
	fail_copy_alloc_bpf__destroy(inj);
	holder = NULL;
	ack_holder_close(hold);

	sysctl_set(ns_client, "net/ipv4/tcp_fastopen", old_cli, NULL, 0);
	sysctl_set(ns_server, "net/ipv4/tcp_fastopen", old_srv, NULL, 0);
	sysctl_set(ns_server, "net/ipv4/tcp_migrate_req", old_mig, NULL, 0);
	printf("conformance: %d passed, %d failed\n", passes, failures);
	return failures ? 1 : 0;
}
