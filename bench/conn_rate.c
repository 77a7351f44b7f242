// SPDX-License-Identifier: GPL-2.0
/*
 * syntwin-conn-rate (guest): what each capture costs in connections per second, client netns to
 * server netns over the veth pair (compare/topology.sh), one connection at a time: socket,
 * connect, accept, the configuration's work on the accepted socket, close (RST, so no
 * TIME_WAIT piles up across rounds). Configurations:
 *   no-capture  listener without TCP_SAVE_SYN
 *   native1     TCP_SAVE_SYN 1, TCP_SAVED_SYN read on every accepted socket
 *   native2     the same with 2 (MAC header too)
 *   witness-no-memory  the BPF witness attached without its memory follower (tc ingress and
 *               egress on s0, sockops, kfree_skb) and its record taken from the map by socket
 *               cookie; no TCP_SAVE_SYN
 *   witness     the same with the memory follower (kmalloc/kfree tracepoints), as every run has it
 *   full        native2 + witness + the comparator (classify, JSONL record) as syntwin-server
 * With --study (`syntwin study`), the capture points instead, each alone (no TCP_SAVE_SYN, no
 * witness beside it), as docs/capture-points.md compares them:
 *   no-capture  as above
 *   tc          the tc program on s0's ingress only (syntwin-loader attach --only-points)
 *   xdp, tcp    the XDP program on s0, the fentry program at TCP's receive of the SYN
 *   wire        an AF_PACKET capture of s0 in this process (compare/wire.c, as the run has it:
 *               read after each connection, every SYN written to DIR/wire.pcap)
 * Rounds interleave them (A B C D E F A B C D E F ...), IPv4 and IPv6 in each, so a ratio
 * compares batches measured seconds apart; "memory_follower" is witness / witness-no-memory,
 * round by round. Then, with BPF run-time statistics on (BPF_ENABLE_STATS,
 * only for that last pass, as they cost time themselves), one more full batch gives each BPF
 * program's run_time_ns / run_cnt. Prints JSON; writes DIR/rates.dat for gnuplot.
 * usage: syntwin-conn-rate --rounds R --connections N --dir DIR
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "capture_client.h"
#include "classify.h"
#include "net_helpers.h"
#include "parse_num.h"
#include "report.h"
#include "topology.h"
#include "wire.h"

/* One configuration: what is attached and done for each connection. */
struct config {
	const char *name;
	int save;		/* TCP_SAVE_SYN of its listener, -1 none; > 0: the copy is read */
	const char *attach;	/* syntwin-loader attach's options, NULL: nothing attached */
	bool take;		/* the witness's record taken by socket cookie */
	bool compare;		/* ... and compared and recorded (syntwin-server's work) */
	bool wire;		/* the wire's capture in this process */
};

#define C_MAX 6
#define C_NONE 0
static const struct config bench_configs[C_MAX] = {
	{ .name = "no-capture", .save = -1 },
	{ .name = "native1", .save = 1 },
	{ .name = "native2", .save = 2 },
	{ .name = "witness-no-memory", .save = -1, .attach = "--no-memory-follower", .take = true },
	{ .name = "witness", .save = -1, .attach = "", .take = true },
	{ .name = "full", .save = 2, .attach = "", .take = true, .compare = true },
};
static struct config study_configs[] = {
	{ .name = "no-capture", .save = -1 },
	{ .name = "tc", .save = -1, .attach = "--only-points --points tc" },
	{ .name = "xdp", .save = -1, .attach = "--only-points --points xdp" },
	{ .name = "tcp", .save = -1, .attach = "--only-points --points tcp" },
	{ .name = "wire", .save = -1, .wire = true },
};
static const struct config *configs = bench_configs;
static int nconfigs = C_MAX;
#define MAX_ROUNDS 100

static const struct {
	int af;
	const char *server;
} fams[2] = { { AF_INET, TOPO_SERVER4 }, { AF_INET6, TOPO_SERVER6 } };

static int lfd[C_MAX][2];
static struct capture_client cc;
static struct wire *wire;
static const char *dir;
static struct report rep;
static uint64_t full_bad;

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* syntwin-loader attach with options @opts (NULL: detach). 0 or -1. */
static int loader(const char *opts, bool take)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), opts ? "syntwin-loader attach --netns server --dev s0 --cgroup "
		 "/sys/fs/cgroup --entries 65536 %s >/dev/null" : "syntwin-loader detach >/dev/null",
		 opts);
	if (system(cmd)) {
		fprintf(stderr, "syntwin-conn-rate: %s failed\n", cmd);
		return -1;
	}
	/* Loading and freeing programs and 65536-entry maps leaves work behind (RCU callbacks,
	 * kworkers); let it finish before the next batch is timed. */
	usleep(500000);
	if (opts && take && capture_client_open(&cc))
		return -1;
	if (!opts && take)
		capture_client_close(&cc);
	return 0;
}

