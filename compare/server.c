// SPDX-License-Identifier: GPL-2.0
/*
 * syntwin-server (guest, server netns): the run's one process. It plans the run (options.h,
 * driver.h), makes every connection in its own event loop (generators.h: the planned
 * handshakes, the crafted phase or a replay, the socket-knob connections), and takes each one
 * through the stages of run.h: gathered, judged, recorded. Listeners with TCP_SAVE_SYN 1 and 2
 * for IPv4 and IPv6; active-direction records (the SYN-ACK headers the client's kernel saved)
 * are compared the same way.
 * Writes connections.jsonl, mismatches.pcap(ng), syns.pcap, plan.json and summary.json.
 * Exit: 0 all identical or explained and complete; 1 unexplained differences or partial; 2 usage
 * or results that cannot be written.
 */
#define _GNU_SOURCE
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
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "events.h"
#include "generators.h"
#include "mono_time.h"
#include "net_helpers.h"
#include "netstat.h"
#include "planned.h"
#include "run.h"
#include "run_verdicts.h"
#include "slabinfo.h"
#include "test_hooks.h"
#include "topology.h"
#include "witness_probe.h"

static volatile sig_atomic_t stop;
static void on_signal(int sig) { stop = sig; }
/* Once every generator (generators.h) has finished, what is still owed either comes within
 * SETTLE_S of quiet, or never (a connection whose child never came: judged at the end). */
#define SETTLE_S 5
/* With nothing at all for IDLE_S, the run stops (what is owed is judged at the end). */
#define IDLE_S 30

/*
 * The receiver's facts for the IPv4 option model (classify.h): the server netns's own IPv4
 * addresses and their broadcast addresses, and the run's time window: from the server's start
 * to the moment of each comparison (gather.c), 1 s of margin each side (the guest has one
 * clock; the margin covers only the order of the calls, not any drift).
 */
static int rx_env_init(struct run *R)
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
		if (R->env.n_addrs < ENV_MAX_ADDRS)
			R->env_addrs[R->env.n_addrs++] = a->sin_addr.s_addr;
		if ((i->ifa_flags & IFF_BROADCAST) && b && b->sin_family == AF_INET &&
		    R->env.n_addrs < ENV_MAX_ADDRS)
			R->env_addrs[R->env.n_addrs++] = b->sin_addr.s_addr;
	}
	freeifaddrs(ifs);
	R->env.lo_ms = realtime_ms() - 1000;
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

/* Captures still waiting for a socket (counted in checkpoint summaries). */
static int count_waiting(const struct capture_key *k, const struct capture_rec *r, void *arg)
{
	(void)k;
	(void)r;
	(*(uint64_t *)arg)++;
	return 0;
}

/* Bytes of the caches a saved SYN lives in (kmalloc-96, kmalloc-128; see bench/memory.sh). */
static long long saved_syn_slab(void)
{
	long long a = slab_bytes("kmalloc-96"), b = slab_bytes("kmalloc-128");

	return a < 0 || b < 0 ? -1 : a + b;
}

/* What the summary says of the witness and the kernel's counters now (summary.h). */
static void summary_now_of(struct run *R, struct summary_now *now)
{
	*now = (struct summary_now){ .cnt_names = capture_counter_names,
				     .map_bytes = capture_map_bytes(&R->cc),
				     .cookie_counter = tcpext_counter(R->st.cookie_counter),
				     .features = &R->features,
				     .taken_by_program = R->cc.take.taken,
				     .take_fallbacks = R->cc.take.fallbacks };
	capture_counters(&R->cc, now->cnt);
	capture_each_unbound(&R->cc, count_waiting, &now->waiting);
	for (__u32 slot = 0; slot < 2; slot++)
		if (capture_error(&R->cc, slot, &now->err[slot]))
			now->err[slot].line = 0;
	for (int i = 0; i < TCPEXT_N; i++)
		now->tcpext[i] = tcpext_counter(tcpext_names[i]);
}

