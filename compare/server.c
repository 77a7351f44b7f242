// SPDX-License-Identifier: GPL-2.0
/*
 * syntwin-server (guest, server netns): listeners with TCP_SAVE_SYN 1 and 2 for IPv4 and IPv6;
 * for every accepted socket, read the kernel's saved SYN, take the BPF capture bound to its
 * cookie, classify, and record. As the guest's driver (--run-connections N, driver.h) it plans
 * the run and makes every connection in its own event loop (generators.h): the planned
 * handshakes, the crafted phase (or a replay) and the socket-knob connections, their labels and
 * records handed over in memory (client_msg.h). Active-direction records (the SYN-ACK headers
 * the client's kernel saved) are compared the same way.
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sys/socket.h>

#include "client_msg.h"
#include "capture_client.h"
#include "classify.h"
#include "decode.h"
#include "fnv.h"
#include "fp_record.h"
#include "inet_csum.h"
#include "judge.h"
#include "json_out.h"
#include "keyset.h"
#include "labels.h"
#include "native_read.h"
#include "net_helpers.h"
#include "netstat.h"
#include "expect.h"
#include "parse_num.h"
#include "provides.h"
#include "tree_facts.h"
#include "report.h"
#include "rng.h"
#include "slabinfo.h"
#include "topology.h"
#include "saved_syn_mem.h"
#include "driver.h"
#include "generators.h"
#include "witness_probe.h"
#include "which_copy.h"

#define PORT_BASE TOPO_PORT_BASE

struct opts {
	const char *out, *series_hash, *mix, *rerun_of, *p0f_db;
	const char *generated_file;	/* the uptime every generator was done at, written here */
	const char *netem, *netem_back;	/* the wire's faults (tc netem), for the summary */
	const char *shard;	/* "I/N" of a sharded run (run-guest.sh), "" or "-": not one */
	uint64_t connections, seed, test_corrupt, active;
	uint64_t test_fault_after;	/* TEST ONLY: after this many records, test_fault */
	bool test_corrupt_covered;	/* TEST ONLY: corrupt_covered() */
	int64_t test_reset;		/* TEST ONLY: reset (SO_LINGER 0) the child of socket
					 * connection #test_reset; -1: none */
	const char *test_fault;		/* "kill-server" or "panic" */
	bool hex_all;
	/* what the plan makes (driver_configure()) */
	uint64_t held_back, abandoned, dup_synack; /* planned handshakes (gen/planned.c) */
	bool sockets;			/* the socket generator runs in this loop */
	struct sock_gen_opts gen;	/* ... with these options */
	struct crafted_opts crafted;	/* the crafted phase's */
	uint64_t planned_seed;		/* the planned handshakes' */
	const char *provides;		/* --provides: the series' declaration, in @decl */
	struct provides decl;
	const char *tree_file;		/* --tree: the kernel tree's facts, in @tree */
	struct tree_facts tree;
	struct driver_args run;		/* ... with these */
};

/* The generators a record can name; the last one is for records no generator named. */
enum { GEN_SOCKETS, GEN_CRAFTED, GEN_TAP, GEN_FUZZ, GEN_REPLAY, GEN_REJECTED, GEN_HELD_BACK,
       GEN_ABANDONED_RST, GEN_ABANDONED_EXPIRE, GEN_ABANDONED_CLOSE, GEN_DUP_SYNACK, GEN_UNKNOWN,
       GEN_MAX };
static const char *const gen_names[GEN_MAX] = { "sockets", "crafted", "crafted-tap", "fuzz",
						"replay", "rejected", "held-back",
						"abandon-rst", "abandon-expire", "abandon-close",
						"dup-synack", "unknown" };

struct stats {
	uint64_t conns, verdict[V_MAX], reason[R_MAX], unexplained, small_buffer_checks;
	uint64_t active, active_announced, compared;
	uint64_t lost;		/* bpf-missing records put down to map eviction (R_EVICTED) */
	long long evictions;	/* capture_evictions() at the end; -1 while running */
	long long slab_start, slab_end, syn_slab_start, syn_slab_end; /* bytes, -1 unknown */
	int write_errno;	/* a results file could not be written: the run stops */
	uint64_t shapes, gen[GEN_MAX];	/* records by their generator (gen_names): passive ones,
					 * and the active planned ones (dup-synack) */
	uint64_t duplicate_children;	/* second sockets from one SYN (labels.h) */
	uint64_t client_failed;		/* socket connections that failed in the client */
	uint64_t client_failed_proven;	/* ... whose failure the wire explains (judge.c) */
	uint64_t active_unrecorded;	/* ... that failed before their SYN-ACK was saved: no
					 * active record comes for them */
	uint64_t test_corrupted;	/* records --test-corrupt-covered made wrong */
	uint64_t corrupt_seen;		/* records with both copies (--test-corrupt counts them) */
	uint64_t late_captures;		/* captures of connections judged bpf-missing */
	uint64_t late_copies;		/* --netem: copies the wire delivered after their
					 * connection was judged (same flow and ISN) */
	uint64_t late_answers;		/* --netem: SYN-ACKs answering a late copy of a judged
					 * SYN, dropped by the client (late_answer()) */
	uint64_t active_ts;		/* active records whose SYN-ACK (the one that made the
					 * connection) carried a timestamp */
	uint64_t active_answered;	/* ... of those, with the client's first ACK's TSecr seen */
	uint64_t gave_up;		/* SYNs a generator gave up on (no SYN-ACK came) */
	uint64_t gave_up_dropped;	/* ... whose every copy the witness saw the kernel drop
					 * (the tun peer gives those up at once) */
	int64_t unclaimed_bindings;	/* bound records the ring delivered that no socket took
					 * (a second child of one SYN, never accepted); -1 until
					 * the end */
	uint64_t bad_labels;		/* GEN messages that named no valid flow, or no memory */
	int64_t cookies_base, tcpext_base[4];
	const char *cookie_counter; /* the TcpExt counter that cross-checks syncookie proofs */
	uint64_t records_written; /* JSONL records on disk (report.lines_written) */
	uint64_t proven[GEN_MAX];	/* planned records proven as planned (held-back: explained
					 * syn-retransmit; abandoned: explained abandoned) */
	struct mem_counts mem;		/* the memory follower at the end */
	uint64_t mem_settle_ms;		/* waited for the last requests to go */
	uint64_t mem_leaks;		/* memory verdicts: outstanding at the end, freed twice */
	uint64_t mem_double_unconfirmed; /* freed again from another function (judge_double()) */
	uint64_t mem_double_confirmed;	/* freed twice in one function: a verdict each */
	struct fp_stats fp;		/* fingerprints through both witnesses (fp_record.h) */
	bool partial;
	bool keys_lost;			/* a judged key not kept (out of memory) */
	uint64_t cookie_due;		/* passive socket records in the plan's forced-cookie window */
	uint64_t active_allocs;		/* saved-copy allocations tied to SYN-ACK copies */
	uint64_t cookie_due_reopened;	/* ... not a cookie: their 4-tuple reopened (judge.h) */
	bool counter_present[PROVIDES_MAX]; /* each declared counter, at the start */
	int64_t synack_saved_base;	/* TCPSynAckSaved at the start, -1 absent */
	struct expect_list expect;	/* the run's expectations, at its end (expect.h) */
};

/*
 * TcpExt counters reported as growth over the run. The last two exist only with the series'
 * counter patch (kernel-series/VER/0001); there TCPSynNotSavedCookie counts exactly the accepted
 * sockets of TCP_SAVE_SYN listeners that came from a cookie, and is the syncookie proof.
 */
static const char *const tcpext_names[4] = { "SyncookiesRecv", "TCPTimeWaitOverflow",
					     "TCPSynSaved", "TCPSynNotSavedCookie" };

static volatile sig_atomic_t stop;
static void on_signal(int sig) { stop = sig; }
/* Once every generator (generators.h) has finished, what is still owed either comes within
 * SETTLE_S of quiet, or never (a connection whose child never came: judged at the end). */
#define SETTLE_S 5
/* With nothing at all for IDLE_S, the run stops (what is owed is judged at the end). */
#define IDLE_S 30
/* Per mille of passive connections whose saved SYN is first read with too small a buffer. */
#define SMALL_BUFFER_PERMILLE 50

static const char usage[] =
	"usage: syntwin-server --out DIR --run-connections N --provides FILE --tree FILE\n"
	"                      [--seed S] [--run-mix MIX] [--run-rerun JSONL] [--run-parallel K]\n"
	"                      [--shard I/N] [--series-hash H] [--rerun-of DIR] [--hex-all]\n"
	"                      [--p0f-db FILE] [--netem SPEC] [--netem-back SPEC]\n"
	"                      [--generated-file F] [--test-corrupt K] [--test-corrupt-covered]\n"
	"                      [--test-reset I] [--test-fault kill-server|panic --test-fault-after N]\n"
	"  --run-connections N  plan a run of N connections (plan.json; the seed, shard and --out\n"
	"                    are this server's) and make it: the planned handshakes, the crafted\n"
	"                    phase or the replay, the socket connections\n"
	"  --provides FILE   what the kernel's series declares it implements (common/provides.h):\n"
	"                    the SYN-ACK save (the active direction), its counters; /dev/null\n"
	"                    declares nothing\n"
	"  --tree FILE       the kernel tree the run built (compare/tree_facts.h): its version\n"
	"                    and the options the drop rules depend on (/mnt/ctl/tree)\n"
	"  --generated-file F  written when every generator is done: the uptime then (timing)\n"
	"  --hex-all         both byte strings in every JSONL record, not only differing ones\n"
	"  --p0f-db FILE     p0f's database for the records' p0f labels (/etc/p0f/p0f.fp)\n"
	"  --netem SPEC, --netem-back SPEC  the tc netem faults on the client->server and\n"
	"                    server->client paths, as run-guest.sh set them (summary)\n"
	"  --test-corrupt K  TEST ONLY: flip one byte of every K-th BPF record with a native copy\n"
	"  --test-reset I    TEST ONLY: reset the child of socket connection #I (SO_LINGER 0)\n"
	"  --test-corrupt-covered  TEST ONLY: make the kernel's copy wrong inside each region an\n"
	"                    explanation covers (corrupt_covered()); every such record must fail\n"
	"  --test-fault F    TEST ONLY: once N records are on disk, SIGKILL this process or panic\n"
	"                    the guest (sysrq), at that exact point\n";

/* After the plan: the socket generator checks the active direction and resets as the server
 * expects them. Returns 0, or -1 (printed). */
static int sockets_check(struct opts *o)
{
	char err[256];

	o->gen.active = o->active > 0;
	o->gen.test_reset = o->test_reset;
	if (!o->sockets || !sock_gen_opts_check(&o->gen, err, sizeof(err)))
		return 0;
	fprintf(stderr, "syntwin-server: sockets: %s\n", err);
	return -1;
}

