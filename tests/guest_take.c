// SPDX-License-Identifier: GPL-2.0
/*
 * Guest test of the consumer's take of a flow entry (take_flow, loader/flow_take.c), with the
 * witness attached: each take by the program makes no allocation (count_allocs: this thread's
 * sleeping kmallocs and the kfrees of what they returned), where bpf()'s lookup-and-delete
 * makes two of each, and returns the flow entry as it was, leaving none. The claims an entry's
 * take_state carries (struct take_slot in capture.h), each set here by hand as the other side
 * would set it: a take that finds a later copy's replacement under way waits for it to end; a
 * later copy of the SYN that finds its entry taken is parked in syn_late (the entry left as it
 * was, the copy's fate noted there), and moved into syn_by_flow when the consumer looks at what
 * is left; one that finds another replacement under way that does not end fails by name
 * (-EBUSY); one sent when nothing claims the entry replaces it. Every entry accounted for
 * (capture_evictions() 0).
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "capture_client.h"
#include "check.h"
#include "count_allocs.skel.h"
#include "net_helpers.h"
#include "topology.h"

static struct capture_client cc;
static struct count_allocs_bpf *counter;

static __u64 conn_peeked(int lfd, int fds[2], struct capture_key *k, struct capture_rec *entry);

/* capture_each_unbound(): counts the parked captures it visits */
static int count_parked(const struct capture_key *k __attribute__((unused)),
			const struct capture_rec *r, void *arg)
{
	*(int *)arg += r->take_state == CAPTURE_PARKED_REC;
	return 0;
}

/* capture_each_unbound(): takes what it visits from the map it is in, as the comparator does */
static int take_left(const struct capture_key *k, const struct capture_rec *r,
		     void *arg __attribute__((unused)))
{
	struct capture_rec gone;

	CHECK(!capture_take_left(&cc, k, r, &gone), "a capture left not taken");
	return 0;
}

/* One connection, accepted: its socket's cookie, and both sockets into @fds. */
static __u64 one_conn(int lfd, int fds[2])
{
	__u64 cookie = 0;
	socklen_t clen = sizeof(cookie);

	fds[0] = connect_to(AF_INET, TOPO_SERVER4, socket_port(lfd));
	fds[1] = fds[0] < 0 ? -1 : accept(lfd, NULL, NULL);
	if (fds[1] < 0 || getsockopt(fds[1], SOL_SOCKET, SO_COOKIE, &cookie, &clen))
		return 0;
	return cookie;
}

/* The take of @cookie's capture with this thread's allocations counted into @kmallocs and
 * @kfrees. Returns capture_take_bound()'s result. */
static int counted_take(__u64 cookie, struct capture_rec *rec, __u64 *kmallocs, __u64 *kfrees)
{
	int rc;

	counter->bss->kmallocs = counter->bss->kfrees = 0;
	counter->bss->tid = (__u32)gettid();
	rc = capture_take_bound(&cc, cookie, rec, NULL);
	counter->bss->tid = 0;
	*kmallocs = counter->bss->kmallocs;
	*kfrees = counter->bss->kfrees;
	return rc;
}

/* @n connections taken by the program, then @n by bpf(): what each allocated. */
static void takes_counted(int lfd, int n)
{
	int saved_fd = cc.take.prog_fd, fds[2];
	__u64 taken = cc.taken_flow, km, kf;
	struct capture_rec rec, left, entry;
	struct capture_key k;

	for (int i = 0; i < 2 * n; i++) {
		__u64 cookie = conn_peeked(lfd, fds, &k, &entry);
		bool by_map = i >= n;

		km = kf = ~0ull;
		rec.cookie = 0;

		cc.take.prog_fd = by_map ? -1 : saved_fd;
		CHECK(cookie && counted_take(cookie, &rec, &km, &kf) == 0,
		      "connection %d: no capture taken", i);
		CHECK(rec.cookie == cookie && !memcmp(&rec, &entry, sizeof(rec)),
		      "connection %d: the record is not its flow entry", i);
		CHECK(capture_peek_flow(&cc, &k, &left) == -ENOENT,
		      "connection %d: its flow entry is still there", i);
		/* bpf(): vmemdup_user() of the key, kvmalloc() of the value, both freed */
		CHECK(km == (by_map ? 2 : 0) && kf == km,
		      "take by %s: %llu kmalloc, %llu kfree of them", by_map ? "bpf()" : "take_flow",
		      (unsigned long long)km, (unsigned long long)kf);
		close(fds[0]);
		close(fds[1]);
	}
	cc.take.prog_fd = saved_fd;
	CHECK_EQ_INT(cc.taken_flow - taken, 2 * n);
	printf("%d takes by take_flow with no allocation, %d by bpf() with two\n", n, n);
}

