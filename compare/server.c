// SPDX-License-Identifier: GPL-2.0
/*
 * syntwin-server (guest, server netns): listeners with TCP_SAVE_SYN 1 and 2 for IPv4 and IPv6;
 * for every accepted socket, read the kernel's saved SYN, take the BPF capture bound to its
 * cookie, classify, and record. Writes connections.jsonl, mismatches.pcap and summary.json.
 * Exit: 0 all identical or explained and complete; 1 unexplained differences or partial; 2 usage.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "capture_client.h"
#include "classify.h"
#include "decode.h"
#include "net_helpers.h"
#include "parse_num.h"
#include "report.h"
#include "rng.h"

#define PORT_BASE 7001

struct opts {
	const char *out, *netns, *series_hash, *ready_file;
	uint64_t connections, seed, small_buffer_permille, idle_s, test_corrupt;
};

struct stats {
	uint64_t conns, verdict[V_MAX], reason[R_MAX], unexplained, small_buffer_checks;
	uint64_t cookies_base, tw_overflow_base;
	bool partial;
};

static volatile sig_atomic_t stop;
static void on_signal(int sig) { stop = sig; }

static const char usage[] =
	"usage: syntwin-server --out DIR [--connections N] [--seed S] [--netns NAME]\n"
	"                      [--series-hash H] [--small-buffer-permille P] [--idle-timeout S]\n"
	"                      [--ready-file F] [--test-corrupt K]\n"
	"  --test-corrupt K  TEST ONLY: flip one byte of every K-th BPF record before comparing\n";

static int parse(int argc, char **argv, struct opts *o)
{
	char err[256];

	*o = (struct opts){ .netns = "server", .series_hash = "", .connections = 10000,
			    .seed = 1, .small_buffer_permille = 50, .idle_s = 30 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int rc = 0;

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
		else if (!strcmp(a, "--connections"))
			rc = parse_u64_range(a, v, 1, 100000000, &o->connections, err, sizeof(err));
		else if (!strcmp(a, "--seed"))
			rc = parse_u64_range(a, v, 0, UINT64_MAX, &o->seed, err, sizeof(err));
		else if (!strcmp(a, "--small-buffer-permille"))
			rc = parse_u64_range(a, v, 0, 1000, &o->small_buffer_permille, err, sizeof(err));
		else if (!strcmp(a, "--idle-timeout"))
			rc = parse_u64_range(a, v, 1, 3600, &o->idle_s, err, sizeof(err));
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

/* A TcpExt counter of this netns (/proc/net/netstat), e.g. SyncookiesRecv: cookie-validated
 * ACKs, the proof for `syncookie`. 0 if absent. */
static uint64_t tcpext(const char *name)
{
	static char names[8192], values[8192];
	uint64_t result = 0;
	FILE *f = fopen("/proc/net/netstat", "r");

	if (!f)
		return 0;
	while (fgets(names, sizeof(names), f) && fgets(values, sizeof(values), f)) {
		char *sn, *sv, *n = strtok_r(names, " \n", &sn), *v = strtok_r(values, " \n", &sv);

		if (!n || strcmp(n, "TcpExt:"))
			continue;
		while ((n = strtok_r(NULL, " \n", &sn)) && (v = strtok_r(NULL, " \n", &sv)))
			if (!strcmp(n, name))
				result = strtoull(v, NULL, 10);
	}
	fclose(f);
	return result;
}

static void addr_port(int fd, bool peer, char *buf, uint16_t *port)
{
	struct sockaddr_storage ss;
	socklen_t l = sizeof(ss);

	(peer ? getpeername : getsockname)(fd, (struct sockaddr *)&ss, &l);
	if (ss.ss_family == AF_INET6) {
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, buf, 46);
		*port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	} else {
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, buf, 46);
		*port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	}
}

static void one_socket(int fd, int family, int mode, const struct opts *o, uint64_t *rng,
		       struct capture_client *cc, struct report *rep, struct stats *st)
{
	uint8_t native[1024];
	struct capture_rec rec;
	struct compare_result res;
	struct conn_record c = { .family = family, .mode = mode, .res = &res };
	struct compare_input in = { .mode = mode };
	char small[160] = "";
	socklen_t cl = sizeof(c.cookie);
	size_t needed = 0;
	int n, have_bpf;

	addr_port(fd, true, c.saddr, &c.sport);
	addr_port(fd, false, c.daddr, &c.dport);
	getsockopt(fd, SOL_SOCKET, SO_COOKIE, &c.cookie, &cl);