/* summary.json now; @final at the run's end. Returns 0, or -1 with errno. */
static int run_summary(struct run *R, bool final)
{
	const struct opts *o = &R->o;
	struct run_meta m = { .connections = o->connections, .active = o->active,
			      .held_back = o->held_back, .abandoned = o->abandoned,
			      .dup_synack = o->dup_synack, .own = R->plan ? R->plan->own : NULL,
			      .decl = &o->decl, .tree = &o->tree,
			      .series_hash = o->series_hash, .mix = o->mix, .rerun_of = o->rerun_of,
			      .shard = o->shard, .netem = o->netem, .netem_back = o->netem_back,
			      .seed = o->seed };
	struct summary_now now;

	summary_now_of(R, &now);
	return summary_write(o->out, &m, &R->st, &now, final);
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

/* Are passive connections still owed? (@judged: at the end, every capture judged) */
static bool passive_owed(const struct run *R, bool judged)
{
	return passive_paid(R->st.conns, R->st.duplicate_children, R->st.reason[R_COOKIE_NO_CHILD],
			    judged) < R->o.connections;
}

/* Are active records still owed? None is for a connection that failed before its SYN-ACK. */
static bool active_owed(const struct run *R)
{
	return R->st.active + R->st.active_unrecorded < R->o.active;
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

/* Every listener: TCP_SAVE_SYN 1 and 2, IPv4 and IPv6, non-blocking, on @ep. Returns 0 or -1. */
static int open_listeners(int ep, int lfd[4])
{
	for (int i = 0; i < 4; i++) {
		int family = i < 2 ? AF_INET : AF_INET6, mode = i % 2 + 1;
		struct epoll_event ev = { .events = EPOLLIN, .data.u32 = (uint32_t)i };

		lfd[i] = start_listener(family, family == AF_INET ? "0.0.0.0" : "::",
					TOPO_PORT_BASE + mode - 1, mode, 4096);
		/* Non-blocking, so the accept loop ends with EAGAIN instead of waiting. */
		if (lfd[i] < 0 || fcntl(lfd[i], F_SETFL, O_NONBLOCK) ||
		    listener_knobs(lfd[i], family) || epoll_ctl(ep, EPOLL_CTL_ADD, lfd[i], &ev))
			return -1;
	}
	return 0;
}

/* Every 3 s: the records so far on disk, and a partial summary that counts them, so a killed
 * server still leaves both; then a progress line. Returns -1 if the results cannot be written. */
static int checkpoint(struct run *R)
{
	struct run_stats *st = &R->st;
	int bad = report_flush(&R->out.rep);

	st->records_written = R->out.rep.lines_written;
	if (bad || run_summary(R, false)) {
		R->out.write_errno = errno ? errno : EIO;
		return -1;
	}
	printf("  ... %llu/%llu connections compared (active %llu/%llu), %llu unexplained\n",
	       (unsigned long long)st->conns, (unsigned long long)R->o.connections,
	       (unsigned long long)st->active, (unsigned long long)R->o.active,
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

/* What the run saw, for its expectations (expect.h). */
static void gather_facts(struct run *R, struct expect_facts *f)
{
	const struct opts *o = &R->o;
	const struct run_stats *st = &R->st;
	__u64 cnt[CNT_MAX] = { 0 };
	uint64_t waiting = 0;

	/* unread, every count is as far from its want as it can be: each expectation on one
	 * fails, none passes on a zero never read */
	if (capture_counters(&R->cc, cnt))
		memset(cnt, 0xff, sizeof(cnt));
	capture_each_unbound(&R->cc, count_waiting, &waiting);
	*f = (struct expect_facts){
		.plan = R->plan, .decl = &o->decl, .wire_faults = R->wire_faults,
		.whole_run = !o->run.rerun && !o->shard[0] && strcmp(o->mix, "replay"),
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
		.gen_records = st->gen, .gen_proven = st->proven,
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
		.mem_ctx_overflow = st->mem.ctx_overflow, .mem_outside_ctx = st->mem.outside_ctx,
		.mem_owner_read = st->mem.cache_progs == 0,
		.mem_owner_check = st->mem.owner_check,
		.mem_double_unrecorded = st->mem.double_unrecorded,
		.mem_live = st->mem.live,
		.mem_double_elsewhere = st->mem_double_unconfirmed, .mem_missed = st->mem.missed - st->mem.ctx_missed,
		.active_allocs = st->active_allocs,
		.active_ts = st->active_ts, .active_answered = st->active_answered,
		.bound = cnt[CNT_BOUND], .bind_miss = cnt[CNT_BIND_MISS],
		.active_bound = cnt[CNT_ACTIVE_BOUND], .active_bind_miss = cnt[CNT_ACTIVE_BIND_MISS],
		.ring_drops = cnt[CNT_RING_DROPS], .records_lost = st->lost,
		.copy_shared_clones = cnt[CNT_COPY_SHARED_CLONE],
		.unbound = st->verdict[V_UNBOUND], .waiting = waiting,
		.unclaimed = st->unclaimed_bindings,
	};
	memcpy(f->counter_present, st->counter_present, sizeof(f->counter_present));
}

/* The run's expectations, each failed one named (the first is what a matrix cell shows). */
static void check_expectations(struct run *R)
{
	struct run_stats *st = &R->st;
	struct expect_facts f;
	char line[256];

	gather_facts(R, &f);
	expect_all(&f, &st->expect);
	for (size_t i = 0; i < st->expect.n; i++) {
		if (st->expect.e[i].ok)
			continue;
		expect_line(&st->expect.e[i], line, sizeof(line));
		fprintf(stderr, "syntwin: expectation failed: %s\n", line);
	}
}

/* Every capture no socket took judged (or, if the results cannot be written, counted), then
 * the memory follower's findings. */
static void judge_the_rest(struct run *R)
{
	uint64_t left = 0;

	mem_collect(R);
	if (!R->out.write_errno) {
		/* copies parked while their entry was taken, where bpf()'s take would have left
		 * them (a few the take could not move) */
		capture_unpark(&R->cc);
		capture_each_unbound(&R->cc, judge_left, R);
		judge_leaks(R);
		return;
	}
	/* What is left belongs to connections this run never took (the generators went on), so
	 * it is counted, not judged. */
	capture_each_unbound(&R->cc, count_waiting, &left);
	fprintf(stderr, "syntwin-server: not judged (the run stopped): %llu capture(s) left, "
		"%lld saved cop(ies) still allocated\n", (unsigned long long)left,
		(long long)R->st.mem.live);
	mem_forget(R);
}

/* The syncookie cross-check (judge_cookie_counter()): a disagreement is a failure either way. */
static void cookie_cross_check(struct run *R)
{
	struct run_stats *st = &R->st;
	int64_t now = tcpext_counter(st->cookie_counter);
	struct cookie_counts c = { .counter = st->cookie_counter,
				   .proven = stats_cookies_proven(st), .lost = st->lost,
				   .growth = now < 0 || st->cookies_base < 0 ? -1 :
					     now - st->cookies_base };

	if (judge_cookie_counter(&c))
		return;
	fprintf(stderr, "syntwin: syncookie cross-check failed: %llu connection(s) proven by the "
		"witness, TcpExt%s grew by %lld (rule: %s)\n", (unsigned long long)c.proven,
		st->cookie_counter, (long long)c.growth, cookie_counter_rule(&c));
	st->unexplained++;
}

/* What the run's end says: printed. */
static void say_the_end(const struct run *R)
{
	const struct run_stats *st = &R->st;

	if (st->evictions > 0 || st->lost)
		fprintf(stderr, "syntwin-server: the witness (a flow map of %u entries, a ring of %u "
			"bytes) evicted %lld record(s); %llu connection(s) have no capture: results are "
			"partial (raise --entries)\n", R->cc.capacity,
			capture_ring_bytes(R->cc.capacity), st->evictions,
			(unsigned long long)st->lost);
	if (stop)
		fprintf(stderr, "syntwin-server: stopped by signal %d; results kept, marked partial\n",
			(int)stop);
	if (R->out.write_errno)
		fprintf(stderr, "syntwin-server: cannot write results in %s: %s; stopped with %llu "
			"of %llu connections (marked partial if the summary could be written)\n",
			R->o.out, strerror(R->out.write_errno), (unsigned long long)st->conns,
			(unsigned long long)R->o.connections);
}

/*
 * The end of a run, however it ended: every capture no socket took judged, evictions and
 * memory, the syncookie cross-check, the records closed, the final summary and the result
 * line. Returns the exit status.
 */
static int finish_run(struct run *R)
{
	struct run_stats *st = &R->st;
	struct run_end e;
	int rc;

	judge_the_rest(R);
	points_end(&R->points);
	st->evictions = capture_evictions(&R->cc);
	st->unclaimed_bindings = capture_forget_bound(&R->cc);
	st->slab_end = slab_bytes("");
	st->syn_slab_end = saved_syn_slab();
	e = (struct run_end){ .passive_paid = passive_paid(st->conns, st->duplicate_children,
							  st->reason[R_COOKIE_NO_CHILD], true),
			      .passive_planned = R->o.connections, .active = st->active,
			      .active_unrecorded = st->active_unrecorded,
			      .active_planned = R->o.active, .evictions = st->evictions,
			      .lost = st->lost, .write_failed = R->out.write_errno != 0,
			      .keys_lost = st->keys_lost,
			      .points_lost = points_lost(&R->points) };
	st->partial = judge_run_partial(&e);
	say_the_end(R);
	rc = report_close(&R->out.rep); /* first: the summary counts the records it flushed */
	st->records_written = R->out.rep.lines_written;
	cookie_cross_check(R);
	if (!R->out.write_errno && !stop)
		check_expectations(R);
	release_space(R->o.out);
	rc |= run_summary(R, true);
	if (rc && !R->out.write_errno)
		fprintf(stderr, "syntwin-server: cannot finish the results in %s\n", R->o.out);
	if (st->client_failed)
		fprintf(stderr, "syntwin: %llu connection(s) failed in the client: %llu proven by the "
			"wire (reset by the server), the rest connection-failed\n",
			(unsigned long long)st->client_failed,
			(unsigned long long)st->client_failed_proven);
	summary_print_result(st, R->o.active > 0);
	if (points_close(&R->points)) {
		fprintf(stderr, "syntwin-server: the wire's capture files could not be written\n");
		rc = 2;
	}
	capture_client_close(&R->cc);
	if (rc)
		return 2;
	e.unexplained = st->unexplained;
	e.expectations_failed = st->expect.failed;
	if (st->expect.failed)
		fprintf(stderr, "syntwin: %zu of %zu expectations failed (summary.json: expectations)\n",
			st->expect.failed, st->expect.n);
	return judge_run_status(&e, st->partial);
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

/* The event loop's state. */
struct loop {
	struct run *R;
	struct generators gens;	/* the run's generators (the socket one's ports: big) */
	int ep, lfd[4];
	bool noted;		/* every generator is done: note_generated() done */
	time_t last, last_progress;
};

/* The generators' turn in a round; once the last has finished, that time is noted. */
static void generators_turn(struct loop *L)
{
	if (generators_round(&L->gens) && !L->noted) {
		L->last = time(NULL);
		note_generated(&L->R->o);
		L->noted = true;
	}
}

/* Every child waiting on listener @i: compared, its Fast Open data taken, closed. */
static void accept_all(struct loop *L, int i)
{
	char drain[2048];
	int fd;

	while ((fd = accept4(L->lfd[i], NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		passive_socket(L->R, fd, i < 2 ? AF_INET : AF_INET6, i % 2 + 1);
		/* Take what a Fast Open SYN carried: closing with unread data would reset the
		 * connection under the client. */
		while (recv(fd, drain, sizeof(drain), MSG_DONTWAIT) > 0)
			;
		close(fd);
		if (!passive_owed(L->R, false))
			break;
	}
}

/* One epoll round: listeners, the generators' sockets and devices. */
static void poll_round(struct loop *L)
{
	struct epoll_event evs[16];
	int n = epoll_wait(L->ep, evs, 16, writer_wait_ms(&L->R->out, generators_wait_ms(&L->gens)));

	for (int e = 0; e < n; e++) {
		uint32_t tag = evs[e].data.u32;

		if (tag >= GEN_TAG_FIRST)
			generators_event(&L->gens, tag);
		else
			accept_all(L, (int)tag);
	}
	if (n > 0)
		L->last = time(NULL);
}

/* Should the loop stop now (with what is owed judged at the end)? */
static bool loop_ends(struct loop *L, time_t now)
{
	const struct run_stats *st = &L->R->st;

	if (L->noted && now - L->last >= SETTLE_S) {
		/* what is still owed is judged from the witness's captures at the end */
		fprintf(stderr, "syntwin-server: generators done, nothing for %d s; %llu "
			"connections, %llu active records\n", SETTLE_S,
			(unsigned long long)st->conns, (unsigned long long)st->active);
		return true;
	}
	if ((uint64_t)(now - L->last) < IDLE_S)
		return false;
	fprintf(stderr, "syntwin-server: nothing for %d s; stopping with %llu of %llu "
		"connections, %llu of %llu active records\n", IDLE_S,
		(unsigned long long)st->conns, (unsigned long long)L->R->o.connections,
		(unsigned long long)st->active, (unsigned long long)L->R->o.active);
	return true;
}

/* Until nothing is owed, or the run stops: the generators' turn, one epoll round, the
 * records flushed, the witness's ring read, a checkpoint every 3 s. */
static void serve(struct loop *L)
{
	struct run *R = L->R;

	while ((passive_owed(R, false) || active_owed(R)) && !stop) {
		time_t now;

		generators_turn(L);
		poll_round(L);
		now = time(NULL);
		writer_flush_if_due(&R->out);
		/* The witness's ring sends no wakeups (each would be an irq_work, costly under
		 * TCG): it is read at every take, and here once a round, so it never fills. */
		if (capture_drain(&R->cc) < 0 && !R->out.write_errno)
			fprintf(stderr, "syntwin-server: reading the witness's ring failed\n");
		if (R->out.write_errno)
			break;
		if (now - L->last_progress >= 3) {
			if (checkpoint(R))
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
static void declare_counters(struct run *R)
{
	const struct opts *o = &R->o;
	struct run_stats *st = &R->st;
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
		R->cookie_at = (uint64_t)o->gen.cookie_at, R->cookie_tail = o->gen.cookie_tail;
}

/* The run's start: the witness, the results, the listeners, the start-of-run counters and a
 * first summary marked partial. Returns 0, or -1 (printed). */
static int setup(struct loop *L, struct run *R)
{
	struct opts *o = &R->o;
	struct run_stats *st = &R->st;
	struct report *rep = &R->out.rep;
	int with_reason;

	R->env.addrs = R->env_addrs;
	if (generators_check(gen_phases)) /* the build left a generator of its own out: a setup error */
		return -1;
	if (enter_netns("server") || rx_env_init(R) || capture_client_open(&R->cc) ||
	    !(R->mem = saved_syn_mem_open_pinned()) || report_open(rep, o->out))
		return -1;
	/* what the witness has of the kernel; drop reasons as the loader attached them */
	if (witness_features_here(&R->features))
		return -1;
	with_reason = capture_drops_with_reason();
	if (with_reason >= 0)
		R->features.have[WF_DROP_REASON] = with_reason;
	rep->shard = o->shard;
	if (points_open(&R->points, o->points, o->point_devs ? o->point_devs : "", o->out,
			&st->points))
		return -1;
	R->points.test_point = o->test_point;
	R->points.test_every = o->test_point_every;
	if (reserve_space(o->out)) {
		fprintf(stderr, "syntwin-server: cannot write %s/%s: %s\n", o->out, RESERVE_NAME,
			strerror(errno));
		return -1;
	}
	rep->hex_all = o->hex_all;
	R->synack_retries = (unsigned int)read_sysctl_uint("/proc/sys/net/ipv4/tcp_synack_retries");
	declare_counters(R);
	st->cookies_base = tcpext_counter(st->cookie_counter);
	for (int i = 0; i < TCPEXT_N; i++)
		st->tcpext_base[i] = tcpext_counter(tcpext_names[i]);
	L->ep = epoll_create1(EPOLL_CLOEXEC);
	if (L->ep < 0 || open_listeners(L->ep, L->lfd) || labels_init(&R->labels, 1u << 16) ||
	    labels_init(&R->missing_flows, 1u << 12) || labels_init(&R->failed_labels, 1u << 8))
		return -1;
	R->wire_faults = o->netem[0] || o->netem_back[0];
	/* Start-of-run memory (soak runs compare it with the end), then a summary marked partial at
	 * once: whatever ends this process from here on leaves one on disk. */
	st->evictions = -1;
	st->unclaimed_bindings = -1;
	st->slab_start = slab_bytes("");
	st->syn_slab_start = saved_syn_slab();
	st->slab_end = st->syn_slab_end = -1;
	st->partial = true;
	return run_summary(R, false);
}

/* The generators the plan asks for, in this loop, their messages to generator_message(). */
static void start_generators(struct loop *L, struct planned *planned)
{
	struct run *R = L->R;

	*planned = (struct planned){ R->o.held_back, R->o.abandoned, R->o.dup_synack };
	peer_drop_probe = witness_dropped_every_copy; /* (the tun peer's generators ask it) */
	peer_drop_ctx = &R->cc;
	generators_init(&L->gens, &(struct gen_opts){ .plan = R->plan, .planned = planned,
						      .planned_seed = R->o.planned_seed,
						      .crafted = &R->o.crafted,
						      .sockets = R->o.sockets ? &R->o.gen : NULL },
			generator_message, R, L->ep);
}

int main(int argc, char **argv)
{
	static struct run run;
	static struct loop L;
	struct run *R = &run;
	char err[2048];
	uint64_t gen_errors;
	struct plan plan;
	struct planned planned;
	int rc;

	if (options_parse(argc, argv, &R->o) || options_plan(&R->o, &plan))
		return 2;
	R->plan = &plan;
	test_hooks_init(&R->o, &R->out);
	if (p0f_db_load(&R->out.p0f, R->o.p0f_db, err, sizeof(err))) {
		fprintf(stderr, "syntwin-server: %s\n", err);
		return 2;
	}
	if (stats_init(&R->st)) {
		fprintf(stderr, "syntwin-server: out of memory\n");
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	L.R = R;
	if (setup(&L, R))
		return 2;
	start_generators(&L, &planned);
	R->rng = R->o.seed;
	L.last = L.last_progress = time(NULL);
	serve(&L);
	/* (everything owed came, or the run stopped: a generator still going is closed) */
	gen_errors = generators_close(&L.gens);
	rc = finish_run(R);
	if (gen_errors && rc == 0) {
		fprintf(stderr, "syntwin: a traffic generator failed (named above)\n");
		rc = 1;
	}
	return rc;
}