/* Flow @k's entry as it is, its take_state set to @state (as keep_copy() or take_flow claims
 * it: the entry is written anew with it). */
static void set_state(const struct capture_key *k, __u64 state)
{
	struct capture_rec e;

	CHECK(!capture_peek_flow(&cc, k, &e), "no entry to claim");
	e.take_state = state;
	CHECK(!bpf_map_update_elem(cc.by_flow_fd, k, &e, BPF_EXIST), "the entry not claimed: %s",
	      strerror(errno));
}

static const struct capture_key *replacing_key;

/* A replacement under way for 100 ms, then ended (its entry free again) */
static void *end_replacement(void *arg __attribute__((unused)))
{
	nanosleep(&(struct timespec){ .tv_nsec = 100000000 }, NULL);
	set_state(replacing_key, 0);
	return NULL;
}

static uint64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* A connection, its flow key and its flow entry as it is before the take. Returns its
 * socket's cookie, 0 if any of it is missing. */
static __u64 conn_peeked(int lfd, int fds[2], struct capture_key *k, struct capture_rec *entry)
{
	struct capture_rec bound;
	__u64 cookie = one_conn(lfd, fds);

	if (!cookie || capture_peek_bound(&cc, cookie, &bound) || capture_key_of(&bound, k) ||
	    capture_peek_flow(&cc, k, entry))
		return 0;
	/* its incarnation, which no take hands out (struct take_slot) */
	CHECK(entry->take_state >> TAKE_INCARNATION_SHIFT && !(entry->take_state & TAKE_CLAIMS),
	      "the entry has no incarnation, or a claim");
	entry->take_state = 0;
	return cookie;
}

/* A take that begins while a later copy replaces the entry (TAKE_REPLACING for 100 ms): it
 * waits for the replacement to end, then takes the entry. */
static void take_waits(int lfd)
{
	struct capture_rec entry, rec;
	struct capture_key k;
	uint64_t t0, ms;
	__u64 cookie;
	pthread_t th;
	int fds[2];

	cookie = conn_peeked(lfd, fds, &k, &entry);
	if (!cookie) {
		CHECK(0, "take_waits: no capture");
		return;
	}
	set_state(&k, TAKE_REPLACING);
	replacing_key = &k;
	pthread_create(&th, NULL, end_replacement, NULL);
	t0 = now_ms();
	CHECK(capture_take_bound(&cc, cookie, &rec, NULL) == 0, "take_waits: taken");
	ms = now_ms() - t0;
	pthread_join(th, NULL);
	CHECK(ms >= 90, "the take returned after %llu ms, before the replacement ended (100 ms)",
	      (unsigned long long)ms);
	CHECK(!memcmp(&rec, &entry, sizeof(rec)), "take_waits: the record is not the entry");
	CHECK(capture_peek_flow(&cc, &k, &rec) == -ENOENT, "take_waits: the entry is still there");
	close(fds[0]);
	close(fds[1]);
	printf("a take waited %llu ms for a replacement under way\n", (unsigned long long)ms);
}

/* The SYN of @entry sent again from the client's side (its frame as the witness captured it),
 * and the work on it done: tc's (counter @want moved) and the kernel's, which drops a SYN for an
 * established socket (after a challenge ACK) and the witness notes it: on the flow, or, for a
 * copy tc could not keep (insert_fail: no record of its sk_buff), as no copy's
 * (drop_not_a_copy). */