static int parse(int argc, char **argv, struct opts *o)
{
	struct sock_gen_opts gen;
	char err[512];

	sock_gen_opts_init(&gen);
	*o = (struct opts){ .gen = gen, .run = { .mix = "default", .parallel = 1 },
			    .series_hash = "", .mix = "", .rerun_of = "",
			    .p0f_db = "/etc/p0f/p0f.fp", .shard = "", .netem = "", .netem_back = "",
			    .seed = 1, .test_reset = -1 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int rc = 0;

		if (!strcmp(a, "--hex-all")) {
			o->hex_all = true;
			continue;
		}
		if (!strcmp(a, "--test-corrupt-covered")) {
			o->test_corrupt_covered = true;
			continue;
		}
		if (!v) {
			fprintf(stderr, "syntwin-server: %s: missing value\n%s", a, usage);
			return -1;
		}
		if (!strcmp(a, "--out"))
			o->out = v;
		else if (!strcmp(a, "--series-hash"))
			o->series_hash = v;
		else if (!strcmp(a, "--generated-file"))
			o->generated_file = v;
		else if (!strcmp(a, "--run-connections")) {
			rc = parse_u64_range(a, v, 1, 100000000, &o->run.connections, err,
					     sizeof(err));
		} else if (!strcmp(a, "--provides"))
			o->provides = v;
		else if (!strcmp(a, "--tree"))
			o->tree_file = v;
		else if (!strcmp(a, "--run-mix"))
			o->run.mix = v;
		else if (!strcmp(a, "--run-rerun"))
			o->run.rerun = v;
		else if (!strcmp(a, "--run-parallel"))
			rc = parse_u64_range(a, v, 1, SOCK_GEN_MAX_PARALLEL, &o->run.parallel, err,
					     sizeof(err));
		else if (!strcmp(a, "--rerun-of"))
			o->rerun_of = v;
		else if (!strcmp(a, "--p0f-db"))
			o->p0f_db = v;
		else if (!strcmp(a, "--netem"))
			o->netem = v;
		else if (!strcmp(a, "--netem-back"))
			o->netem_back = v;
		else if (!strcmp(a, "--shard"))
			o->shard = strcmp(v, "-") ? v : "";
		else if (!strcmp(a, "--seed"))
			rc = parse_u64_range(a, v, 0, UINT64_MAX, &o->seed, err, sizeof(err));
		else if (!strcmp(a, "--test-fault-after"))
			rc = parse_u64_range(a, v, 1, UINT64_MAX, &o->test_fault_after, err,
					     sizeof(err));
		else if (!strcmp(a, "--test-fault") && (!strcmp(v, "kill-server") || !strcmp(v, "panic")))
			o->test_fault = v;
		else if (!strcmp(a, "--test-reset")) {
			uint64_t idx;

			rc = parse_u64_range(a, v, 0, 100000000, &idx, err, sizeof(err));
			o->test_reset = (int64_t)idx;
		} else if (!strcmp(a, "--test-corrupt"))
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
	if (!o->run.connections || !o->provides) {
		fprintf(stderr, "syntwin-server: --run-connections and --provides are required (the "
			"series' declaration; /dev/null declares nothing)\n%s", usage);
		return -1;
	}
	if (o->provides && provides_load(o->provides, &o->decl, err, sizeof(err))) {
		fprintf(stderr, "syntwin-server: --provides %s\n", err);
		return -1;
	}
	if (!o->tree_file) {
		fprintf(stderr, "syntwin-server: --tree is required (the kernel tree's facts: "
			"which drop rules hold)\n");
		return -1;
	}
	if (tree_facts_load(o->tree_file, &o->tree, err, sizeof(err))) {
		fprintf(stderr, "syntwin-server: --tree %s\n", err);
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
/* The kernel tree the run built (--tree): which of the listener's drop rules hold. */
static struct tree_facts run_tree;

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

/* The reason a planned generator's records are explained by, R_NONE for the others. */
static const enum reason planned_reason[GEN_MAX] = { [GEN_HELD_BACK] = R_RETRANSMIT,
						     [GEN_ABANDONED_RST] = R_ABANDONED,
						     [GEN_ABANDONED_EXPIRE] = R_ABANDONED,
						     [GEN_ABANDONED_CLOSE] = R_ABANDONED,
						     [GEN_DUP_SYNACK] = R_RETRANSMIT };

/* The generator a label names (gen_names), GEN_UNKNOWN for none or another. */
static int gen_index(const char *gen)
{
	int g = 0;

	while (g < GEN_UNKNOWN && (!gen || strcmp(gen, gen_names[g])))
		g++;
	return g;
}

/* Counts a passive record under its generator; a planned one proven as planned (its verdict
 * explained with the reason its plan makes: @res) counts as proven too. */
static void count_gen(struct stats *st, const char *gen, const struct compare_result *res)
{
	int g = gen_index(gen);

	st->gen[g]++;
	if (res->verdict == V_EXPLAINED && planned_reason[g] != R_NONE &&
	    res->reason == planned_reason[g])
		st->proven[g]++;
}

static const struct opts *fault_opts; /* TEST ONLY (--test-fault) */

/* The test faults strike right after a record reached the disk, so a test knows exactly how
 * many records were judged: all of them must be in connections.jsonl. */
static void test_fault(const struct report *rep)
{
	const struct opts *o = fault_opts;
	int fd;

	if (!o || !o->test_fault || rep->lines_written != o->test_fault_after)
		return;
	fprintf(stderr, "TEST FAULT: %s with %llu records on disk\n", o->test_fault,
		(unsigned long long)rep->lines_written);
	if (!strcmp(o->test_fault, "kill-server"))
		raise(SIGKILL);
	fd = open("/proc/sysrq-trigger", O_WRONLY);
	if (fd < 0 || write(fd, "c", 1) != 1)
		log_err("sysrq");
}

/*
 * Records reach the disk in batches: each write() to the 9p share costs about 0.1 ms under TCG,
 * a record each was a tenth of the server's time. A batch goes out at FLUSH_RECORDS records or
 * when the oldest has waited FLUSH_MS, and before every summary, so whatever stops this process
 * loses at most that; the summary counts only what is on disk.
 */
#define FLUSH_RECORDS 64
#define FLUSH_MS 100
static struct timespec oldest_unwritten; /* when the first record of the batch was judged */

static void flush_records(struct report *rep, struct stats *st)
{
	if (rep->lines_buffered && report_flush(rep) && !st->write_errno)
		st->write_errno = errno ? errno : EIO;
}

static uint64_t elapsed_ms(const struct timespec *t0);

/* Flushes the batch if it is due: full, old, or (TEST ONLY) the record a fault waits for. */
static void flush_if_due(struct report *rep, struct stats *st)
{
	const struct opts *o = fault_opts;

	if (!rep->lines_buffered)
		return;
	if (rep->lines_buffered >= FLUSH_RECORDS || elapsed_ms(&oldest_unwritten) >= FLUSH_MS ||
	    (o && o->test_fault && rep->lines_written + rep->lines_buffered == o->test_fault_after))
		flush_records(rep, st);
}

static struct p0f_db p0f_db;

/*
 * Append @c, with both copies' fingerprints, to the JSONL batch. The first write failure stops
 * the run (st->write_errno).
 */
static void record(struct report *rep, const struct conn_record *c, struct stats *st)
{
	struct conn_record with_fp = *c;
	struct record_fp fp;

	record_fp_compute(&p0f_db, c, &fp);
	with_fp.fp = &fp;
	fp_stats_add(&st->fp, c, &fp);
	if (!rep->lines_buffered)
		clock_gettime(CLOCK_MONOTONIC, &oldest_unwritten);
	if (report_conn(rep, &with_fp) && !st->write_errno)
		st->write_errno = errno ? errno : EIO;
	flush_if_due(rep, st);
	test_fault(rep);
}

/* What the generators said about each connection before making it (labels.h). */
static struct labels labels;
/* The flows of connections judged bpf-missing (their capture's binding was lost): a capture of
 * one of them left in the flow map at the end belongs to that verdict, not to a new one. */
static struct labels missing_flows;
/* The labels of socket connections whose connect() failed in the client (CLIENT_FAILED), set
 * aside by flow: their SYN's capture is judged at the end with its own label, and a later
 * connection that reuses the port cannot take it. */
static struct labels failed_labels;
/* With --netem: the capture key of every connection judged with a socket (late_copies). */
static struct keyset judged_keys;
/* The capture key of every connection judged syncookie on its own proof: a later child of the
 * same SYN (a copy of its cookie ACK) is tied to it (judge_cookie_child()). */
static struct keyset cookie_keys;
/* The 4-tuples (ISN 0) of the passive connections judged so far: a SYN that reopens one may be
 * answered from TIME_WAIT, without a cookie (judge.h: flow_reused). */
static struct keyset passive_flows;
/* The plan's forced-syncookie window of socket connections (numbers), never the kernel's. */
static uint64_t cookie_at, cookie_tail;

static bool cookie_due_of(const char *gen, uint64_t index)
{
	return gen_index(gen) == GEN_SOCKETS && index >= cookie_at && index - cookie_at < cookie_tail;
}

/*
 * The judged syncookie connection a cookie child's key @k (the flow, and the segment's seq - 1
 * as the kernel took it for the ISN) belongs to, in @first: the same flow and an ISN at most 3
 * below. The segment that made the child may be a later one of the first connection (its FIN
 * after a few bytes of data): the kernel's cookie check subtracts seq - 1 from the cookie and
 * finds an MSS index that many below the one it encoded, still valid while it stays in its table
 * of 4 (msstab, IPv4 and IPv6 alike). Returns that difference, or -1 if there is none.
 */
static int cookie_child_origin(const struct capture_key *k, struct capture_key *first)
{
	return keyset_find_below(&cookie_keys, k, 3, first);
}

/* A record with no SYN (CAP_F_NO_SYN): the socket is a cookie child whose SYN's capture was
 * taken before its ACK came (bind_cookie_child() in bpf/syn_sockops.bpf.c). */
static void observe_cookie_child(const struct capture_rec *rec, struct observation *ob)
{
	struct capture_key k, first;

	ob->cookie_child = rec->flags & CAP_F_COOKIE_ACK;
	ob->cookie_seq_offset = capture_key_of(rec, &k) ? -1 : cookie_child_origin(&k, &first);
	ob->cookie_conn_judged = ob->cookie_seq_offset >= 0;
}
static bool wire_faults;

static void remember_missing(const struct conn_record *c)
{
	struct label l = { .flow = { .family = (uint8_t)c->family, .sport = c->sport,
				     .dport = c->dport } };

	if (inet_pton(c->family, c->saddr, l.flow.saddr) == 1 &&
	    inet_pton(c->family, c->daddr, l.flow.daddr) == 1)
		labels_put(&missing_flows, &l);
}

/* The memory follower (always attached with the witness). */
static struct saved_syn_mem *mem;

/* The witness's copies of one SYN (or SYN-ACK), in arrival order, as the judge sees them. */
struct copies {
	struct capture_rec rec[CAPTURE_MAX_COPIES];
	struct copy_view view[CAPTURE_MAX_COPIES];
	int n;
	bool cut;
};

static void view_of(const struct capture_rec *r, struct copy_view *v)
{
	*v = (struct copy_view){ .data = r->data, .len = r->cap_len, .mac_len = r->mac_len,
				 .dropped = r->flags & CAP_F_DROPPED,
				 .drop_reason = r->flags & CAP_F_DROPPED ?
						capture_drop_reason_name(r->fate_reason) : NULL,
				 .saved = r->flags & CAP_F_SAVED,
				 .saved_again = r->flags & CAP_F_SAVED_AGAIN,
				 .saved_size = r->saved_size,
				 .truncated = r->flags & CAP_F_TRUNCATED };
}

/* @last (the bound capture) and its earlier copies, taken from syn_copies. */
static void gather_copies(struct capture_client *cc, const struct capture_rec *last,
			  struct copies *cp)
{
	int k = 0;

	if (last->flags & CAP_F_RECAPTURED)
		k = capture_take_copies(cc, last, cp->rec, CAPTURE_MAX_COPIES - 1);
	if (k < 0)
		k = 0;
	cp->rec[k] = *last;
	cp->n = k + 1;
	cp->cut = (last->flags & CAP_F_COPIES_CUT) || cp->n < last->copies;
	for (int i = 0; i < cp->n; i++)
		view_of(&cp->rec[i], &cp->view[i]);
}

/* What the witness holds of one SYN (or SYN-ACK), for the judge: @cp's copies and the flags of
 * the last. */
static void observe_copies(const struct copies *cp, struct observation *ob)
{
	const struct capture_rec *last = cp->n ? &cp->rec[cp->n - 1] : NULL;

	ob->copy = cp->view;
	ob->n = cp->n;
	ob->cut = cp->cut;
	ob->mem_followed = mem != NULL;
	ob->env = &rx_env;
	ob->tree = &run_tree;
	if (!last)
		return;
	ob->syncookie_proven = last->flags & CAP_F_COOKIE_ACK;
	ob->synack_cookie = last->flags & CAP_F_SYNACK_COOKIE;
	ob->have_tsecr = last->flags & CAP_F_SYNACK_TS;
	ob->tsecr = last->synack_tsecr;
	ob->parse_err = last->flags & CAP_F_PARSE_ERR;
	ob->drops = last->drops;
	ob->drop_reason = last->drops ? capture_drop_reason_name(last->drop_reason) : NULL;
	ob->rst_seen = last->flags & CAP_F_RST;
	ob->synacks = last->synacks;
}

/*
 * TEST ONLY (--test-corrupt-covered): where an explanation covers part of a record, make the
 * kernel's copy wrong in exactly that part, as a wrong kernel would be: the address or time
 * the IPv4 option rewrite wrote (its top byte) or the overflow count it raised, the Ethernet type behind a VLAN tag taken out,
 * the IP ID or flow label that tells retransmitted copies apart, the MAC header of an
 * identical mode-2 copy. Returns which region it corrupted in @buf (a copy of the native
 * bytes), or NULL.
 */
static const char *corrupt_covered(const struct observation *ob, const struct compare_result *res,
				   uint8_t *buf)
{
	/* the kernel's MAC header: none in mode 1 or on a device without one (tun), else 14
	 * bytes (QinQ's inner tag is already out) */
	size_t mac = ob->mode == 2 && ob->n && ob->copy[ob->n - 1].mac_len ? 14 : 0, off;
	const uint8_t *ip = buf + mac;

	if (ob->native_len < mac + 40)
		return NULL;
	switch (res->verdict == V_EXPLAINED ? res->reason : R_NONE) {
	case R_IPV4_OPTION_REWRITE:
		for (off = 20; off < (size_t)(ip[0] & 0x0f) * 4 && ip[off]; ) {
			uint8_t ptr = ip[off + 2], len = ip[off + 1];

			if ((ip[off] == 7 || ip[off] == 68) && ptr >= 8 && ptr <= len + 1) {
				buf[mac + off + ptr - 5] ^= 0x80; /* the last unit written */
				return "ipv4-option-slot";
			}
			if (ip[off] == 68 && ptr > len) { /* full: the overflow count went up */
				buf[mac + off + 3] ^= 0x10;
				return "ipv4-option-overflow";
			}
			off += ip[off] == 1 ? 1 : ip[off + 1];
		}
		return NULL;
	case R_VLAN_OFFLOAD:
		buf[12] ^= 0x01;
		return "vlan-ethertype";
	case R_RETRANSMIT:
		buf[mac + ((ip[0] >> 4) == 4 ? 5 : 3)] ^= 0x01;
		return "retransmit-id";
	default:
		if (res->verdict != V_IDENTICAL || !mac)
			return NULL;
		buf[0] ^= 0x01;
		return "mac";
	}
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
	struct observation ob = { .socket = true, .active = active, .mode = c->mode,
				  .native = n > 0 ? native : NULL, .native_len = n > 0 ? (size_t)n : 0,
				  .small_buffer = small, .gen = c->gen, .knobs = c->knobs,
				  .map_entries = cc->capacity,
				  .client_errno = active ? c->client_errno : 0 };
	struct compare_result res;
	struct capture_rec rec;
	struct capture_key flow4;
	static struct copies cp;
	uint8_t corrupted[1024];
	int have_bpf, bad, judged;

	c->res = &res;
	rx_env.hi_ms = realtime_ms() + 1000;
	have_bpf = capture_take_bound(cc, c->cookie, &rec) == 0;
	if (have_bpf && (rec.flags & CAP_F_NO_SYN)) {
		have_bpf = 0; /* evidence of a cookie child, but no SYN */
		observe_cookie_child(&rec, &ob);
	}
	st->compared++;
	cp.n = 0;
	if (have_bpf)
		gather_copies(cc, &rec, &cp);
	/* The witness's evidence, the syncookie proof among it (prove_syncookie() in
	 * bpf/syn_capture.bpf.c): per connection, and nothing the saved-SYN code can touch. */
	observe_copies(&cp, &ob);
	/* A missing capture is put down to eviction only while the maps have evicted more
	 * records than were already put down to it (rare: one map walk each). */
	ob.evicted = !have_bpf && !ob.cookie_child && capture_evictions(cc) > (long long)st->lost;
	/* the copy the kernel's bytes are judged against (which_copy.h), -1 if none */
	judged = copy_that_created(cp.view, cp.n);
	ob.cookie_due = !active && cookie_due_of(c->gen, c->gen_index);
	if (!active && have_bpf && !capture_key_of(&rec, &flow4)) {
		flow4.seq = 0;
		ob.flow_reused = keyset_has(&passive_flows, &flow4);
		/* out of memory: a later reopening of it would be cookie-missing (a failure, never a
		 * false pass) */
		if (keyset_add(&passive_flows, &flow4))
			fprintf(stderr, "syntwin: out of memory keeping passive 4-tuples\n");
	}
	/* (a second child of a cookie SYN carries its first's label: counted once, there) */
	st->cookie_due += ob.cookie_due && !ob.cookie_child;
	/* TEST ONLY (--test-corrupt K): every K-th record with both copies, so the number made
	 * wrong does not depend on where the records without a native copy fall */
	if (judged >= 0 && o->test_corrupt && ob.native && ++st->corrupt_seen % o->test_corrupt == 0 &&
	    cp.rec[judged].cap_len > 20)
		cp.rec[judged].data[cp.rec[judged].cap_len - 5] ^= 0x5a;
	bad = judge(&ob, &res);
	st->cookie_due_reopened += ob.cookie_due && ob.flow_reused && res.reason != R_SYNCOOKIE;
	if (o->test_corrupt_covered && ob.native && ob.native_len <= sizeof(corrupted)) {
		const char *region;

		memcpy(corrupted, ob.native, ob.native_len);
		region = corrupt_covered(&ob, &res, corrupted);
		if (region) {
			ob.native = corrupted;
			bad = judge(&ob, &res);
			st->test_corrupted++;
			fprintf(stderr, "TEST CORRUPT: %s\n", region);
		}
	}
	c->copies = have_bpf ? rec.copies : 0;
	if (have_bpf && wire_faults) {
		struct capture_key k;

		/* out of memory: a late copy of this one would go unrecognized, and count against
		 * the run as unbound; the run is said to be partial */
		if (!capture_key_of(&rec, &k) && keyset_add(&judged_keys, &k)) {
			fprintf(stderr, "syntwin: out of memory keeping judged keys\n");
			st->keys_lost = true;
		}
	}
	if (have_bpf && res.reason == R_SYNCOOKIE) {
		struct capture_key k;

		/* out of memory: a later child of this SYN would be unexplained (a failure,
		 * never a false pass) */
		if (!capture_key_of(&rec, &k) && keyset_add(&cookie_keys, &k))
			fprintf(stderr, "syntwin: out of memory keeping syncookie keys\n");
	}
	if (res.verdict == V_BPF_MISSING)
		remember_missing(c);
	if (res.reason == R_EVICTED)
		st->lost++;
	if (active) {
		int made = copy_that_created(cp.view, cp.n);
		uint32_t tv;

		st->active++;
		for (int i = 0; i < cp.n; i++)
			st->active_allocs += cp.view[i].saved + cp.view[i].saved_again;
		/* the TSecr cross-check's own input: a SYN-ACK with a timestamp, and the client's
		 * first ACK answering it seen (an expectation: expect.c) */
		if (made >= 0 && copy_tsval(&cp.view[made], &tv)) {
			st->active_ts++;
			st->active_answered += ob.have_tsecr;
		}
		if (gen_index(c->gen) == GEN_DUP_SYNACK)
			count_gen(st, c->gen, &res);
	} else {
		st->conns++;
		if (have_bpf) {
			c->shape = shape_of(rec.data, rec.cap_len, rec.mac_len);
			count_shape(st, c->shape);
		}
		count_gen(st, c->gen, &res);
	}
	st->verdict[res.verdict]++;
	st->reason[res.reason]++;
	st->unexplained += bad;
	st->client_failed_proven += c->client_errno && res.failure_proven;
	if (bad)
		fprintf(stderr, "syntwin: %s %s %s:%u mode %d: %s: %s\n",
			c->family == AF_INET6 ? "IPv6" : "IPv4", c->direction, active ? c->daddr : c->saddr,
			active ? c->dport : c->sport, c->mode, verdict_names[res.verdict], res.detail);
	c->native = ob.native;
	c->native_len = ob.native_len;
	c->bpf = have_bpf ? rec.data : NULL;
	c->bpf_len = have_bpf ? rec.cap_len : 0;
	c->bpf_mac_len = have_bpf ? rec.mac_len : 0;
	if (judged >= 0) { /* the record shows the copy the bytes were judged against */
		c->bpf = cp.rec[judged].data;
		c->bpf_len = cp.rec[judged].cap_len;
		c->bpf_mac_len = cp.rec[judged].mac_len;
	}
	c->small_buffer = small;
	if (have_bpf && rec.vlan_present)
		snprintf(c->bpf_vlan, sizeof(c->bpf_vlan), "%04x:%u", ntohs(rec.vlan_proto),
			 rec.vlan_tci & 0x0fffu);
	record(rep, c, st);
}


static void flow_of_key(const struct capture_key *k, struct label_flow *f)
{
	memset(f, 0, sizeof(*f));
	f->family = k->family;
	memcpy(f->saddr, k->saddr, 16);
	memcpy(f->daddr, k->daddr, 16);
	f->sport = ntohs(k->sport);
	f->dport = ntohs(k->dport);
}

static void key_of_flow(const struct label_flow *f, uint32_t isn, struct capture_key *k)
{
	memset(k, 0, sizeof(*k));
	k->family = f->family;
	memcpy(k->saddr, f->saddr, 16);
	memcpy(k->daddr, f->daddr, 16);
	k->sport = htons(f->sport);
	k->dport = htons(f->dport);
	k->seq = isn;
}

/* A GEN or GAVE_UP message's flow (the client sent the SYN). Returns 0 or -1 if malformed. */
static int flow_of_msg(const struct active_msg *m, struct label_flow *f)
{
	memset(f, 0, sizeof(*f));
	f->family = (uint8_t)m->family;
	f->sport = m->client_port;
	f->dport = m->server_port;
	return (m->family == AF_INET || m->family == AF_INET6) &&
	       inet_pton(m->family, m->client, f->saddr) == 1 &&
	       inet_pton(m->family, m->server, f->daddr) == 1 ? 0 : -1;
}

/* Fills @c's generator fields from @l (kept in @keep, which must outlive the record). */
static void use_label(struct conn_record *c, const struct label *l, struct label *keep)
{
	*keep = *l;
	c->gen = keep->gen;
	c->knobs = keep->knobs;
	c->gen_index = keep->index;
	c->gen_seed = keep->seed;
}

/* Was @l given before @syn_ns (a SYN's first copy), as the SYN's own label must have been? */
static bool given_before(const struct label *l, uint64_t syn_ns)
{
	return l->t_ns && l->t_ns < syn_ns;
}

/*
 * Takes the label of a SYN (flow @f, ISN @isn if @has_isn, first copy at @syn_ns) from the live
 * labels or those set aside by client failures, whichever was given last before the SYN: an
 * earlier connection of the flow may have left its label in either. Returns 0 or -1.
 */
static int take_syn_label(const struct label_flow *f, bool has_isn, uint32_t isn,
			  uint64_t syn_ns, struct label *l, bool *dup)
{
	const struct label *live = labels_peek(&labels, f, has_isn, isn, syn_ns);
	const struct label *failed = labels_peek(&failed_labels, f, false, 0, syn_ns);
	bool use_failed = failed && (!live || (!live->has_isn && given_before(failed, syn_ns) &&
			  (!given_before(live, syn_ns) || failed->t_ns > live->t_ns)));

	if (use_failed)
		return labels_take(&failed_labels, f, false, 0, syn_ns, l, dup);
	return labels_take(&labels, f, has_isn, isn, syn_ns, l, dup);
}

/*
 * The label of the connection whose SYN had flow @f (and ISN @isn if @has_isn): its generator
 * gave it before making the SYN, in this process, so it is here if there is one.
 */
static void attach_label(struct conn_record *c, const struct label_flow *f, bool has_isn,
			 uint32_t isn, uint64_t syn_ns, struct label *keep, struct stats *st)
{
	struct label l;
	bool dup;

	/* (set aside: a connection the client saw fail, reset after its child was made) */
	if (take_syn_label(f, has_isn, isn, syn_ns, &l, &dup))
		return;
	use_label(c, &l, keep);
	if (dup) {
		/* One SYN, two sockets (a syncookie ACK and the FIN behind it on two CPUs). */
		st->duplicate_children++;
		fprintf(stderr, "syntwin: a second socket from the SYN of %s #%llu (isn %u)\n",
			keep->gen, (unsigned long long)keep->index, isn);
	}
}

/*
 * Is this passive connection's saved SYN also read with a too-small buffer? Drawn from the run's
 * seed and the connection's own label (generator and index), so that a connection is checked
 * alike in every run of the seed, sharded or not, in whatever order the accepts come; a
 * connection without a label draws from the server's own sequence.
 */
static bool small_buffer_check(const struct opts *o, const struct conn_record *c, uint64_t *rng)
{
	uint64_t s;

	if (!c->gen)
		return rng_permille(rng, SMALL_BUFFER_PERMILLE);
	s = fnv1a_str(o->seed ^ (c->gen_index + 1) * 0x9e3779b97f4a7c15ull, c->gen);
	return rng_permille(&s, SMALL_BUFFER_PERMILLE);
}

/* A passive connection: the accepted socket's saved SYN. */
static void one_socket(int fd, int family, int mode, const struct opts *o,
		       uint64_t *rng, struct capture_client *cc, struct report *rep,
		       struct stats *st)
{
	struct conn_record c = { .family = family, .mode = mode, .direction = "passive" };
	socklen_t cl = sizeof(c.cookie);
	struct capture_rec peek;
	struct capture_key k;
	struct label_flow f = { .family = (uint8_t)family };
	struct label keep;
	uint8_t native[1024];
	char small[160];
	bool check, have_key;
	uint64_t syn_ns;
	int n;

	socket_addr(fd, 1, c.saddr, &c.sport);
	socket_addr(fd, 0, c.daddr, &c.dport);
	getsockopt(fd, SOL_SOCKET, SO_COOKIE, &c.cookie, &cl);
	/* The label is found by the witness's key (flow + ISN); without a capture, by the
	 * socket's addresses. */
	have_key = capture_peek_bound(cc, c.cookie, &peek) == 0 &&
		   capture_key_of(&peek, &k) == 0;
	/* a later child of a syncookie connection: its label is that connection's */
	if (have_key && (peek.flags & CAP_F_NO_SYN)) {
		struct capture_key seg = k;

		have_key = cookie_child_origin(&seg, &k) >= 0;
	}
	if (have_key) {
		flow_of_key(&k, &f);
		/* The peer may be gone already (reset before the accept; getpeername() fails). */
		inet_ntop(k.family, k.saddr, c.saddr, sizeof(c.saddr));
		c.sport = f.sport;
	} else {
		inet_pton(family, c.saddr, f.saddr);
		inet_pton(family, c.daddr, f.daddr);
		f.sport = c.sport;
		f.dport = c.dport;
	}
	/* a cookie child's SYN is an earlier connection's: its label is found as a duplicate */
	syn_ns = have_key && !(peek.flags & CAP_F_NO_SYN) ? capture_first_ts(cc, &peek) : 0;
	attach_label(&c, &f, have_key, have_key ? k.seq : 0, syn_ns, &keep, st);
	check = small_buffer_check(o, &c, rng);
	st->small_buffer_checks += check;
	n = read_native_checked(fd, check, native, sizeof(native), small, sizeof(small));
	compare_one(&c, native, n, small, o, cc, rep, st);
	if (o->test_reset >= 0 && c.gen && !strcmp(c.gen, "sockets") &&
	    c.gen_index == (uint64_t)o->test_reset) {
		/* TEST ONLY: its close sends an RST (seq = the SYN-ACK's ISN + 1, nothing sent) */
		struct linger lg = { .l_onoff = 1, .l_linger = 0 };

		if (setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)))
			log_err("TEST RESET: SO_LINGER");
		fprintf(stderr, "TEST RESET: sockets #%lld reset by the server\n",
			(long long)o->test_reset);
	}
}

static void judge_capture(struct capture_client *cc, const struct capture_key *k,
			  const struct capture_rec *r, const struct label *l, struct report *rep,
			  struct stats *st);

/* A generator gave up on a SYN (no SYN-ACK came): judge its capture now, as one connection. */
static void gave_up(const struct active_msg *m, struct capture_client *cc, struct report *rep,
		    struct stats *st)
{
	struct label_flow f;
	struct capture_key k;
	struct capture_rec r;
	struct label l, *lp = NULL;
	bool dup;

	if (flow_of_msg(m, &f) || !m->has_isn)
		return;
	key_of_flow(&f, m->isn, &k);
	if (labels_take(&labels, &f, true, m->isn, 0, &l, &dup) == 0)
		lp = &l;
	st->conns++;
	st->gave_up++;
	if (capture_take_flow(cc, &k, &r) == 0) {
		st->gave_up_dropped += capture_all_dropped(&r);
		judge_capture(cc, &k, &r, lp, rep, st);
		return;
	}
	/* The generator wrote a SYN that the witness never saw. */
	struct observation ob = { .isn = m->isn, .gen = lp ? lp->gen : NULL,
				  .knobs = lp ? lp->knobs : NULL };
	struct compare_result res;
	struct conn_record c = { .family = f.family, .direction = "passive", .sport = f.sport,
				 .dport = f.dport, .res = &res, .gen = lp ? lp->gen : NULL,
				 .knobs = lp ? lp->knobs : NULL, .gen_index = lp ? lp->index : 0,
				 .gen_seed = lp ? lp->seed : 0 };
	int bad = judge(&ob, &res);

	inet_ntop(f.family, f.saddr, c.saddr, sizeof(c.saddr));
	inet_ntop(f.family, f.daddr, c.daddr, sizeof(c.daddr));
	st->verdict[res.verdict]++;
	st->unexplained += bad;
	fprintf(stderr, "syntwin: %s %s:%u: bpf-missing: %s\n", f.family == AF_INET6 ? "IPv6" :
		"IPv4", c.saddr, c.sport, res.detail);
	record(rep, &c, st);
}

/*
 * A socket connection that failed in the client: its label, if no socket took it yet, moves
 * from its flow to failed_labels (a later connection reusing the port cannot take it; its SYN's
 * capture or its child finds it there). With @recorded, its active record came with the
 * failure and is judged with it; without, nothing but the client's word shows why it failed:
 * connection-failed, and no active record is owed.
 */
static void client_failed(const struct active_msg *m, bool recorded, const struct opts *o,
			  struct stats *st)
{
	struct label_flow f;
	struct label l;
	bool dup;

	st->client_failed++;
	if (!recorded) {
		st->active_unrecorded += o->active > 0;
		st->verdict[V_CONN_FAILED]++;
		st->unexplained++;
		fprintf(stderr, "syntwin: %s #%llu (%s) failed in the client before its SYN-ACK was "
			"saved (%s): connection-failed, nothing on the wire to show why\n", m->gen,
			(unsigned long long)m->index, m->knobs, strerrorname_np((int)m->count));
	}
	/* the flow is live in one connection at a time: the failed one's label is its newest */
	if (flow_of_msg(m, &f) || labels_take(&labels, &f, false, 0, UINT64_MAX, &l, &dup))
		return;
	if (labels_put(&failed_labels, &l))
		fprintf(stderr, "syntwin: out of memory keeping the label of failed connection "
			"%s #%llu\n", l.gen, (unsigned long long)l.index);
}

/* One message of a generator (client_msg.h): a GEN label, GAVE_UP, FAILED, an active RECORD
 * (compared here), DONE. */
static void handle_msg(struct active_msg *m, const struct opts *o, struct capture_client *cc,
		       struct report *rep, struct stats *st)
{
	struct conn_record c = { .family = m->family, .mode = m->mode, .direction = "active",
				 .cookie = m->cookie, .sport = m->server_port,
				 .dport = m->client_port };

	if (m->kind == ACTIVE_DONE) {
		st->active_announced += m->count;
		return;
	}
	m->gen[sizeof(m->gen) - 1] = 0;
	m->knobs[sizeof(m->knobs) - 1] = 0;
	m->client[sizeof(m->client) - 1] = 0;
	m->server[sizeof(m->server) - 1] = 0;
	if (m->kind == CLIENT_GEN) {
		struct label l = { .has_isn = m->has_isn, .isn = m->isn, .index = m->index,
				   .seed = m->seed, .t_ns = m->t_ns };

		memcpy(l.gen, m->gen, sizeof(l.gen));
		memcpy(l.knobs, m->knobs, sizeof(l.knobs));
		if (flow_of_msg(m, &l.flow) || labels_put(&labels, &l))
			st->bad_labels++;
		return;
	}
	if (m->kind == CLIENT_GAVE_UP) {
		gave_up(m, cc, rep, st);
		return;
	}
	if (m->kind == CLIENT_FAILED) {
		client_failed(m, false, o, st);
		return;
	}
	if (m->kind != ACTIVE_RECORD)
		return;
	if (m->count) { /* failed after its SYN-ACK was saved: count = the error */
		client_failed(m, true, o, st);
		c.client_errno = (int)m->count;
	}
	c.gen = m->gen;
	c.knobs = m->knobs;
	c.gen_index = m->index;
	c.gen_seed = m->seed;
	m->small[sizeof(m->small) - 1] = 0;
	snprintf(c.saddr, sizeof(c.saddr), "%.45s", m->server);
	snprintf(c.daddr, sizeof(c.daddr), "%.45s", m->client);
	st->small_buffer_checks += m->small[0] != 0;
	compare_one(&c, m->native, m->native_len > (int)sizeof(m->native) ? -1 : m->native_len,
		    m->small, o, cc, rep, st);
}


/* What the in-process socket generator's sink hands the messages to. */
struct run_ctx {
	const struct opts *o;
	struct capture_client *cc;
	struct report *rep;
	struct stats *st;
};

/* The socket generator's sink (sock_gen.h): its messages, handled at once, in memory. */
static int to_server(void *ctx, const struct active_msg *msg)
{
	struct run_ctx *r = ctx;
	struct active_msg m = *msg;

	handle_msg(&m, r->o, r->cc, r->rep, r->st);
	return 0;
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
	return md5_key_for(fd, family, family == AF_INET ? TOPO_MD5_CLIENT4 : TOPO_MD5_CLIENT6);
}


/* Captures still waiting for a socket (counted in checkpoint summaries). */
static int count_waiting(const struct capture_key *k, const struct capture_rec *r, void *arg)
{
	(void)k;
	(void)r;
	(*(uint64_t *)arg)++;
	return 0;
}

/* The follower's objects still allocated at the end of the run (mem_collect()): each is
 * judged once, on its flow's record (an abandoned request) or as a leak of its own. */
struct live_obj {
	uint64_t addr;
	struct mem_obj o;
	bool judged;
};
static struct live_obj *live;
static size_t nlive;
static unsigned int synack_retries; /* the server netns's net.ipv4.tcp_synack_retries */

/* The call site of the outstanding saved copy of flow @k, or NULL if none is outstanding. */
static const char *leaked_site(const struct capture_key *k, char *buf, size_t len)
{
	for (size_t i = 0; i < nlive; i++) {
		if (live[i].judged || memcmp(&live[i].o.flow, k, sizeof(*k)))
			continue;
		live[i].judged = true;
		return saved_syn_mem_symbol(live[i].o.call_site, buf, len);
	}
	return NULL;
}

/*
 * What is known of a SYN no socket took, for the judge: of a planned abandoned handshake every
 * copy (taken from syn_copies), the listener's mode and whether its saved copy is still
 * allocated; of any other, the flow's record.
 */
static void observe_unbound(struct capture_client *cc, const struct capture_key *k,
			    const struct capture_rec *r, struct observation *ob, char *site,
			    size_t sitelen)
{
	static struct copies cp;

	/* the judge's own test of the label, so the two cannot disagree; a SYN answered with a
	 * cookie is judged on every copy and its memory too (judge_cookie_no_child()) */
	if (abandon_kind_of(ob->gen) >= 0 || (r->flags & CAP_F_SYNACK_COOKIE)) {
		gather_copies(cc, r, &cp);
		ob->leaked_at = leaked_site(k, site, sitelen);
	} else {
		cp.rec[0] = *r;
		view_of(&cp.rec[0], &cp.view[0]);
		cp.n = 1;
		cp.cut = false;
	}
	observe_copies(&cp, ob);
	/* the plan's listeners: PORT_BASE mode 1, the next mode 2 (and again for abandon-close) */
	ob->listener_mode = (ntohs(k->dport) - PORT_BASE) % 2 + 1;
	ob->to_listener = (unsigned int)(ntohs(k->dport) - PORT_BASE) < 2 ||
			  (unsigned int)(ntohs(k->dport) - TOPO_CLOSE_PORT) < 2;
	ob->synack_retries = synack_retries;
}

static void judge_capture(struct capture_client *cc, const struct capture_key *k,
			  const struct capture_rec *r, const struct label *l, struct report *rep,
			  struct stats *st)
{
	struct observation ob = { .gen = l ? l->gen : NULL, .knobs = l ? l->knobs : NULL,
				  .cookie_due = l && cookie_due_of(l->gen, l->index) };
	struct compare_result res;
	char site[160];
	struct conn_record c = { .family = k->family, .mode = 0, .direction = "passive",
				 .sport = ntohs(k->sport), .dport = ntohs(k->dport),
				 .bpf = r->data, .bpf_len = r->cap_len, .bpf_mac_len = r->mac_len,
				 .res = &res, .gen = l ? l->gen : NULL, .knobs = l ? l->knobs : NULL,
				 .gen_index = l ? l->index : 0, .gen_seed = l ? l->seed : 0,
				 .copies = r->copies };
	int bad;

	observe_unbound(cc, k, r, &ob, site, sizeof(site));
	bad = judge(&ob, &res);

	inet_ntop(k->family, k->saddr, c.saddr, sizeof(c.saddr));
	inet_ntop(k->family, k->daddr, c.daddr, sizeof(c.daddr));
	st->verdict[res.verdict]++;
	st->reason[res.reason]++;
	st->unexplained += bad;
	count_gen(st, c.gen, &res);
	if (bad) {
		char text[512];
		struct syn_layout lay;

		syn_layout(r->data, r->cap_len, r->mac_len, &lay);
		syn_decode_text(r->data, &lay, text, sizeof(text));
		fprintf(stderr, "syntwin: %s passive %s:%u > %s:%u isn %u (%s): %s: %s; %s\n",
			k->family == AF_INET6 ? "IPv6" : "IPv4", c.saddr, c.sport, c.daddr, c.dport,
			k->seq, c.knobs ? c.knobs : "no generator named it",
			verdict_names[res.verdict], res.detail, text);
	}
	record(rep, &c, st);
}

struct judge_ctx {
	struct capture_client *cc;
	struct report *rep;
	struct stats *st;
};

/* At the end: every capture no socket took, each with its label if a generator gave one. */
static int judge_left(const struct capture_key *k, const struct capture_rec *r, void *arg)
{
	struct judge_ctx *u = arg;
	struct capture_rec gone;
	struct label_flow f;
	struct label l;
	bool dup, have;

	flow_of_key(k, &f);
	if (wire_faults && keyset_has(&judged_keys, k)) {
		/* a copy the faulty wire delivered after its connection (same flow and ISN) was
		 * judged: the witness saw it, the connection is counted once */
		u->st->late_copies++;
		capture_take_flow(u->cc, k, &gone);
		return 0;
	}
	if (wire_faults && late_answer(r, &judged_keys)) {
		u->st->late_answers++;
		capture_take_flow(u->cc, k, &gone);
		return 0;
	}
	if (labels_take(&missing_flows, &f, false, 0, 0, &l, &dup) == 0) {
		/* its connection was judged already, bpf-missing: its binding was evicted */
		u->st->late_captures++;
		capture_take_flow(u->cc, k, &gone);
		return 0;
	}
	have = take_syn_label(&f, true, k->seq, capture_first_ts(u->cc, r), &l, &dup) == 0 &&
	       !dup;
	judge_capture(u->cc, k, r, have ? &l : NULL, u->rep, u->st);
	capture_take_flow(u->cc, k, &gone); /* judged: no longer waiting */
	return 0;
}

/* A number from a /proc/sys file of this netns, 0 if unreadable. */
static unsigned long read_sysctl_uint(const char *path)
{
	FILE *f = fopen(path, "re");
	unsigned long v = 0;

	if (f && fscanf(f, "%lu", &v) != 1)
		v = 0;
	if (f)
		fclose(f);
	return v;
}

#define MEM_SETTLE_MS 10000 /* the last planned request expires 3 s after its SYN */

static uint64_t elapsed_ms(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (uint64_t)((t1.tv_sec - t0->tv_sec) * 1000 + (t1.tv_nsec - t0->tv_nsec) / 1000000);
}

static int keep_live(uint64_t addr, const struct mem_obj *o, void *arg)
{
	size_t *cap = arg;

	if (nlive == *cap)
		return 1;
	live[nlive++] = (struct live_obj){ .addr = addr, .o = *o };
	return 0;
}

/*
 * The end, for memory: every socket is closed and the planned requests expire; wait until no
 * saved copy is outstanding (at most MEM_SETTLE_MS), then keep those that still are, each to be
 * judged (leaked_site(), judge_leaks()).
 */
static void mem_collect(struct stats *st)
{
	struct timespec t0;
	size_t cap;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		saved_syn_mem_read(mem, &st->mem);
		if (st->mem.live <= 0)
			break;
		usleep(50 * 1000);
	} while (elapsed_ms(&t0) < MEM_SETTLE_MS);
	st->mem_settle_ms = elapsed_ms(&t0);
	cap = st->mem.live > 0 ? (size_t)st->mem.live + 1024 : 1024;
	live = calloc(cap, sizeof(*live));
	if (live) {
		saved_syn_mem_each(mem, 0, keep_live, &cap);
		return;
	}
	/* the outstanding objects cannot be judged one by one: the run fails as a whole */
	fprintf(stderr, "syntwin-server: out of memory listing %lld outstanding saved copies\n",
		(long long)st->mem.live);
	st->unexplained += st->mem.live > 0;
}

