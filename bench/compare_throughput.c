// SPDX-License-Identifier: GPL-2.0
/*
 * Host benchmark: SYN pairs per second through the comparator as the server runs it, on one
 * core: classify() alone, then classify() + report_conn() (the JSONL record, and the pcap for
 * differences) into a temp directory. The pairs are synthetic: a pool of distinct SYNs (IPv4 and
 * IPv6, modes 1 and 2, varied ports, sequence numbers and options) of which about 90% agree and
 * 2% each are of a known difference kind (IPv4 option rewrite, syncookie, VLAN offload,
 * unexplained byte, missing capture). Every verdict is checked against the kind it was built
 * as, so the benchmark also proves it measured the intended work. Prints JSON.
 * usage: compare_throughput [--pairs N] [--dir DIR]   (callgrind: run it with a small N)
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "classify.h"
#include "report.h"
#include "rng.h"
#include "topology.h"

/* Synthetic pairs carry no run clock: any time of day is accepted for a written timestamp. */
static const struct ipv4_env whole_day = { .lo_ms = 0, .hi_ms = 86400000 };

enum kind { K_IDENTICAL, K_REWRITE, K_COOKIE, K_VLAN, K_DIFFER, K_MISSING, K_MAX };
static const char *const kind_names[K_MAX] = { "identical", "ipv4-option-rewrite", "syncookie",
					       "vlan-offload", "differ", "bpf-missing" };

#define POOL 65536

struct pair {
	uint8_t native[160], bpf[160];
	uint16_t native_len, bpf_len, mac_len;
	uint8_t mode, kind, family;
	uint16_t sport;
	char saddr[46], daddr[46];
};

static size_t put_tcp(uint8_t *t, uint64_t *rng)
{
	static const uint8_t opts[] = { 2, 4, 5, 0xb4, 4, 2, 8, 10, 0, 0, 0, 0, 0, 0, 0, 0,
					1, 3, 3, 7 };
	uint64_t r = rng_next(rng);

	memset(t, 0, 40);
	t[0] = (uint8_t)(r >> 8), t[1] = (uint8_t)r; /* source port */
	t[2] = 0x1b, t[3] = 0x59;
	memcpy(t + 4, &r, 4);			     /* ISN */
	t[12] = (20 + sizeof(opts)) / 4 << 4;
	t[13] = 0x02;
	t[14] = 0xfa, t[15] = 0xf0;
	memcpy(t + 20, opts, sizeof(opts));
	memcpy(t + 28, (uint8_t *)&r + 4, 4);	     /* TS value */
	return 20 + sizeof(opts);
}

/* One SYN as captured (MAC header @mac bytes: 0, 14 or 18 with an 802.1Q tag). */
static size_t build(uint8_t *p, int family, size_t mac, int rr, uint64_t *rng)
{
	size_t ip = mac, hl = family == 4 ? 20 + (rr ? 12 : 0) : 40, tl;

	memset(p, 0, 160);
	if (mac) {
		memcpy(p + 6, "\x02\x00\x00\x00\x00\x01", 6);
		if (mac == 18)
			memcpy(p + 12, "\x81\x00\x00\x14", 4);
		p[mac - 2] = family == 4 ? 0x08 : 0x86, p[mac - 1] = family == 4 ? 0x00 : 0xdd;
	}
	tl = put_tcp(p + ip + hl, rng);
	if (family == 4) {
		p[ip] = 0x40 | (uint8_t)(hl / 4), p[ip + 3] = (uint8_t)(hl + tl);
		p[ip + 6] = 0x40, p[ip + 8] = 64, p[ip + 9] = 6;
		memcpy(p + ip + 12, "\xc6\x12\x00\x01\xc6\x12\x00\x02", 8);
		if (rr) /* Record Route with two empty slots, pointer 4, then NOP */
			memcpy(p + ip + 20, "\x07\x0b\x04\0\0\0\0\0\0\0\0\x01", 12);
	} else {
		p[ip] = 0x60, p[ip + 5] = (uint8_t)tl, p[ip + 6] = 6, p[ip + 7] = 64;
		memcpy(p + ip + 8, "\xfd\x00\x59\x59", 4), p[ip + 23] = 1;
		memcpy(p + ip + 24, "\xfd\x00\x59\x59", 4), p[ip + 39] = 2;
	}
	return mac + hl + tl;
}

static void make_pair(struct pair *q, uint64_t *rng)
{
	uint64_t r = rng_next(rng) % 100;
	enum kind k = r < 90 ? K_IDENTICAL : (enum kind)(1 + (r - 90) / 2 % (K_MAX - 1));
	size_t mac, n, off;

	memset(q, 0, sizeof(*q));
	q->kind = (uint8_t)k;
	q->family = k == K_REWRITE ? 4 : rng_next(rng) % 2 ? 4 : 6;
	q->mode = k == K_VLAN ? 2 : (uint8_t)(1 + rng_next(rng) % 2);
	mac = k == K_VLAN ? 18 : 14;
	n = build(q->bpf, q->family, mac, k == K_REWRITE, rng);
	q->bpf_len = (uint16_t)n, q->mac_len = (uint16_t)mac;
	q->sport = (uint16_t)(q->bpf[mac + (q->family == 4 ? (k == K_REWRITE ? 32 : 20) : 40)] << 8);
	snprintf(q->saddr, sizeof(q->saddr), "%s", q->family == 4 ? TOPO_CLIENT4 : TOPO_CLIENT6);
	snprintf(q->daddr, sizeof(q->daddr), "%s", q->family == 4 ? TOPO_SERVER4 : TOPO_SERVER6);
	/* what the kernel would have saved: mode 2 from the MAC header on, mode 1 from the IP */
	off = q->mode == 2 ? 0 : mac;
	memcpy(q->native, q->bpf + off, n - off);
	q->native_len = (uint16_t)(n - off);
	if (k == K_VLAN) { /* the inner tag is metadata by the time TCP saves the MAC header */
		memcpy(q->native + 12, q->bpf + 16, n - 16);
		q->native_len = (uint16_t)(n - 4);
	} else if (k == K_REWRITE) {
		uint8_t want[60];
		size_t ip = q->mode == 2 ? mac : 0;
		long stamp;

		if (ipv4_expected_rewrite(q->bpf + mac, 32, &whole_day, want, &stamp) == 0) {
			if (stamp >= 0) /* 1 ms after midnight: inside the whole-day window */
				memcpy(want + stamp, "\0\0\0\1", 4);
			memcpy(q->native + ip, want, 32);
		}
	} else if (k == K_DIFFER) {
		q->native[q->native_len - 6] ^= 0x20;
	} else if (k == K_COOKIE) {
		q->native_len = 0;
	} else if (k == K_MISSING) {
		q->bpf_len = 0;
	}
}