static void send_again(const struct capture_rec *entry, enum capture_counter want)
{
	enum capture_counter dropped = want == CNT_INSERT_FAIL ? CNT_DROP_NOT_COPY :
								 CNT_SYN_DROPPED;
	struct sockaddr_ll to = { .sll_family = AF_PACKET, .sll_ifindex = TOPO_IFINDEX_C0,
				  .sll_halen = ETH_ALEN };
	__u64 before[CNT_MAX], after[CNT_MAX];
	int fd = socket(AF_PACKET, SOCK_RAW, 0);

	memcpy(to.sll_addr, entry->data, ETH_ALEN);
	capture_counters(&cc, before);
	if (fd < 0 || sendto(fd, entry->data, entry->cap_len, 0, (struct sockaddr *)&to,
			     sizeof(to)) != entry->cap_len)
		log_err("send the SYN again");
	if (fd >= 0)
		close(fd);
	for (int i = 0; i < 200; i++) {
		capture_counters(&cc, after);
		if (after[want] > before[want] && after[dropped] > before[dropped])
			return;
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	}
	CHECK(0, "the SYN sent again was not seen by tc (%s) and dropped (%s)",
	      capture_counter_names[want], capture_counter_names[dropped]);
}

/* counters @b less @a, at @i */
#define MOVED(a, b, i) ((long long)((b)[i] - (a)[i]))

/*
 * A later copy of a SYN whose entry the consumer has claimed (TAKE_TAKEN, between take_flow's
 * claim and its delete): parked in syn_late as a key of its own (as after bpf()'s take), the
 * entry untouched, the copy's drop noted on it there; moved into syn_by_flow when the consumer
 * looks at what is left.
 */
static void parked_copy(int lfd)
{
	struct capture_rec entry, now, late;
	__u64 c0[CNT_MAX], c1[CNT_MAX];
	struct capture_key k;
	int fds[2], left = 0;

	if (!conn_peeked(lfd, fds, &k, &entry)) {
		CHECK(0, "parked_copy: no capture");
		return;
	}
	set_state(&k, TAKE_TAKEN);
	capture_counters(&cc, c0);
	send_again(&entry, CNT_TAKE_PARKED);
	capture_counters(&cc, c1);
	CHECK(MOVED(c0, c1, CNT_TAKE_PARKED) == 1 && MOVED(c0, c1, CNT_RECAPTURED) == 1 &&
		      MOVED(c0, c1, CNT_CAPTURED) == 1 && MOVED(c0, c1, CNT_RECAPTURE_NEW) == 0,
	      "parked: %lld parked, %lld recaptured, %lld captured", MOVED(c0, c1, CNT_TAKE_PARKED),
	      MOVED(c0, c1, CNT_RECAPTURED), MOVED(c0, c1, CNT_CAPTURED));
	CHECK(!bpf_map_lookup_elem(cc.late_fd, &k, &late) && late.copies == 2 &&
		      (late.flags & CAP_F_RECAPTURED) && !late.cookie && late.tag == entry.tag,
	      "the later copy is not in syn_late as a key of its own");
	CHECK(late.flags & CAP_F_DROPPED, "the parked copy's drop was not noted on it");
	entry.take_state = TAKE_TAKEN;
	CHECK(!capture_peek_flow(&cc, &k, &now) && !memcmp(&now, &entry, sizeof(now)),
	      "the entry claimed was changed");
	/* what is left, looked at: the parked copy among it, where nothing moved it */
	capture_each_unbound(&cc, count_parked, &left);
	CHECK_EQ_INT(left, 1);
	/* the take's delete, then the consumer's move */
	CHECK(!capture_take_flow(&cc, &k, &now), "the claimed entry not deleted");
	CHECK_EQ_INT(capture_unpark(&cc), 0);
	CHECK(bpf_map_lookup_elem(cc.late_fd, &k, &now) && errno == ENOENT,
	      "syn_late still holds the parked copy");
	CHECK(!capture_peek_flow(&cc, &k, &now) && !memcmp(&now, &late, sizeof(now)),
	      "the parked copy was not moved into syn_by_flow");
	CHECK(!capture_take_flow(&cc, &k, &now), "the moved copy not taken");
	CHECK_EQ_INT(capture_evictions(&cc), 0);
	close(fds[0]);
	close(fds[1]);
	printf("a later copy that found its entry taken was parked, then moved\n");
}