/* One memory verdict (a leak, a double free) on the flow of object @o: unexplained. */
static void mem_verdict(const struct mem_obj *o, const char *what, struct report *rep,
			struct stats *st)
{
	struct compare_result res = { .verdict = V_DIFFER, .diff_off = -1 };
	struct conn_record c = { .family = o->flow.family, .direction = "memory",
				 .sport = ntohs(o->flow.sport), .dport = ntohs(o->flow.dport),
				 .res = &res };
	char site[160];

	snprintf(res.detail, sizeof(res.detail), "a saved copy of %llu bytes (allocated for isn "
		 "%u) %s", (unsigned long long)o->bytes, o->flow.seq, what);
	if (o->flow.family) {
		inet_ntop(o->flow.family, o->flow.saddr, c.saddr, sizeof(c.saddr));
		inet_ntop(o->flow.family, o->flow.daddr, c.daddr, sizeof(c.daddr));
	}
	st->verdict[V_DIFFER]++;
	st->unexplained++;
	st->mem_leaks++;
	fprintf(stderr, "syntwin: %s memory %s:%u > %s:%u: differ: %s (%s)\n",
		o->flow.family == AF_INET6 ? "IPv6" : o->flow.family ? "IPv4" : "unknown flow",
		c.saddr, c.sport, c.daddr, c.dport, res.detail,
		saved_syn_mem_symbol(o->call_site, site, sizeof(site)));
	record(rep, &c, st);
}