	/* Seeded fraction: a too-small buffer first, which must fail with EINVAL and the needed
	 * length, and keep the SYN for the exact-size read that follows (seed 004). */
	if (rng_permille(rng, (unsigned int)o->small_buffer_permille)) {
		st->small_buffer_checks++;
		n = read_saved_syn(fd, native, 8, &needed);
		if (n < 0 && errno == EINVAL && needed > 8 && needed <= sizeof(native)) {
			n = read_saved_syn(fd, native, needed, NULL);
			snprintf(small, sizeof(small), n == (int)needed ? "ok" :
				 "EINVAL said %zu bytes, the exact read returned %d", needed, n);
		} else if (n == 0) {
			snprintf(small, sizeof(small), "ok");
		} else {
			snprintf(small, sizeof(small), "8-byte buffer: returned %d (errno %d, optlen %zu), "
				 "want -1/EINVAL and the needed length", n, n < 0 ? errno : 0, needed);
			n = n > 0 ? n : read_saved_syn(fd, native, sizeof(native), NULL);
		}
	} else {
		n = read_saved_syn(fd, native, sizeof(native), NULL);
	}
	have_bpf = capture_lookup_cookie(cc, c.cookie, &rec, true) == 0;
	if (have_bpf && o->test_corrupt && (st->conns + 1) % o->test_corrupt == 0 && rec.cap_len > 20)
		rec.data[rec.cap_len - 5] ^= 0x5a; /* TEST ONLY (--test-corrupt) */

	in.native = n > 0 ? native : NULL;
	in.native_len = n > 0 ? (size_t)n : 0;
	in.bpf = have_bpf ? rec.data : NULL;
	in.bpf_len = have_bpf ? rec.cap_len : 0;
	in.bpf_mac_len = have_bpf ? rec.mac_len : 0;
	if (!in.native && have_bpf) {
		/* Only as many syncookie explanations as the kernel counted validations. */
		uint64_t seen = tcpext("SyncookiesRecv") - st->cookies_base;

		in.syncookie_proven = seen > st->reason[R_SYNCOOKIE];
	}
	int bad = classify(&in, &res);

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
	st->conns++;
	st->verdict[res.verdict]++;
	st->reason[res.reason]++;
	st->unexplained += bad;
	if (bad)
		fprintf(stderr, "syntwin: %s %s:%u mode %d: %s: %s\n", family == AF_INET6 ? "IPv6" : "IPv4",
			c.saddr, c.sport, mode, verdict_names[res.verdict], res.detail);
	c.native = in.native;
	c.native_len = in.native_len;
	c.bpf = in.bpf;
	c.bpf_len = in.bpf_len;
	c.bpf_mac_len = in.bpf_mac_len;
	c.small_buffer = small;
	report_conn(rep, &c);
}

static int count_unbound(const struct capture_key *k, const struct capture_rec *r, void *arg)
{
	(void)k, (void)r;
	(*(uint64_t *)arg)++;
	return 0;
}

/* Name every capture no accepted socket took: each is a SYN the kernel did not turn into an
 * accepted connection, or a binding the witness missed. */
static int print_unbound(const struct capture_key *k, const struct capture_rec *r, void *arg)
{
	char text[512];
	struct syn_layout l;

	(void)arg;
	syn_layout(r->data, r->cap_len, r->mac_len, &l);
	syn_decode_text(r->data, &l, text, sizeof(text));
	fprintf(stderr, "syntwin: unbound capture (isn %u): %s\n", k->seq,
		text);
	return 0;
}

static int write_summary(const struct opts *o, struct capture_client *cc, const struct stats *st)
{
	char json[4096], counters[1024] = "";
	__u64 cnt[CNT_MAX] = { 0 };
	uint64_t unbound = 0;
	struct utsname u;
	size_t used = 0;

	uname(&u);
	capture_counters(cc, cnt);
	capture_each_unbound(cc, count_unbound, &unbound);
	for (int i = 0; i < CNT_MAX; i++)
		used += snprintf(counters + used, sizeof(counters) - used, "%s\"%s\":%llu",
				 i ? "," : "", capture_counter_names[i], (unsigned long long)cnt[i]);
	snprintf(json, sizeof(json),
		 "{\n  \"connections\": %llu,\n  \"expected_connections\": %llu,\n"
		 "  \"identical\": %llu,\n  \"explained\": {\"ipv4-option-rewrite\": %llu, "
		 "\"syncookie\": %llu},\n  \"unexplained\": %llu,\n  \"differ\": %llu,\n"
		 "  \"native_missing\": %llu,\n  \"bpf_missing\": %llu,\n"
		 "  \"small_buffer_checks\": %llu,\n  \"unbound_captures\": %llu,\n"
		 "  \"tcpext\": {\"SyncookiesRecv\": %llu, \"TCPTimeWaitOverflow\": %llu},\n"
		 "  \"bpf_counters\": {%s},\n  \"kernel\": \"%s\",\n  \"series_hash\": \"%s\",\n"
		 "  \"seed\": %llu,\n  \"partial\": %s\n}\n",
		 (unsigned long long)st->conns, (unsigned long long)o->connections,
		 (unsigned long long)st->verdict[V_IDENTICAL],
		 (unsigned long long)st->reason[R_IPV4_OPTION_REWRITE],
		 (unsigned long long)st->reason[R_SYNCOOKIE], (unsigned long long)st->unexplained,
		 (unsigned long long)st->verdict[V_DIFFER],
		 (unsigned long long)st->verdict[V_NATIVE_MISSING],
		 (unsigned long long)st->verdict[V_BPF_MISSING],
		 (unsigned long long)st->small_buffer_checks, (unsigned long long)unbound,
		 (unsigned long long)(tcpext("SyncookiesRecv") - st->cookies_base),
		 (unsigned long long)(tcpext("TCPTimeWaitOverflow") - st->tw_overflow_base), counters,
		 u.release, o->series_hash, (unsigned long long)o->seed,
		 st->partial ? "true" : "false");
	return write_file_atomic(o->out, "summary.json", json);
}