/*
 * A copy parked while its entry was claimed, and the key made again by a still later copy
 * before the parked one was moved (the take's move of it found the key there): it stays
 * parked, a capture of its own, neither lost nor moved behind the later one; what is left is
 * looked at as two captures, each taken from its own map.
 */
static void parked_behind(int lfd)
{
	struct capture_rec entry, now;
	struct capture_key k;
	int fds[2], left = 0;

	if (!conn_peeked(lfd, fds, &k, &entry)) {
		CHECK(0, "parked_behind: no capture");
		return;
	}
	set_state(&k, TAKE_TAKEN);
	send_again(&entry, CNT_TAKE_PARKED);
	/* the take's delete, then a later copy before any move */
	CHECK(!capture_take_flow(&cc, &k, &now), "the claimed entry not deleted");
	send_again(&entry, CNT_CAPTURED);
	CHECK(!capture_peek_flow(&cc, &k, &now) && now.copies == 1,
	      "the later copy did not make the key anew");
	CHECK_EQ_INT(capture_unpark(&cc), 1);
	CHECK_EQ_INT(capture_evictions(&cc), 0);
	capture_each_unbound(&cc, count_parked, &left);
	CHECK_EQ_INT(left, 1);
	/* the comparator's end: each taken from the map it is in */
	capture_each_unbound(&cc, take_left, NULL);
	CHECK(capture_peek_flow(&cc, &k, &now) == -ENOENT, "the later copy left");
	CHECK(bpf_map_lookup_elem(cc.late_fd, &k, &now) && errno == ENOENT,
	      "the parked copy left");
	CHECK_EQ_INT(capture_evictions(&cc), 0);
	close(fds[0]);
	close(fds[1]);
	printf("a parked copy whose key was made again stayed parked, and was taken from there\n");
}

/*
 * The same, the take by take_flow itself: a copy parked while the entry was claimed (set by
 * hand, then given back, as a take that claimed it would go on to take it) is moved into
 * syn_by_flow by the take, behind its delete, and syn_late is empty.
 */
static void parked_then_taken(int lfd)
{
	struct capture_rec entry, rec, late, now;
	struct capture_key k;
	__u64 cookie;
	int fds[2];

	cookie = conn_peeked(lfd, fds, &k, &entry);
	if (!cookie) {
		CHECK(0, "parked_then_taken: no capture");
		return;
	}
	set_state(&k, TAKE_TAKEN);
	send_again(&entry, CNT_TAKE_PARKED);
	CHECK(!bpf_map_lookup_elem(cc.late_fd, &k, &late), "no copy parked");
	set_state(&k, 0);
	CHECK(capture_take_bound(&cc, cookie, &rec, NULL) == 0 && rec.copies == entry.copies &&
		      rec.tag == entry.tag, "the take did not get the entry");
	CHECK(bpf_map_lookup_elem(cc.late_fd, &k, &now) && errno == ENOENT,
	      "the take left the parked copy in syn_late");
	CHECK(!capture_peek_flow(&cc, &k, &now) && !memcmp(&now, &late, sizeof(now)),
	      "the take did not move the parked copy into syn_by_flow");
	CHECK(!capture_take_flow(&cc, &k, &now), "the moved copy not taken");
	close(fds[0]);
	close(fds[1]);
	printf("a copy parked during a take was moved behind it by the take\n");
}

