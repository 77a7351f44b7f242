// SPDX-License-Identifier: GPL-2.0
/*
 * The memory follower at the end of the run (run.h): the saved copies still allocated, each
 * judged once (on its flow's record, or as a leak of its own), and those freed twice.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "mono_time.h"
#include "run.h"
#include "run_verdicts.h"

#define MEM_SETTLE_MS 10000 /* the last planned request expires 3 s after its SYN */

struct keep_ctx {
	struct run *R;
	size_t cap;
};

static int keep_live(uint64_t addr, const struct mem_obj *o, void *arg)
{
	struct keep_ctx *k = arg;

	if (k->R->nlive == k->cap)
		return 1;
	k->R->live[k->R->nlive++] = (struct live_obj){ .addr = addr, .o = *o };
	return 0;
}

/*
 * The end, for memory: every socket is closed and the planned requests expire; wait until no
 * saved copy is outstanding (at most MEM_SETTLE_MS), then keep those that still are, each to be
 * judged (leaked_site(), judge_leaks()).
 */
void mem_collect(struct run *R)
{
	struct run_stats *st = &R->st;
	struct keep_ctx k = { .R = R };
	uint64_t t0 = mono_ms();

	do {
		saved_syn_mem_read(R->mem, &st->mem);
		if (st->mem.live <= 0)
			break;
		usleep(50 * 1000);
	} while (mono_ms() - t0 < MEM_SETTLE_MS);
	st->mem_settle_ms = mono_ms() - t0;
	k.cap = st->mem.live > 0 ? (size_t)st->mem.live + 1024 : 1024;
	R->live = calloc(k.cap, sizeof(*R->live));
	if (R->live) {
		saved_syn_mem_each(R->mem, 0, keep_live, &k);
		return;
	}
	/* the outstanding objects cannot be judged one by one: the run fails as a whole */
	fprintf(stderr, "syntwin-server: out of memory listing %lld outstanding saved copies\n",
		(long long)st->mem.live);
	st->unexplained += st->mem.live > 0;
}

const char *leaked_site(struct run *R, const struct capture_key *k, char *buf, size_t len)
{
	for (size_t i = 0; i < R->nlive; i++) {
		if (R->live[i].judged || memcmp(&R->live[i].o.flow, k, sizeof(*k)))
			continue;
		R->live[i].judged = true;
		return saved_syn_mem_symbol(R->live[i].o.call_site, buf, len);
	}
	return NULL;
}

/* One memory verdict (a leak, a double free) on the flow of object @o, recorded. */
static void mem_record(struct run *R, const struct mem_obj *o, const struct compare_result *res)
{
	struct conn_record c = { .family = o->flow.family, .direction = "memory",
				 .flow = o->flow, .res = res };
	char site[160], saddr[46], daddr[46];

	flow_text(&o->flow, saddr, daddr);
	R->st.verdict[V_DIFFER]++;
	R->st.unexplained++;
	R->st.mem_leaks++;
	fprintf(stderr, "syntwin: %s memory %s:%u > %s:%u: differ: %s (%s)\n",
		o->flow.family == AF_INET6 ? "IPv6" : o->flow.family ? "IPv4" : "unknown flow",
		saddr, ntohs(o->flow.sport), daddr, ntohs(o->flow.dport), res->detail,
		saved_syn_mem_symbol(o->call_site, site, sizeof(site)));
	writer_record(&R->out, &c, &R->st.fp);
}

static void judge_one(struct run *R, const struct mem_obj *o, const struct mem_finding *f)
{
	struct compare_result res;

	if (judge_memory(f, &res)) {
		R->st.mem_double_confirmed += f->kind == MEM_FREED_TWICE;
		mem_record(R, o, &res);
		return;
	}
	if (f->other_owner) {
		R->st.mem_double_reused++;
		fprintf(stderr, "syntwin-server: note: a saved copy's address %s\n", res.detail);
		return;
	}
	R->st.mem_double_unconfirmed++;
	fprintf(stderr, "syntwin-server: note: a saved copy's address freed at %s was freed again "
		"at %s, another function (not judged: see double_frees_unconfirmed; the follower "
		"missed %llu nested run(s), where a reuse goes unseen)\n", f->free_site,
		f->free2_site, (unsigned long long)R->st.mem.missed);
}

static int judge_double(uint64_t addr, const struct mem_obj *o, void *arg)
{
	char first[160], second[160];
	struct mem_finding f = { .kind = MEM_FREED_TWICE, .bytes = o->bytes, .isn = o->flow.seq,
				 .free_site = first, .free2_site = second,
				 .other_owner = mem_other_owner(o->owner2) };

	(void)addr;
	saved_syn_mem_symbol(o->free_site, first, sizeof(first));
	saved_syn_mem_symbol(o->free2_site, second, sizeof(second));
	judge_one(arg, o, &f);
	return 0;
}

void judge_leaks(struct run *R)
{
	for (size_t i = 0; i < R->nlive; i++) {
		const struct mem_obj *o = &R->live[i].o;
		struct mem_finding f = { .kind = MEM_OUTSTANDING, .bytes = o->bytes,
					 .isn = o->flow.seq };

		if (!R->live[i].judged)
			judge_one(R, o, &f);
	}
	saved_syn_mem_each(R->mem, 1, judge_double, R);
	mem_forget(R);
}

void mem_forget(struct run *R)
{
	free(R->live);
	R->live = NULL;
	R->nlive = 0;
}