int main(int argc, char **argv)
{
	struct epoll_event ev, evs[8];
	struct capture_client cc;
	struct report rep;
	struct stats st = { 0 };
	struct opts o;
	int ep, lfd[4], rc;
	uint64_t rng;
	time_t last = time(NULL), last_progress = last;

	if (parse(argc, argv, &o))
		return 2;
	rng = o.seed;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (enter_netns(o.netns) || capture_client_open(&cc) || report_open(&rep, o.out))
		return 2;
	st.cookies_base = tcpext("SyncookiesRecv");
	st.tw_overflow_base = tcpext("TCPTimeWaitOverflow");
	ep = epoll_create1(EPOLL_CLOEXEC);
	for (int i = 0; i < 4; i++) {
		int family = i < 2 ? AF_INET : AF_INET6, mode = i % 2 + 1;

		lfd[i] = start_listener(family, family == AF_INET ? "0.0.0.0" : "::",
					PORT_BASE + mode - 1, mode, 4096);
		/* Non-blocking, so the accept loop below ends with EAGAIN instead of waiting. */
		if (lfd[i] < 0 || fcntl(lfd[i], F_SETFL, O_NONBLOCK))
			return 2;
		ev = (struct epoll_event){ .events = EPOLLIN, .data.u32 = i };
		epoll_ctl(ep, EPOLL_CTL_ADD, lfd[i], &ev);
	}
	if (o.ready_file) {
		FILE *rf = fopen(o.ready_file, "w");

		if (!rf || fclose(rf)) {
			fprintf(stderr, "syntwin-server: cannot write %s\n", o.ready_file);
			return 2;
		}
	}
	write_summary(&o, &cc, &(struct stats){ .partial = true });

	while (st.conns < o.connections && !stop) {
		int n = epoll_wait(ep, evs, 8, 1000);
		time_t now = time(NULL);

		for (int e = 0; e < n; e++) {
			int i = evs[e].data.u32, fd;

			while ((fd = accept4(lfd[i], NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
				one_socket(fd, i < 2 ? AF_INET : AF_INET6, i % 2 + 1, &o, &rng, &cc, &rep,
					   &st);
				close(fd);
				last = now;
				if (st.conns >= o.connections)
					break;
			}
		}
		if (now - last_progress >= 3) {
			printf("  ... %llu/%llu connections compared, %llu unexplained\n",
			       (unsigned long long)st.conns, (unsigned long long)o.connections,
			       (unsigned long long)st.unexplained);
			fflush(stdout);
			last_progress = now;
		}
		if ((uint64_t)(now - last) >= o.idle_s) {
			fprintf(stderr, "syntwin-server: no connection for %llu s; stopping with %llu of %llu\n",
				(unsigned long long)o.idle_s, (unsigned long long)st.conns,
				(unsigned long long)o.connections);
			break;
		}
	}
	st.partial = st.conns < o.connections;
	capture_each_unbound(&cc, print_unbound, NULL);
	if (stop)
		fprintf(stderr, "syntwin-server: stopped by signal %d; results kept, marked partial\n",
			(int)stop);
	rc = report_close(&rep) | write_summary(&o, &cc, &st);
	printf("%llu connections: %llu identical, %llu explained (ipv4-option-rewrite %llu, syncookie "
	       "%llu), %llu unexplained%s\n",
	       (unsigned long long)st.conns, (unsigned long long)st.verdict[V_IDENTICAL],
	       (unsigned long long)st.verdict[V_EXPLAINED],
	       (unsigned long long)st.reason[R_IPV4_OPTION_REWRITE],
	       (unsigned long long)st.reason[R_SYNCOOKIE], (unsigned long long)st.unexplained,
	       st.partial ? " (PARTIAL)" : "");
	capture_client_close(&cc);
	if (rc)
		return 2;
	return st.unexplained || st.partial ? 1 : 0;
}