/* The frame of captured SYN @entry sent again @n times, from the client's side. */
static void send_copies(const struct capture_rec *entry, int n)
{
	struct sockaddr_ll to = { .sll_family = AF_PACKET, .sll_ifindex = TOPO_IFINDEX_C0,
				  .sll_halen = ETH_ALEN };
	int fd = socket(AF_PACKET, SOCK_RAW, 0);

	memcpy(to.sll_addr, entry->data, ETH_ALEN);
	for (int i = 0; fd >= 0 && i < n; i++)
		if (sendto(fd, entry->data, entry->cap_len, 0, (struct sockaddr *)&to,
			   sizeof(to)) != entry->cap_len)
			log_err("send a copy");
	if (fd >= 0)
		close(fd);
}

/* Counts entries left with a claim on them. */
static int no_claim_left(const struct capture_key *k __attribute__((unused)),
			 const struct capture_rec *r, void *arg)
{
	if (r->take_state != CAPTURE_PARKED_REC && (r->take_state & TAKE_CLAIMS))
		(*(int *)arg)++;
	return 0;
}


/*
 * The real thing: @n connections each taken by take_flow while @sends copies of its SYN, sent
 * again just before, reach tc one by one from netem's timer (a delay of 10 ms, give or take 10
 * ms, on the client's device: the handshakes' too), each in a softirq that interrupts whatever
 * the guest runs then, the takes among it: before the take, after it, and (now and then) between
 * its claim and its delete, keep_copy()'s claims and the take's in whatever order. Whatever
 * the order: every copy tc saw kept (captured = syn_seen: in place of the entry, made anew
 * after the take, or parked, never failed), no claim left on any entry, every key accounted for.
 */
static void raced_takes(int lfd, int n, int sends)
{
	__u64 c0[CNT_MAX], c1[CNT_MAX], fallbacks = cc.take.fallbacks, busy = cc.take.busy;
	int claimed = 0, fds[2];

	CHECK(!system("tc qdisc replace dev c0 root netem delay 10ms 10ms"), "no netem on c0");
	capture_counters(&cc, c0);
	for (int i = 0; i < n; i++) {
		struct capture_rec entry, rec;
		struct capture_key k;
		__u64 cookie = conn_peeked(lfd, fds, &k, &entry);

		if (!cookie) {
			CHECK(0, "raced_takes: connection %d: no capture", i);
			break;
		}
		send_copies(&entry, sends);
		CHECK(capture_take_bound(&cc, cookie, &rec, NULL) == 0 && rec.cookie == cookie,
		      "raced_takes: connection %d not taken", i);
		close(fds[0]);
		close(fds[1]);
	}
	/* the last copies through tc */
	for (int i = 0; i < 100; i++) {
		capture_counters(&cc, c1);
		if (c1[CNT_SYN_SEEN] - c0[CNT_SYN_SEEN] >= (__u64)n * (__u64)(sends + 1))
			break;
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	}
	CHECK(!system("tc qdisc del dev c0 root"), "netem not removed from c0");
	capture_counters(&cc, c1);
	CHECK_EQ_INT(MOVED(c0, c1, CNT_SYN_SEEN), (long long)n * (sends + 1));
	CHECK_EQ_INT(MOVED(c0, c1, CNT_CAPTURED), MOVED(c0, c1, CNT_SYN_SEEN));
	CHECK_EQ_INT(MOVED(c0, c1, CNT_INSERT_FAIL), 0);
	capture_each_unbound(&cc, no_claim_left, &claimed);
	CHECK_EQ_INT(claimed, 0);
	CHECK_EQ_INT(capture_evictions(&cc), 0);
	capture_unpark(&cc);
	capture_each_unbound(&cc, take_left, NULL);
	CHECK_EQ_INT(capture_evictions(&cc), 0);
	printf("%d takes amid %d copies each: %lld in place of the entry, %lld keys made anew "
	       "after the take (%lld by keep_copy()), %lld parked; %llu take runs found a "
	       "replacement under way\n", n, sends, MOVED(c0, c1, CNT_RECAPTURED) -
	       MOVED(c0, c1, CNT_RECAPTURE_NEW) - MOVED(c0, c1, CNT_TAKE_PARKED),
	       MOVED(c0, c1, CNT_CAPTURED) - MOVED(c0, c1, CNT_RECAPTURED) - n +
	       MOVED(c0, c1, CNT_RECAPTURE_NEW),
	       MOVED(c0, c1, CNT_RECAPTURE_NEW), MOVED(c0, c1, CNT_TAKE_PARKED),
	       (unsigned long long)(cc.take.busy - busy));
	CHECK_EQ_INT(cc.take.fallbacks - fallbacks, 0);
}