/* "func+0x1f" -> the length of "func" */
static size_t function_len(const char *sym)
{
	return strcspn(sym, "+");
}

/*
 * An object the follower saw freed twice. A double free is confirmed when both kfree calls are
 * in one function (one path freed it twice). Otherwise its address may have been handed out
 * again by an allocation the tracepoints did not report (one made while a BPF program was
 * already running on that CPU is not traced), so it is counted, named, and not judged.
 */
static int judge_double(uint64_t addr, const struct mem_obj *o, void *arg)
{
	struct judge_ctx *u = arg;
	char what[400], first[160], second[160];

	(void)addr;
	saved_syn_mem_symbol(o->free_site, first, sizeof(first));
	saved_syn_mem_symbol(o->free2_site, second, sizeof(second));
	if (function_len(first) != function_len(second) ||
	    strncmp(first, second, function_len(first))) {
		u->st->mem_double_unconfirmed++;
		fprintf(stderr, "syntwin-server: note: a saved copy's address freed at %s was freed "
			"again at %s, another function (not judged: see double_frees_unconfirmed; the "
			"follower missed %llu nested run(s), where a reuse goes unseen)\n", first,
			second, (unsigned long long)u->st->mem.missed);
		return 0;
	}
	u->st->mem_double_confirmed++;
	snprintf(what, sizeof(what), "was freed twice in one function (%s, then %s)", first,
		 second);
	mem_verdict(o, what, u->rep, u->st);
	return 0;
}