/* The same attachment (loader options and record taking) for configurations @a and @b. */
static bool same_attach(const struct config *a, const struct config *b)
{
	return a->attach && b->attach && !strcmp(a->attach, b->attach) && a->take == b->take;
}

/* Before (@before) or after configuration @c's batches: what it attaches, attached (kept from
 * the configuration before it when the same: witness then full). The wire is opened in the
 * server's netns, where its listeners are. 0 or -1. */
static int around(int c, int before)
{
	const struct config *k = &configs[c];

	if (k->wire && before) {
		if (enter_netns("server") || !(wire = wire_open("s0", dir)) || enter_netns("client"))
			return -1;
	} else if (k->wire) {
		if (wire_close(wire))
			return -1;
		wire = NULL;
	}
	if (!k->attach)
		return 0;
	if (before && (c == 0 || !same_attach(&configs[c - 1], k)))
		return loader(k->attach, k->take);
	if (!before && (c + 1 == nconfigs || !same_attach(&configs[c + 1], k)))
		return loader(NULL, k->take);
	return 0;
}

/* The configuration's work on accepted socket @a. */
static int work(int c, int a, int family, uint64_t i)
{
	uint8_t native[512];
	struct capture_rec rec;
	uint64_t cookie = 0;
	socklen_t cl = sizeof(cookie);
	size_t need;
	int n = 0, have = 0;

	if (configs[c].save > 0 && (n = read_saved_syn(a, native, sizeof(native), &need)) <= 0)
		return -1;
	if (configs[c].wire && wire_drain(wire))
		return -1;
	if (configs[c].take) {
		if (getsockopt(a, SOL_SOCKET, SO_COOKIE, &cookie, &cl))
			return -1;
		have = capture_take_bound(&cc, cookie, &rec, NULL) == 0;
		if (!have)
			return -1;
	}
	if (configs[c].compare) {
		struct compare_input in = { .mode = 2, .native = native, .native_len = (size_t)n,
					    .bpf = rec.data, .bpf_len = rec.cap_len,
					    .bpf_mac_len = rec.mac_len };
		struct compare_result res;
		struct conn_record r = { .family = family, .mode = 2, .direction = "passive",
					 .cookie = cookie, .res = &res, .small_buffer = "",
					 .gen = "bench", .knobs = "", .gen_index = i };

		full_bad += classify(&in, &res);
		flow_of_socket(a, true, &r.flow);
		r.native = in.native, r.native_len = in.native_len;
		r.bpf = in.bpf, r.bpf_len = in.bpf_len, r.bpf_mac_len = in.bpf_mac_len;
		if (report_conn(&rep, &r, NULL))
			return -1;
	}
	return 0;
}