/*
 * A later copy of a SYN whose entry another copy is replacing (TAKE_REPLACING) and goes on
 * replacing: keep_copy() waits a bounded while, then fails by name (-EBUSY, insert_fail), the
 * entry untouched. Then, nothing claiming the entry, the next copy replaces it, as always.
 */
static void busy_copy(int lfd)
{
	struct capture_rec entry, now;
	__u64 c0[CNT_MAX], c1[CNT_MAX];
	struct bpf_error e;
	struct capture_key k;
	int fds[2];

	if (!conn_peeked(lfd, fds, &k, &entry)) {
		CHECK(0, "busy_copy: no capture");
		return;
	}
	set_state(&k, TAKE_REPLACING);
	capture_counters(&cc, c0);
	send_again(&entry, CNT_INSERT_FAIL);
	capture_counters(&cc, c1);
	CHECK(MOVED(c0, c1, CNT_INSERT_FAIL) == 1 && MOVED(c0, c1, CNT_RECAPTURED) == 0 &&
		      MOVED(c0, c1, CNT_TAKE_PARKED) == 0 && MOVED(c0, c1, CNT_SYN_DROPPED) == 0 &&
		      MOVED(c0, c1, CNT_DROP_NOT_COPY) == 1,
	      "busy: %lld insert failures, %lld recaptured, %lld drops on the flow, %lld of no "
	      "copy", MOVED(c0, c1, CNT_INSERT_FAIL), MOVED(c0, c1, CNT_RECAPTURED),
	      MOVED(c0, c1, CNT_SYN_DROPPED), MOVED(c0, c1, CNT_DROP_NOT_COPY));
	CHECK(!capture_error(&cc, 0, &e) && e.err == -EBUSY, "the error is %d, not -EBUSY",
	      e.err);
	CHECK(!capture_peek_flow(&cc, &k, &now) && now.copies == entry.copies &&
		      now.take_state == TAKE_REPLACING, "the entry under replacement was changed");
	set_state(&k, 0);
	send_again(&entry, CNT_RECAPTURED);
	CHECK(!capture_peek_flow(&cc, &k, &now) && now.copies == entry.copies + 1 &&
		      now.cookie == entry.cookie && !(now.take_state & TAKE_CLAIMS),
	      "a copy with no claim on the entry did not replace it");
	CHECK(!capture_take_flow(&cc, &k, &now), "the flow's last entry taken");
	close(fds[0]);
	close(fds[1]);
	printf("a later copy that found another replacing the entry failed by name\n");
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20, lfd;

	counter = count_allocs_bpf__open_and_load();
	if (!counter || count_allocs_bpf__attach(counter) || capture_client_open(&cc) ||
	    enter_netns("server") ||
	    (lfd = start_listener(AF_INET, TOPO_SERVER4, 0, 0, 64)) < 0 || enter_netns("client")) {
		fprintf(stderr, "guest_take: set-up failed\n");
		return 2;
	}
	CHECK(flow_take_ready(&cc.take), "no take_flow program pinned, or this thread's slot not free");
	takes_counted(lfd, n);
	take_waits(lfd);
	parked_copy(lfd);
	parked_then_taken(lfd);
	parked_behind(lfd);
	busy_copy(lfd);
	raced_takes(lfd, 60, 10);
	/* every flow entry accounted for: taken, none evicted or left in syn_late */
	CHECK_EQ_INT(capture_evictions(&cc), 0);
	capture_client_close(&cc);
	count_allocs_bpf__destroy(counter);
	return check_report("guest_take");
}