/* Every saved copy still allocated that no record judged, and every one freed twice. */
static void judge_leaks(struct judge_ctx *u)
{
	for (size_t i = 0; i < nlive; i++)
		if (!live[i].judged)
			mem_verdict(&live[i].o, "was never freed (outstanding at the end of the run)",
				    u->rep, u->st);
	saved_syn_mem_each(mem, 1, judge_double, u);
	free(live);
	live = NULL;
	nlive = 0;
}

static void summary_memory(struct json_out *j, const struct stats *st)
{
	json_open(j, "memory_follower", '{');
	json_u64(j, "allocated", st->mem.allocs);
	json_u64(j, "freed", st->mem.frees);
	json_i64(j, "outstanding", st->mem.live);
	/* the follower's second kfrees (events), then what the server made of each address: freed
	 * twice in one function (a verdict), or again from another (a reuse it may have missed) */
	json_u64(j, "second_kfrees_seen", st->mem.double_frees);
	json_u64(j, "double_frees", st->mem_double_confirmed);
	json_u64(j, "double_frees_unconfirmed", st->mem_double_unconfirmed);
	json_u64(j, "missed_runs", st->mem.missed);
	json_u64(j, "ctx_overflow", st->mem.ctx_overflow);
	json_u64(j, "unattributed", st->mem.unattributed);
	json_u64(j, "untracked", st->mem.untracked);
	json_u64(j, "verdicts", st->mem_leaks);
	json_u64(j, "settle_ms", st->mem_settle_ms);
	json_close(j);
}

