// SPDX-License-Identifier: GPL-2.0
/* A consumer's take of a flow entry without an allocation (flow_take.h). */
#define _GNU_SOURCE
#include "flow_take.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* Pinned array @name (BPF_F_MMAPABLE, @entries values of @value_size) mapped read-write into
 * *@len bytes; NULL if it is not there. */
static void *map_pinned(const char *name, size_t value_size, __u32 entries, size_t *len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), sz = ((value_size + 7) & ~(size_t)7) * entries;
	char path[256];
	void *p;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", CAPTURE_PIN_DIR, name);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return NULL;
	sz = (sz + page - 1) / page * page;
	p = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd); /* the mapping holds the map */
	if (p == MAP_FAILED)
		return NULL;
	*len = sz;
	return p;
}

/* Forks of this process (pthread_atfork): a child holds its parent's slot, not its own. */
static unsigned long forks;
static __thread bool thread_has_slot;

static void count_fork(void)
{
	forks++;
}

static void watch_forks(void)
{
	pthread_atfork(NULL, NULL, count_fork);
}

/* This thread's slot, claimed if free: one a thread (a second client in the same thread takes
 * by bpf()), and never a slot another holds (one whose owner did not give it back, e.g. after
 * a crash, leaves its thread ids to bpf(): the guest's maps are new each attach). */
static struct take_slot *claim_slot(void *map, __u32 tid)
{
	size_t stride = (sizeof(struct take_slot) + 7) & ~(size_t)7;
	struct take_slot *s = (struct take_slot *)((char *)map + (tid % TAKE_SLOTS) * stride);
	__u32 owner = 0;

	if (thread_has_slot || !__atomic_compare_exchange_n(&s->owner, &owner, tid, false,
							    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return NULL;
	thread_has_slot = true;
	return s;
}

static void flow_take_open(struct flow_take *t)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	const char *by_map = getenv("SYNTWIN_TAKE_BY_MAP");

	t->opened = true;
	t->prog_fd = -1;
	if (by_map && !strcmp(by_map, "1"))
		return;
	t->wanted = true;
	pthread_once(&once, watch_forks);
	t->map = map_pinned("syn_take", sizeof(struct take_slot), TAKE_SLOTS, &t->len);
	if (!t->map)
		return;
	t->slot = claim_slot(t->map, (__u32)gettid());
	if (!t->slot)
		return;
	t->thread = pthread_self();
	t->forks = forks;
	t->prog_fd = bpf_obj_get(CAPTURE_PIN_DIR "/" CAPTURE_TAKE_PROG);
}

/* The slot is this thread's, of this process (not a child's copy of the client). */
static bool mine(const struct flow_take *t)
{
	return t->prog_fd >= 0 && t->forks == forks && pthread_equal(t->thread, pthread_self());
}

bool flow_take_ready(struct flow_take *t)
{
	if (!t->opened)
		flow_take_open(t);
	return mine(t);
}

void flow_take_close(struct flow_take *t)
{
	__u32 tid = (__u32)gettid();

	if (t->slot && t->forks == forks && pthread_equal(t->thread, pthread_self()) &&
	    __atomic_compare_exchange_n(&t->slot->owner, &tid, 0, false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE))
		thread_has_slot = false;
	if (t->map)
		munmap(t->map, t->len);
	if (t->prog_fd >= 0)
		close(t->prog_fd);
	t->prog_fd = -1;
	t->slot = NULL;
	t->map = NULL;
	t->opened = false;
}

int flow_take(struct flow_take *t, const struct capture_key *k, struct capture_rec *out)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	struct timespec pause = { .tv_nsec = 100000 };

	if (!t->opened)
		flow_take_open(t);
	if (t->wanted)
		t->fallbacks++; /* until it is taken or found missing */
	if (!mine(t))
		return -EAGAIN;
	t->slot->key = *k;
	/* TAKE_BUSY: another copy's replacement of the entry under way, a softirq's few
	 * instructions on another CPU (or that CPU stopped meanwhile): 10,000 tries, about a
	 * second */
	for (int tries = 0; tries < 10000; tries++) {
		opts.retval = 0;
		if (bpf_prog_test_run_opts(t->prog_fd, &opts))
			return -EAGAIN;
		if (opts.retval != TAKE_BUSY)
			break;
		t->busy++;
		if (tries)
			nanosleep(&pause, NULL);
	}
	switch (opts.retval) {
	case TAKE_DONE:
		t->fallbacks--;
		t->taken++;
		*out = t->slot->rec; /* take_state: its incarnation alone (take_flow) */
		return 1;
	case TAKE_NONE:
		t->fallbacks--;
		return 0;
	case TAKE_NOT_OWNER:
		fprintf(stderr, "syntwin: take_flow does not know this thread (another pid "
			"namespace?): every take is bpf()'s from now on\n");
		close(t->prog_fd);
		t->prog_fd = -1;
		return -EAGAIN;
	default:
		return -EAGAIN;
	}
}