static int expected(const struct pair *q, const struct compare_result *res)
{
	switch (q->kind) {
	case K_IDENTICAL: return res->verdict == V_IDENTICAL;
	case K_REWRITE: return res->verdict == V_EXPLAINED && res->reason == R_IPV4_OPTION_REWRITE;
	case K_COOKIE: return res->verdict == V_EXPLAINED && res->reason == R_SYNCOOKIE;
	case K_VLAN: return res->verdict == V_EXPLAINED && res->reason == R_VLAN_OFFLOAD;
	case K_DIFFER: return res->verdict == V_DIFFER;
	default: return res->verdict == V_BPF_MISSING;
	}
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* One pass over @n pairs; with @rep, each is also written. Returns wrong verdicts. */
static uint64_t pass(const struct pair *pool, uint64_t n, struct report *rep, uint64_t *kinds)
{
	uint64_t wrong = 0;

	for (uint64_t i = 0; i < n; i++) {
		const struct pair *q = &pool[i % POOL];
		struct compare_input in = { .mode = q->mode, .env = &whole_day,
					    .native = q->native_len ? q->native : NULL,
					    .native_len = q->native_len,
					    .bpf = q->bpf_len ? q->bpf : NULL, .bpf_len = q->bpf_len,
					    .bpf_mac_len = q->mac_len,
					    .syncookie_proven = q->kind == K_COOKIE };
		struct compare_result res;

		classify(&in, &res);
		wrong += !expected(q, &res);
		kinds[q->kind]++;
		if (rep) {
			struct conn_record c = { .family = q->family == 4 ? 2 : 10, .mode = q->mode,
						 .direction = "passive", .cookie = i + 1, .native = in.native,
						 .native_len = in.native_len, .bpf = in.bpf,
						 .bpf_len = in.bpf_len, .bpf_mac_len = in.bpf_mac_len,
						 .res = &res, .small_buffer = "", .gen = "sockets",
						 .knobs = "", .gen_index = i, .gen_seed = 1 };

			uint8_t sa[16], da[16];

			inet_pton(c.family, q->saddr, sa);
			inet_pton(c.family, q->daddr, da);
			flow_set(&c.flow, c.family, sa, q->sport, da, 7001, 0);
			if (report_conn(rep, &c, NULL)) {
				perror("report_conn");
				exit(1);
			}
		}
	}
	return wrong;
}

int main(int argc, char **argv)
{
	uint64_t n = 1000000, rng = 42, kinds[K_MAX] = { 0 }, k2[K_MAX] = { 0 }, wrong;
	char dir[] = "/tmp/syntwin-cmpbench-XXXXXX", path[600];
	const char *where = NULL;
	struct pair *pool;
	struct report *rep;
	double t0, t1, t2;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--pairs"))
			n = strtoull(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--dir"))
			where = argv[i + 1];
	}
	if (!n || argc % 2 == 0) {
		fprintf(stderr, "usage: compare_throughput [--pairs N] [--dir DIR]\n");
		return 2;
	}
	pool = calloc(POOL, sizeof(*pool));
	rep = calloc(1, sizeof(*rep));
	if (!pool || !rep || (!where && !mkdtemp(dir)))
		return 2;
	for (int i = 0; i < POOL; i++)
		make_pair(&pool[i], &rng);
	if (report_open(rep, where ? where : dir))
		return 2;

	t0 = now_s();
	wrong = pass(pool, n, NULL, kinds);
	t1 = now_s();
	wrong += pass(pool, n, rep, k2);
	if (report_close(rep))
		return 2;
	t2 = now_s();

	printf("{\"pairs\": %llu, \"classify_per_s\": %.0f, \"classify_and_jsonl_per_s\": %.0f, "
	       "\"jsonl_bytes\": %llu, \"kinds\": {", (unsigned long long)n, (double)n / (t1 - t0),
	       (double)n / (t2 - t1), (unsigned long long)rep->written);
	for (int k = 0; k < K_MAX; k++)
		printf("%s\"%s\": %llu", k ? ", " : "", kind_names[k], (unsigned long long)kinds[k]);
	printf("}, \"wrong_verdicts\": %llu}\n", (unsigned long long)wrong);
	if (!where) {
		snprintf(path, sizeof(path), "%s/connections.jsonl", dir);
		unlink(path);
		snprintf(path, sizeof(path), "%s/mismatches.pcap", dir);
		unlink(path);
		rmdir(dir);
	}
	free(pool);
	free(rep);
	return wrong ? 1 : 0;
}