static void summary_planned(struct json_out *j, const struct opts *o, const struct stats *st)
{
	json_open(j, "planned", '{');
	json_open(j, "held_back", '{');
	json_u64(j, "planned", o->held_back);
	json_u64(j, "proven_syn_retransmit", st->proven[GEN_HELD_BACK]);
	json_close(j);
	json_open(j, "abandoned", '{');
	json_u64(j, "planned", o->abandoned);
	json_u64(j, "proven_reset", st->proven[GEN_ABANDONED_RST]);
	json_u64(j, "proven_expired", st->proven[GEN_ABANDONED_EXPIRE]);
	json_u64(j, "proven_listener_closed", st->proven[GEN_ABANDONED_CLOSE]);
	json_close(j);
	json_open(j, "dup_synack", '{');
	json_u64(j, "planned", o->dup_synack);
	json_u64(j, "proven_syn_retransmit", st->proven[GEN_DUP_SYNACK]);
	json_close(j);
	json_close(j);
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
 * exactly the accepted cookie children of TCP_SAVE_SYN listeners) the two must be equal, but
 * for connections whose capture the witness lost (records_lost: their proof went with it):
 * proven <= growth <= proven + lost. With only SyncookiesRecv (every validated cookie,
 * accepted or not) the proofs may not exceed it. Returns whether they agree.
 */
/* Cookie children the witness proved: first children (syncookie) and later ones of a SYN
 * already judged (syncookie-repeat); the counter counts both. */
static uint64_t cookies_proven(const struct stats *st)
{
	return st->reason[R_SYNCOOKIE] + st->reason[R_COOKIE_REPEAT];
}

static bool cookie_cross_check(const struct stats *st, int64_t *growth)
{
	int64_t now = tcpext_counter(st->cookie_counter);
	uint64_t proven = cookies_proven(st);

	*growth = now < 0 || st->cookies_base < 0 ? -1 : now - st->cookies_base;
	if (*growth < 0)
		return false;
	if (!strcmp(st->cookie_counter, "TCPSynNotSavedCookie"))
		return (uint64_t)*growth >= proven && (uint64_t)*growth <= proven + st->lost;
	return (uint64_t)*growth >= proven;
}

static const char *cookie_rule(const struct stats *st)
{
	if (strcmp(st->cookie_counter, "TCPSynNotSavedCookie"))
		return "proven <= growth";
	return st->lost ? "proven <= growth <= proven + records_lost" : "proven == growth";
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
	json_u64(j, "proven", cookies_proven(st));
	json_str(j, "rule", cookie_rule(st));
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
	/* the run's size as asked for (what --rerun walks again): without the planned
	 * held-back connections, which are made on top of it */
	json_u64(j, "requested_connections",
		 o->connections > o->held_back ? o->connections - o->held_back : 0);
	json_u64(j, "active_connections", st->active);
	json_u64(j, "expected_active", o->active);
	json_open(j, "generators", '{');
	for (int g = 0; g < GEN_MAX; g++)
		json_u64(j, gen_names[g], st->gen[g]);
	json_close(j);
	json_u64(j, "duplicate_children", st->duplicate_children);
	json_u64(j, "client_failed", st->client_failed);
	json_u64(j, "client_failed_proven", st->client_failed_proven);
	json_u64(j, "test_corrupted", st->test_corrupted);
	json_u64(j, "late_captures", st->late_captures);
	json_u64(j, "late_copies", st->late_copies);
	json_u64(j, "late_answers", st->late_answers);
	json_u64(j, "gave_up", st->gave_up);
	json_u64(j, "gave_up_dropped", st->gave_up_dropped);
	if (st->unclaimed_bindings >= 0)
		json_i64(j, "unclaimed_bindings", st->unclaimed_bindings);
	else
		json_null(j, "unclaimed_bindings");
	json_u64(j, "bad_labels", st->bad_labels);
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
	json_u64(j, "connection_failed", st->verdict[V_CONN_FAILED]);
	json_u64(j, "cookie_not_due", st->verdict[V_COOKIE_NOT_DUE]);
	json_u64(j, "cookie_missing", st->verdict[V_COOKIE_MISSING]);
	json_u64(j, "capture_truncated", st->verdict[V_TRUNCATED]);
	json_u64(j, "small_buffer_checks", st->small_buffer_checks);
}