/* @n connections of configuration @c, family index @f. Returns connections per second. */
static double batch(int c, int f, unsigned int n)
{
	struct linger lin = { .l_onoff = 1, .l_linger = 0 };
	uint16_t port = socket_port(lfd[c][f]);
	double t0 = now_s();

	for (unsigned int i = 0; i < n; i++) {
		int s = connect_to(fams[f].af, fams[f].server, port);
		int a = s < 0 ? -1 : accept(lfd[c][f], NULL, NULL);

		if (a < 0 || work(c, a, fams[f].af, i)) {
			log_err("%s IPv%d connection %u", configs[c].name, f ? 6 : 4, i);
			exit(1);
		}
		setsockopt(a, SOL_SOCKET, SO_LINGER, &lin, sizeof(lin));
		close(a);
		close(s);
	}
	return n / (now_s() - t0);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(const double *v, int n)
{
	double s[MAX_ROUNDS];

	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* A witness program's run-time statistics, summed over the programs of one name. */
#define MAX_PROGS 32
struct prog_stat {
	char name[BPF_OBJ_NAME_LEN];
	unsigned long long ns, cnt;
};

/* Every loaded program (in the guest during the bench: the witness's, all of them) by name,
 * into @ps. Returns how many names. */
static int prog_stats(struct prog_stat *ps)
{
	__u32 id = 0;
	int n = 0;

	while (!bpf_prog_get_next_id(id, &id)) {
		struct bpf_prog_info info = { 0 };
		__u32 len = sizeof(info);
		int fd = bpf_prog_get_fd_by_id(id), i;

		if (fd < 0)
			continue;
		if (bpf_obj_get_info_by_fd(fd, &info, &len) || !info.run_cnt) {
			close(fd);
			continue;
		}
		close(fd);
		for (i = 0; i < n && strcmp(ps[i].name, info.name); i++)
			;
		if (i == n && n == MAX_PROGS)
			continue;
		if (i == n)
			ps[n++] = (struct prog_stat){ 0 };
		snprintf(ps[i].name, sizeof(ps[i].name), "%s", info.name);
		ps[i].ns += info.run_time_ns;
		ps[i].cnt += info.run_cnt;
	}
	return n;
}

/*
 * The profile behind the witness's cost: each program's time per run and per connection, their
 * sum, and that sum against a plain connection's time (the no-capture median of both families):
 * the share of a connection's time the programs alone take, a floor no userspace work removes.
 */
static void print_bpf_stats(const struct prog_stat *ps, int n, unsigned long long conns,
			    double plain_ns)
{
	double total = 0;

	printf("{\"connections\": %llu, \"programs\": [", conns);
	for (int i = 0; i < n; i++) {
		double per_conn = (double)ps[i].ns / (double)conns;

		total += per_conn;
		printf("%s\n  {\"name\": \"%s\", \"run_cnt\": %llu, \"run_time_ns\": %llu, "
		       "\"ns_per_run\": %.0f, \"runs_per_connection\": %.2f, "
		       "\"ns_per_connection\": %.0f}", i ? "," : "", ps[i].name, ps[i].cnt, ps[i].ns,
		       (double)ps[i].ns / (double)ps[i].cnt, (double)ps[i].cnt / (double)conns,
		       per_conn);
	}
	printf("],\n \"ns_per_connection\": %.0f, \"plain_connection_ns\": %.0f, "
	       "\"floor_percent\": %.1f}", total, plain_ns, plain_ns > 0 ? 100 * total / plain_ns : 0);
}

/*
 * Each BPF configuration's programs, one more batch per family with run-time statistics on:
 * bench mode the whole witness with the comparator (full), study mode each point alone, its
 * statistics under "bpf_stats" of its name.
 */
static int stats_pass(unsigned int n, double plain_ns)
{
	static struct prog_stat ps[MAX_PROGS];
	int first = 1;

	printf("\"bpf_stats\": ");
	if (configs != bench_configs)
		printf("{");
	for (int c = 0; c < nconfigs; c++) {
		int sfd, nps;

		if (!configs[c].attach || (configs == bench_configs && !configs[c].compare))
			continue;
		if (loader(configs[c].attach, configs[c].take))
			return -1;
		sfd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (sfd < 0) {
			log_err("bpf_enable_stats");
			return -1;
		}
		for (int f = 0; f < 2; f++)
			batch(c, f, n);
		memset(ps, 0, sizeof(ps));
		nps = prog_stats(ps);
		close(sfd);
		if (loader(NULL, configs[c].take))
			return -1;
		if (configs != bench_configs)
			printf("%s\n \"%s\": ", first ? "" : ",", configs[c].name);
		first = 0;
		print_bpf_stats(ps, nps, 2 * (unsigned long long)n, plain_ns);
	}
	if (configs != bench_configs)
		printf("}");
	return 0;
}

/* The rates of every configuration, per family: JSON on stdout, @dat for gnuplot. */
static void print_rates(double (*rate)[2][MAX_ROUNDS], int nr, uint64_t n, FILE *dat)
{
	printf("{\"mode\": \"%s\", \"rounds\": %d, \"connections_per_batch\": %llu, "
	       "\"configs\": [", configs == bench_configs ? "bench" : "study", nr,
	       (unsigned long long)n);
	for (int c = 0; c < nconfigs; c++) {
		for (int f = 0; f < 2; f++) {
			double *v = rate[c][f], ratio[MAX_ROUNDS], lo = v[0], hi = v[0];

			for (int r = 0; r < nr; r++) {
				lo = v[r] < lo ? v[r] : lo;
				hi = v[r] > hi ? v[r] : hi;
				ratio[r] = v[r] / rate[C_NONE][f][r]; /* same round */
			}
			printf("%s\n  {\"config\": \"%s\", \"family\": %d, \"median\": %.0f, "
			       "\"min\": %.0f, \"max\": %.0f, \"ratio_to_no_capture\": %.4f, "
			       "\"cost_percent\": %.1f, \"rates\": [", c || f ? "," : "",
			       configs[c].name, f ? 6 : 4, median(v, nr), lo, hi, median(ratio, nr),
			       100 * (1 - median(ratio, nr)));
			for (int r = 0; r < nr; r++)
				printf("%s%.0f", r ? ", " : "", v[r]);
			printf("]}");
			fprintf(dat, "%s %d %.0f %.0f %.0f\n", configs[c].name, f ? 6 : 4,
				median(v, nr), lo, hi);
		}
	}
	printf("\n],\n");
}

/* The follower's own price: witness / witness-no-memory, round by round (bench mode). */
static void print_follower(double (*rate)[2][MAX_ROUNDS], int nr)
{
	printf("\"memory_follower\": {");
	for (int f = 0; f < 2; f++) {
		double ratio[MAX_ROUNDS];

		for (int r = 0; r < nr; r++)
			ratio[r] = rate[4][f][r] / rate[3][f][r];
		printf("%s\"ipv%d_ratio_with_to_without\": %.4f, \"ipv%d_cost_percent\": %.1f",
		       f ? ", " : "", f ? 6 : 4, median(ratio, nr), f ? 6 : 4,
		       100 * (1 - median(ratio, nr)));
	}
	printf("},\n");
}

/* Warm-up (not measured: first-use costs would land on round 1's first configurations), then
 * @rounds interleaved rounds of every configuration into @rate. 0 or -1. */
static int measure(double (*rate)[2][MAX_ROUNDS], uint64_t rounds, unsigned int n)
{
	for (int c = 0; c < nconfigs; c++) {
		if (around(c, 1))
			return -1;
		for (int f = 0; f < 2; f++)
			batch(c, f, n / 4);
		if (around(c, 0))
			return -1;
	}
	for (uint64_t r = 0; r < rounds; r++) {
		/* Untimed, before the round's first configuration (no capture: nothing attached
		 * before it): the work the last round's detach left behind (programs and maps
		 * freed after RCU grace periods) runs here, not in the first timed batch. Seen with
		 * an instruction clock: the round's first batch, no-capture IPv4, 12 % slower than
		 * native1 IPv4 right after it, every round; the IPv6 batch after it was not. */
		for (int f = 0; f < 2; f++)
			batch(C_NONE, f, n / 4);
		for (int c = 0; c < nconfigs; c++) {
			if (around(c, 1))
				return -1;
			for (int f = 0; f < 2; f++)
				rate[c][f][r] = batch(c, f, n);
			if (around(c, 0))
				return -1;
		}
		fprintf(stderr, "round %llu/%llu: IPv4 %.0f/s without capture, %.0f/s %s\n",
			(unsigned long long)r + 1, (unsigned long long)rounds, rate[C_NONE][0][r],
			rate[nconfigs - 1][0][r], configs[nconfigs - 1].name);
	}
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t rounds = 7, n = 1000;
	static double rate[C_MAX][2][MAX_ROUNDS];
	char err[128], path[600];
	double plain;
	FILE *dat;

	for (int i = 1; i < argc; i += 2) {
		if (!strcmp(argv[i], "--xdp-generic")) {
			study_configs[2].attach = "--only-points --points xdp --xdp-generic";
			i--;
			continue;
		}
		if (!strcmp(argv[i], "--study")) {
			configs = study_configs;
			nconfigs = (int)(sizeof(study_configs) / sizeof(study_configs[0]));
			i--;
			continue;
		}
		if (i + 1 >= argc)
			goto usage;
		if (!strcmp(argv[i], "--rounds")) {
			if (parse_u64_range("--rounds", argv[i + 1], 1, MAX_ROUNDS, &rounds, err,
					    sizeof(err)))
				goto bad;
		} else if (!strcmp(argv[i], "--connections")) {
			if (parse_u64_range("--connections", argv[i + 1], 10, 1000000, &n, err,
					    sizeof(err)))
				goto bad;
		} else if (!strcmp(argv[i], "--dir")) {
			dir = argv[i + 1];
		} else {
			goto usage;
		}
	}
	if (!dir)
		goto usage;
	if (report_open(&rep, dir) || enter_netns("server"))
		return 2;
	for (int c = 0; c < nconfigs; c++)
		for (int f = 0; f < 2; f++)
			if ((lfd[c][f] = start_listener(fams[f].af, fams[f].server, 0, configs[c].save,
							1024)) < 0)
				return 2;
	if (enter_netns("client") || measure(rate, rounds, (unsigned int)n))
		return 1;
	snprintf(path, sizeof(path), "%s/rates.dat", dir);
	dat = fopen(path, "w");
	if (!dat) {
		log_err("%s", path);
		return 2;
	}
	fprintf(dat, "# config family median min max (connections/s)\n");
	print_rates(rate, (int)rounds, n, dat);
	fclose(dat);
	if (configs == bench_configs)
		print_follower(rate, (int)rounds);
	plain = 1e9 / ((median(rate[C_NONE][0], (int)rounds) +
			median(rate[C_NONE][1], (int)rounds)) / 2);
	/* BPF run time per program, statistics on for that pass only (they cost time) */
	if (stats_pass((unsigned int)n, plain) || report_close(&rep))
		return 1;
	printf(",\n\"full_unexplained\": %llu}\n", (unsigned long long)full_bad);
	return full_bad ? 1 : 0;
bad:
	fprintf(stderr, "syntwin-conn-rate: %s\n", err);
	return 2;
usage:
	fprintf(stderr, "usage: syntwin-conn-rate [--study [--xdp-generic]] --rounds R "
		"--connections N --dir DIR\n");
	return 2;
}