static void summary_witness(struct json_out *j, struct capture_client *cc, const struct stats *st)
{
	__u64 cnt[CNT_MAX] = { 0 };
	uint64_t unbound = 0;
	struct bpf_error be;

	capture_counters(cc, cnt);
	capture_each_unbound(cc, count_waiting, &unbound);
	/* captures judged "unbound" (no socket, no proven drop), and those still waiting */
	json_u64(j, "unbound_captures", st->verdict[V_UNBOUND]);
	json_u64(j, "waiting_captures", unbound);
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
	summary_planned(&j, o, st);
	if (final) {
		summary_memory(&j, st);
		expect_json(&j, &st->expect);
	}
	provides_json(&j, "declared", &o->decl);
	tree_facts_json(&j, "tree", &o->tree);
	fp_stats_json(&j, &st->fp);
	json_str(&j, "kernel", u.release);
	json_str(&j, "series_hash", o->series_hash);
	json_u64(&j, "seed", o->seed);
	json_str(&j, "mix", o->mix);
	json_str(&j, "rerun_of", o->rerun_of);
	json_str(&j, "shard", o->shard);
	json_str(&j, "netem", o->netem);
	json_str(&j, "netem_back", o->netem_back);
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

/*
 * Room for the last summary on a disk the records fill up: 16 KiB held from the start in a
 * file of its own and given back just before the final summary is written (its temp file and
 * the checkpoint it replaces both fit). Returns 0, or -1 if even that cannot be written.
 */
#define RESERVE_NAME ".syntwin-reserve"
static int reserve_space(const char *dir)
{
	static const char zeros[4096];
	char path[600];
	int fd, rc = 0;

	snprintf(path, sizeof(path), "%s/" RESERVE_NAME, dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	for (int i = 0; i < 4 && !rc; i++)
		rc = write(fd, zeros, sizeof(zeros)) == (ssize_t)sizeof(zeros) ? 0 : -1;
	if (fsync(fd))
		rc = -1;
	close(fd);
	if (rc)
		unlink(path);
	return rc;
}

static void release_space(const char *dir)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/" RESERVE_NAME, dir);
	unlink(path);
}

/*
 * Are passive connections still owed? Each planned connection pays once: a second child of one
 * SYN (duplicate_children) does not pay for another's, and, with @judged (at the end, every
 * capture judged), a connection proven to have no child (syncookie-no-child) pays without one.
 */
static bool passive_owed(const struct stats *st, const struct opts *o, bool judged)
{
	uint64_t paid = st->conns - st->duplicate_children +
			(judged ? st->reason[R_COOKIE_NO_CHILD] : 0);

	return paid < o->connections;
}

/* Are active records still owed? None is for a connection that failed before its SYN-ACK. */
static bool active_owed(const struct stats *st, const struct opts *o)
{
	return st->active + st->active_unrecorded < o->active;
}

/* The one line a run ends with: counts by verdict and explained reason. */
static void print_result(const struct stats *st, bool active)
{
	char actives[64] = "";

	if (active)
		snprintf(actives, sizeof(actives), " + %llu active (SYN-ACK)",
			 (unsigned long long)st->active);
	printf("%llu connections%s: %llu identical, %llu explained (", (unsigned long long)st->conns,
	       actives, (unsigned long long)st->verdict[V_IDENTICAL],
	       (unsigned long long)st->verdict[V_EXPLAINED]);
	for (int r = R_IPV4_OPTION_REWRITE, first = 1; r < R_MAX; r++) {
		if (r == R_EVICTED)
			continue;
		printf("%s%s %llu", first ? "" : ", ", reason_names[r],
		       (unsigned long long)st->reason[r]);
		first = 0;
	}
	printf("), %llu unexplained%s\n", (unsigned long long)st->unexplained,
	       st->partial ? " (PARTIAL)" : "");
}

/* Every listener: TCP_SAVE_SYN 1 and 2, IPv4 and IPv6, non-blocking, on @ep. Returns 0 or -1. */
static int open_listeners(int ep, int lfd[4])
{
	for (int i = 0; i < 4; i++) {
		int family = i < 2 ? AF_INET : AF_INET6, mode = i % 2 + 1;
		struct epoll_event ev = { .events = EPOLLIN, .data.u32 = (uint32_t)i };

		lfd[i] = start_listener(family, family == AF_INET ? "0.0.0.0" : "::",
					PORT_BASE + mode - 1, mode, 4096);
		/* Non-blocking, so the accept loop ends with EAGAIN instead of waiting. */
		if (lfd[i] < 0 || fcntl(lfd[i], F_SETFL, O_NONBLOCK) ||
		    listener_knobs(lfd[i], family) || epoll_ctl(ep, EPOLL_CTL_ADD, lfd[i], &ev))
			return -1;
	}
	return 0;
}

/* Every 3 s: the records so far on disk, and a partial summary that counts them, so a killed
 * server still leaves both; then a progress line. Returns -1 if the results cannot be written. */
static int checkpoint(const struct opts *o, struct capture_client *cc, struct report *rep,
		      struct stats *st)
{
	int bad = report_flush(rep);

	st->records_written = rep->lines_written;
	if (bad || write_summary(o, cc, st, false)) {
		st->write_errno = errno ? errno : EIO;
		return -1;
	}
	printf("  ... %llu/%llu connections compared (active %llu/%llu), %llu unexplained\n",
	       (unsigned long long)st->conns, (unsigned long long)o->connections,
	       (unsigned long long)st->active, (unsigned long long)o->active,
	       (unsigned long long)st->unexplained);
	fflush(stdout);
	return 0;
}

/* A TcpExt counter's growth since @base (-1: absent now or then). */
static int64_t growth_of(const char *name, int64_t base)
{
	int64_t now = tcpext_counter(name);

	return now < 0 || base < 0 ? -1 : now - base;
}

static const struct plan *run_plan;	/* the driver's plan, NULL for a server run by hand */

/* What the run saw, for its expectations (expect.h). */
static void gather_facts(const struct opts *o, struct capture_client *cc, const struct stats *st,
			 struct expect_facts *f)
{
	__u64 cnt[CNT_MAX] = { 0 };
	uint64_t waiting = 0;

	capture_counters(cc, cnt);
	capture_each_unbound(cc, count_waiting, &waiting);
	*f = (struct expect_facts){
		.plan = run_plan, .decl = &o->decl, .wire_faults = wire_faults,
		.whole_run = run_plan && !o->run.rerun && !o->shard[0] && strcmp(o->mix, "replay"),
		.passive = st->conns, .active = st->active, .active_unrecorded = st->active_unrecorded,
		.records = st->records_written,
		.gen_sockets = st->gen[GEN_SOCKETS], .gen_crafted = st->gen[GEN_CRAFTED],
		.gen_tap = st->gen[GEN_TAP], .gen_fuzz = st->gen[GEN_FUZZ],
		.gen_replay = st->gen[GEN_REPLAY], .gen_held_back = st->gen[GEN_HELD_BACK],
		.gen_dup_synack = st->gen[GEN_DUP_SYNACK],
		.abandon_rst = st->gen[GEN_ABANDONED_RST], .abandon_expire = st->gen[GEN_ABANDONED_EXPIRE],
		.abandon_close = st->gen[GEN_ABANDONED_CLOSE],
		.proven_held_back = st->proven[GEN_HELD_BACK], .proven_dup_synack = st->proven[GEN_DUP_SYNACK],
		.proven_rst = st->proven[GEN_ABANDONED_RST], .proven_expire = st->proven[GEN_ABANDONED_EXPIRE],
		.proven_close = st->proven[GEN_ABANDONED_CLOSE],
		.syncookie = st->reason[R_SYNCOOKIE], .cookie_repeat = st->reason[R_COOKIE_REPEAT],
		.cookie_no_child = st->reason[R_COOKIE_NO_CHILD], .rejected = st->reason[R_REJECTED],
		.duplicate_children = st->duplicate_children,
		.cookie_due = st->cookie_due, .cookie_due_reopened = st->cookie_due_reopened,
		.cookie_not_due = st->verdict[V_COOKIE_NOT_DUE], .dropped = st->reason[R_DROPPED],
		.tcp_syn_saved = growth_of("TCPSynSaved", st->tcpext_base[2]),
		.tcp_cookie_not_saved = growth_of("TCPSynNotSavedCookie", st->tcpext_base[3]),
		.tcp_tw_overflow = growth_of("TCPTimeWaitOverflow", st->tcpext_base[1]),
		.tcp_synack_saved = growth_of("TCPSynAckSaved", st->synack_saved_base),
		.mem_allocs = st->mem.allocs, .mem_frees = st->mem.frees,
		.mem_double = st->mem_double_confirmed, .mem_unattributed = st->mem.unattributed,
		.mem_untracked = st->mem.untracked, .mem_verdicts = st->mem_leaks,
		.mem_ctx_overflow = st->mem.ctx_overflow, .mem_live = st->mem.live,
		.mem_double_elsewhere = st->mem_double_unconfirmed, .mem_missed = st->mem.missed,
		.active_allocs = st->active_allocs,
		.active_ts = st->active_ts, .active_answered = st->active_answered,
		.bound = cnt[CNT_BOUND], .bind_miss = cnt[CNT_BIND_MISS],
		.active_bound = cnt[CNT_ACTIVE_BOUND], .active_bind_miss = cnt[CNT_ACTIVE_BIND_MISS],
		.ring_drops = cnt[CNT_RING_DROPS], .records_lost = st->lost,
		.unbound = st->verdict[V_UNBOUND], .waiting = waiting,
		.unclaimed = st->unclaimed_bindings,
	};
	memcpy(f->counter_present, st->counter_present, sizeof(f->counter_present));
}

/* The run's expectations, each failed one named (the first is what a matrix cell shows). */
static void check_expectations(const struct opts *o, struct capture_client *cc, struct stats *st)
{
	struct expect_facts f;
	char line[256];

	gather_facts(o, cc, st, &f);
	expect_all(&f, &st->expect);
	for (size_t i = 0; i < st->expect.n; i++) {
		if (st->expect.e[i].ok)
			continue;
		expect_line(&st->expect.e[i], line, sizeof(line));
		fprintf(stderr, "syntwin: expectation failed: %s\n", line);
	}
}

/*
 * The end of a run, however it ended: every capture no socket took judged, evictions and memory, the syncookie cross-check, the records closed, the final
 * summary and the result line. Returns the exit status.
 */
static int finish_run(const struct opts *o, struct capture_client *cc, struct report *rep,
		      struct stats *st)
{
	int64_t cookie_growth;
	int rc;

	mem_collect(st);
	if (st->write_errno) {
		/* The results cannot be written: what is left belongs to connections this run never
		 * took (the generators went on), so it is counted, not judged. */
		uint64_t left = 0;

		capture_each_unbound(cc, count_waiting, &left);
		fprintf(stderr, "syntwin-server: not judged (the run stopped): %llu capture(s) left, "
			"%lld saved cop(ies) still allocated\n", (unsigned long long)left,
			(long long)st->mem.live);
		free(live);
		live = NULL;
		nlive = 0;
	} else {
		capture_each_unbound(cc, judge_left, &(struct judge_ctx){ cc, rep, st });
		judge_leaks(&(struct judge_ctx){ cc, rep, st });
	}
	st->evictions = capture_evictions(cc);
	st->unclaimed_bindings = capture_forget_bound(cc);
	if (st->evictions > 0 || st->lost)
		fprintf(stderr, "syntwin-server: the witness (a flow map of %u entries, a ring of %u "
			"bytes) evicted %lld record(s); %llu connection(s) have no capture: results are "
			"partial (raise --entries)\n", cc->capacity, capture_ring_bytes(cc->capacity),
			st->evictions, (unsigned long long)st->lost);
	st->slab_end = slab_bytes("");
	st->syn_slab_end = saved_syn_slab();
	st->partial = passive_owed(st, o, true) || active_owed(st, o) || st->evictions > 0 ||
		     st->lost || st->write_errno || st->keys_lost;
	if (stop)
		fprintf(stderr, "syntwin-server: stopped by signal %d; results kept, marked partial\n",
			(int)stop);
	if (st->write_errno)
		fprintf(stderr, "syntwin-server: cannot write results in %s: %s; stopped with %llu "
			"of %llu connections (marked partial if the summary could be written)\n",
			o->out, strerror(st->write_errno), (unsigned long long)st->conns,
			(unsigned long long)o->connections);
	rc = report_close(rep); /* first: the summary counts the records it flushed */
	st->records_written = rep->lines_written;
	if (!cookie_cross_check(st, &cookie_growth)) {
		/* The kernel's count and the witness's proofs disagree: a failure either way. */
		fprintf(stderr, "syntwin: syncookie cross-check failed: %llu connection(s) proven by "
			"the witness, TcpExt%s grew by %lld (rule: %s)\n",
			(unsigned long long)cookies_proven(st), st->cookie_counter,
			(long long)cookie_growth, cookie_rule(st));
		st->unexplained++;
	}
	if (!st->write_errno && !stop)
		check_expectations(o, cc, st);
	release_space(o->out);
	rc |= write_summary(o, cc, st, true);
	if (rc && !st->write_errno)
		fprintf(stderr, "syntwin-server: cannot finish the results in %s\n", o->out);
	if (st->client_failed)
		fprintf(stderr, "syntwin: %llu connection(s) failed in the client: %llu proven by the "
			"wire (reset by the server), the rest connection-failed\n",
			(unsigned long long)st->client_failed,
			(unsigned long long)st->client_failed_proven);
	print_result(st, o->active > 0);
	capture_client_close(cc);
	if (rc || st->write_errno)
		return 2;
	if (st->expect.failed)
		fprintf(stderr, "syntwin: %zu of %zu expectations failed (summary.json: expectations)\n",
			st->expect.failed, st->expect.n);
	return st->unexplained || st->partial || st->expect.failed ? 1 : 0;
}
/* Every generator is done: the uptime now (/proc/uptime's clock) to --generated-file, where
 * run-guest.sh takes the end of the connections' time from. */
static void note_generated(const struct opts *o)
{
	struct timespec ts;
	FILE *f;

	if (!o->generated_file)
		return;
	clock_gettime(CLOCK_BOOTTIME, &ts);
	f = fopen(o->generated_file, "we");
	if (!f || fprintf(f, "%.2f\n", (double)ts.tv_sec + ts.tv_nsec / 1e9) < 0 || fclose(f))
		log_err("write %s", o->generated_file);
}

/* The epoll tags: listeners 0-3, then the generators' (generators.h). */
static struct generators gens; /* this process's own generators (the socket one's ports: big) */

/* The event loop's state. */
struct loop {
	int ep, lfd[4];
	bool noted;		/* every generator is done: note_generated() done */
	uint64_t rng;
	time_t last, last_progress;
	struct run_ctx ctx;
};

/* The generators' turn in a round; once the last has finished, that time is noted. */
static void generators_turn(struct loop *L)
{
	if (generators_round(&gens, true) && !L->noted) {
		L->last = time(NULL);
		note_generated(L->ctx.o);
		L->noted = true;
	}
}

/* Every child waiting on listener @i: compared, its Fast Open data taken, closed. */
static void accept_all(struct loop *L, int i)
{
	const struct opts *o = L->ctx.o;
	char drain[2048];
	int fd;

	while ((fd = accept4(L->lfd[i], NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		one_socket(fd, i < 2 ? AF_INET : AF_INET6, i % 2 + 1, o, &L->rng,
			   L->ctx.cc, L->ctx.rep, L->ctx.st);
		/* Take what a Fast Open SYN carried: closing with unread data would reset the
		 * connection under the client. */
		while (recv(fd, drain, sizeof(drain), MSG_DONTWAIT) > 0)
			;
		close(fd);
		if (!passive_owed(L->ctx.st, o, false))
			break;
	}
}

/* One epoll round: listeners, the generators' sockets and devices. */
static void poll_round(struct loop *L)
{
	struct epoll_event evs[16];
	int wait = generators_wait_ms(&gens), n;

	if (L->ctx.rep->lines_buffered && wait > FLUSH_MS)
		wait = FLUSH_MS; /* (the buffered records are due on disk) */
	n = epoll_wait(L->ep, evs, 16, wait);

	for (int e = 0; e < n; e++) {
		uint32_t tag = evs[e].data.u32;

		if (tag >= GEN_TAG_CRAFTED)
			generators_event(&gens, tag);
		else
			accept_all(L, (int)tag);
	}
	if (n > 0)
		L->last = time(NULL);
}

/* Should the loop stop now (with what is owed judged at the end)? */
static bool loop_ends(struct loop *L, time_t now)
{
	const struct opts *o = L->ctx.o;
	struct stats *st = L->ctx.st;

	if (L->noted && now - L->last >= SETTLE_S) {
		/* what is still owed is judged from the witness's captures at the end */
		fprintf(stderr, "syntwin-server: generators done, nothing for %d s; %llu "
			"connections, %llu active records\n", SETTLE_S,
			(unsigned long long)st->conns, (unsigned long long)st->active);
		return true;
	}
	if (now - L->last < IDLE_S)
		return false;
	fprintf(stderr, "syntwin-server: nothing for %d s; stopping with %llu of %llu "
		"connections, %llu of %llu active records\n", IDLE_S,
		(unsigned long long)st->conns, (unsigned long long)o->connections,
		(unsigned long long)st->active, (unsigned long long)o->active);
	return true;
}

/* Until nothing is owed, or the run stops: the generator's turn, one epoll round, the
 * records flushed, the witness's ring read, a checkpoint every 3 s. */
static void serve(struct loop *L)
{
	const struct opts *o = L->ctx.o;
	struct stats *st = L->ctx.st;

	while ((passive_owed(st, o, false) || active_owed(st, o)) && !stop) {
		time_t now;

		generators_turn(L);
		poll_round(L);
		now = time(NULL);
		flush_if_due(L->ctx.rep, st);
		/* The witness's ring sends no wakeups (each would be an irq_work, costly under
		 * TCG): it is read at every take, and here once a round, so it never fills. */
		if (capture_drain(L->ctx.cc) < 0 && !st->write_errno)
			fprintf(stderr, "syntwin-server: reading the witness's ring failed\n");
		if (st->write_errno)
			break;
		if (now - L->last_progress >= 3) {
			if (checkpoint(o, L->ctx.cc, L->ctx.rep, st))
				break;
			L->last_progress = now;
		}
		if (loop_ends(L, now))
			break;
	}
}

/*
 * What the series declares decides what the kernel's counters are held to: the syncookie
 * cross-check's counter is the series' TCPSynNotSavedCookie where it declares it, else the
 * stock SyncookiesRecv; a declared counter this kernel lacks fails the run at its end
 * (expect.h), named here at once. The kernel's own list of counters decides nothing.
 */
static void declare_counters(const struct opts *o, struct stats *st)
{
	char what[512];

	provides_describe(&o->decl, what, sizeof(what));
	printf("declared by the series: %s\n", what);
	st->cookie_counter = provides_counter(&o->decl, "TCPSynNotSavedCookie") ?
			    "TCPSynNotSavedCookie" : "SyncookiesRecv";
	for (size_t i = 0; i < o->decl.ncounters; i++) {
		st->counter_present[i] = tcpext_counter(o->decl.counter[i]) >= 0;
		if (!st->counter_present[i])
			fprintf(stderr, "syntwin: the series declares TcpExt counter %s, and this kernel "
				"has no counter of that name (the run fails)\n", o->decl.counter[i]);
	}
	st->synack_saved_base = tcpext_counter("TCPSynAckSaved");
	if (o->sockets)
		cookie_at = (uint64_t)o->gen.cookie_at, cookie_tail = o->gen.cookie_tail;
}

/* The run's start: the witness, the results, the listeners, the start-of-run counters and a
 * first summary marked partial. Returns 0, or -1 (printed). */
static int setup(struct loop *L, struct opts *o, struct capture_client *cc, struct report *rep,
		 struct stats *st)
{
	run_tree = o->tree;
	if (enter_netns("server") || rx_env_init() || capture_client_open(cc) ||
	    !(mem = saved_syn_mem_open_pinned()) || report_open(rep, o->out))
		return -1;
	rep->shard = o->shard;
	if (reserve_space(o->out)) {
		fprintf(stderr, "syntwin-server: cannot write %s/%s: %s\n", o->out, RESERVE_NAME,
			strerror(errno));
		return -1;
	}
	rep->hex_all = o->hex_all;
	synack_retries = (unsigned int)read_sysctl_uint("/proc/sys/net/ipv4/tcp_synack_retries");
	declare_counters(o, st);
	st->cookies_base = tcpext_counter(st->cookie_counter);
	for (int i = 0; i < 4; i++)
		st->tcpext_base[i] = tcpext_counter(tcpext_names[i]);
	L->ep = epoll_create1(EPOLL_CLOEXEC);
	if (L->ep < 0 || open_listeners(L->ep, L->lfd) || labels_init(&labels, 1u << 16) ||
	    labels_init(&missing_flows, 1u << 12) || labels_init(&failed_labels, 1u << 8))
		return -1;
	wire_faults = o->netem[0] || o->netem_back[0];
	/* Start-of-run memory (soak runs compare it with the end), then a summary marked partial at
	 * once: whatever ends this process from here on leaves one on disk. */
	st->evictions = -1;
	st->unclaimed_bindings = -1;
	st->slab_start = slab_bytes("");
	st->syn_slab_start = saved_syn_slab();
	st->slab_end = st->syn_slab_end = -1;
	st->partial = true;
	return write_summary(o, cc, st, false);
}

/*
 * The driver's plan (driver.h) turned into this server's options: what it waits for, the
 * planned handshakes, the crafted phase and the socket generator. Returns 0, or -1 (printed).
 */
static int driver_configure(struct opts *o, struct plan *p)
{
	static char replay_file[4200];
	struct driver_args *a = &o->run;
	struct plan_input in;
	char err[256];

	a->seed = o->seed;
	a->out = o->out;
	/* what is tested comes from the series' declaration, never from the kernel */
	a->active = o->decl.synack_save;
	a->declared = &o->decl;
	a->shard = o->shard[0] ? o->shard : NULL;
	a->tree = o->tree_file;
	if (driver_plan(a, &in, p))
		return -1;
	o->mix = a->mix;
	o->connections = p->expect;
	o->active = p->expect_active;
	o->held_back = p->held_back;
	o->abandoned = p->abandoned;
	o->dup_synack = p->dup_synack;
	o->crafted = (struct crafted_opts){ .n = { p->crafted, p->fuzz, p->tap, p->replay },
					    .seed = { o->seed, p->seed_fuzz, p->seed_tap, o->seed },
					    .rerun = a->rerun, .shard = a->shard, .tree = &o->tree };
	o->planned_seed = p->seed_planned;
	if (!strcmp(a->mix, "replay")) {
		snprintf(replay_file, sizeof(replay_file), "%s/replay.pcap", a->out);
		o->crafted.replay = replay_file;
		if (!p->replay)
			printf("replay: no SYNs in this file, nothing to compare\n");
	}
	o->sockets = p->sockets > 0;
	if (!o->sockets)
		return sockets_check(o);
	o->gen.n = p->sockets;
	o->gen.seed = o->seed;
	o->gen.cookie_tail = p->cookie_tail;
	o->gen.cookie_at = (int64_t)p->cookie_at;
	o->gen.parallel = a->parallel;
	o->gen.rerun = a->rerun;
	o->gen.shard = a->shard;
	if (sock_gen_opt(&o->gen, "mix", p->client_mix, err, sizeof(err)) != 1) {
		fprintf(stderr, "syntwin-server: the plan's client mix '%s'\n", p->client_mix);
		return -1;
	}
	printf("client: %llu connections, %llu of them from number %llu on with syncookies "
	       "forced%s\n", (unsigned long long)p->sockets, (unsigned long long)p->cookie_tail,
	       (unsigned long long)p->cookie_at, o->active ? "; active direction checked" : "");
	return sockets_check(o);
}

int main(int argc, char **argv)
{
	struct capture_client cc;
	struct report rep;
	struct stats st = { 0 };
	struct opts o;
	struct loop L = { 0 };
	char err[2048];
	uint64_t gen_errors = 0;
	struct plan plan;
	struct planned planned;
	int rc;

	if (parse(argc, argv, &o) || driver_configure(&o, &plan))
		return 2;
	run_plan = &plan;
	if (!o.test_fault != !o.test_fault_after) {
		fprintf(stderr, "syntwin-server: --test-fault and --test-fault-after go together\n");
		return 2;
	}
	fault_opts = &o;
	if (p0f_db_load(&p0f_db, o.p0f_db, err, sizeof(err))) {
		fprintf(stderr, "syntwin-server: %s\n", err);
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (setup(&L, &o, &cc, &rep, &st))
		return 2;
	L.ctx = (struct run_ctx){ &o, &cc, &rep, &st };
	planned = (struct planned){ o.held_back, o.abandoned, o.dup_synack };
	peer_drop_probe = witness_dropped_every_copy; /* (the tun peer's generators ask it) */
	peer_drop_ctx = &cc;
	generators_init(&gens, &(struct gen_opts){ .planned = &planned,
						   .planned_seed = o.planned_seed,
						   .crafted = &o.crafted,
						   .sockets = o.sockets ? &o.gen : NULL },
			to_server, &L.ctx, L.ep);
	L.rng = o.seed;
	L.last = L.last_progress = time(NULL);
	serve(&L);
	/* (everything owed came, or the run stopped: a generator still going is closed) */
	gen_errors += generators_close(&gens);
	rc = finish_run(&o, &cc, &rep, &st);
	if (gen_errors && rc == 0) {
		fprintf(stderr, "syntwin: a traffic generator failed (named above)\n");
		rc = 1;
	}
	return rc;
}
