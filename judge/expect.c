// SPDX-License-Identifier: GPL-2.0
/* The run's exact expectations (expect.h). */
#include "expect.h"

#include <stdio.h>
#include <string.h>

#include <linux/types.h>

#include "capture.h"
#include "json_out.h"
#include "plan.h"
#include "provides.h"

static const char ALWAYS[] = "always";
static const char WHOLE[] = "a whole run (not a rerun, shard or replay)";
static const char CLEAN_WIRE[] = "a wire without faults";
static const char WHOLE_CLEAN[] = "a whole run on a wire without faults";

static void want(struct expect_list *l, const char *name, const char *when, int64_t w, int64_t g)
{
	struct expectation *e;

	/* no room: failed, never dropped unsaid (the list says how many failed) */
	if (l->n >= EXPECT_MAX) {
		l->failed++;
		return;
	}
	e = &l->e[l->n++];
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->when = when;
	e->want = w;
	e->got = g;
	e->ok = w == g;
	l->failed += !e->ok;
}

/* The series' declaration: each counter exists, and the SYN-ACK save delivers. */
static void declared(const struct expect_facts *f, struct expect_list *l)
{
	char name[48];

	for (size_t i = 0; i < f->decl->ncounters; i++) {
		snprintf(name, sizeof(name), "counter %s present", f->decl->counter[i]);
		want(l, name, "declared by the series", 1, f->counter_present[i]);
	}
	if (provides_counter(f->decl, "TCPSynAckSaved"))
		/* the server netns's own active opens: the planned duplicate SYN-ACKs' sockets */
		want(l, "TCPSynAckSaved", "declared by the series", (int64_t)f->gen_dup_synack,
		     f->tcp_synack_saved);
	if (provides_counter(f->decl, "TCPSynSaved"))
		/* every saved copy the follower saw but those it tied to a SYN-ACK is a SYN's */
		want(l, "TCPSynSaved", "declared by the series",
		     (int64_t)(f->mem_allocs - f->active_allocs), f->tcp_syn_saved);
	if (provides_counter(f->decl, "TCPSynNotSavedCookie") && !f->records_lost)
		want(l, "TCPSynNotSavedCookie", "declared by the series",
		     (int64_t)(f->syncookie + f->cookie_repeat + f->cookie_not_due),
		     f->tcp_cookie_not_saved);
}

/* The generators of their own (registry.h: per_run): each record proven as planned, and as
 * many records as the plan made (a whole run). */
static void own_generators(const struct expect_facts *f, struct expect_list *l)
{
	char name[48];

	for (int g = 0; g < GEN_MAX && f->gen_records && f->gen_proven; g++) {
		if (!gen_rows[g].per_run)
			continue;
		snprintf(name, sizeof(name), "%s proven", gen_rows[g].name);
		want(l, name, ALWAYS, (int64_t)f->plan->own[g], (int64_t)f->gen_proven[g]);
		if (!f->whole_run)
			continue;
		snprintf(name, sizeof(name), "%s records", gen_rows[g].name);
		want(l, name, WHOLE, (int64_t)f->plan->own[g], (int64_t)f->gen_records[g]);
	}
}

/* What the plan fixes: records per direction and generator, the planned handshakes proven. */
static void planned(const struct expect_facts *f, struct expect_list *l)
{
	const struct plan *p = f->plan;

	want(l, "passive records", ALWAYS,
	     (int64_t)(p->expect + f->cookie_repeat - f->cookie_no_child), (int64_t)f->passive);
	want(l, "active records", ALWAYS, (int64_t)p->expect_active,
	     (int64_t)(f->active + f->active_unrecorded));
	want(l, "held-back proven syn-retransmit", ALWAYS, (int64_t)p->held_back,
	     (int64_t)f->proven_held_back);
	want(l, "dup-synack proven syn-retransmit", ALWAYS, (int64_t)p->dup_synack,
	     (int64_t)f->proven_dup_synack);
	want(l, "abandon-rst proven", ALWAYS, (int64_t)(p->abandoned / 3), (int64_t)f->proven_rst);
	want(l, "abandon-expire proven", ALWAYS, (int64_t)(p->abandoned / 3),
	     (int64_t)f->proven_expire);
	want(l, "abandon-close proven", ALWAYS, (int64_t)(p->abandoned / 3),
	     (int64_t)f->proven_close);
	own_generators(f, l);
	if (!f->whole_run)
		return;
	/* a second child of a syncookie connection's SYN is a record of its generator too */
	want(l, "sockets records", WHOLE, (int64_t)(p->sockets + f->cookie_repeat),
	     (int64_t)f->gen_sockets);
	want(l, "crafted records", WHOLE, (int64_t)p->crafted, (int64_t)f->gen_crafted);
	want(l, "crafted-tap records", WHOLE, (int64_t)p->tap, (int64_t)f->gen_tap);
	want(l, "fuzz records", WHOLE, (int64_t)p->fuzz, (int64_t)f->gen_fuzz);
	want(l, "held-back records", WHOLE, (int64_t)p->held_back, (int64_t)f->gen_held_back);
	want(l, "dup-synack records", WHOLE, (int64_t)p->dup_synack, (int64_t)f->gen_dup_synack);
}

/* Syncookies: exactly where the plan forced them (both ways), and a child per cookie. */
static void cookies(const struct expect_facts *f, struct expect_list *l)
{
	/* every cookie the witness proved, due or not, against the plan's window */
	want(l, "syncookie connections", "the plan's forced window, less TIME_WAIT reopenings",
	     (int64_t)(f->cookie_due - f->cookie_due_reopened),
	     (int64_t)(f->syncookie + f->cookie_not_due));
	want(l, "duplicate children", ALWAYS, (int64_t)f->cookie_repeat,
	     (int64_t)f->duplicate_children);
	if (f->wire_faults)
		return;
	want(l, "syncookie-repeat", CLEAN_WIRE, 0, (int64_t)f->cookie_repeat);
	want(l, "syncookie-no-child", CLEAN_WIRE, 0, (int64_t)f->cookie_no_child);
}

/* Every saved copy followed from its allocation to one free. */
static void memory(const struct expect_facts *f, struct expect_list *l)
{
	want(l, "saved copies freed", ALWAYS, (int64_t)f->mem_allocs, (int64_t)f->mem_frees);
	want(l, "saved copies outstanding", ALWAYS, 0, f->mem_live);
	want(l, "saved copies freed twice", ALWAYS, 0, (int64_t)f->mem_double);
	/* each second kfree judged: none kept out of mem_double (by an earlier one at the
	 * address, or a full map) */
	want(l, "second kfrees unrecorded", ALWAYS, 0, (int64_t)f->mem_double_unrecorded);
	want(l, "saved copies unattributed", ALWAYS, 0, (int64_t)f->mem_unattributed);
	want(l, "saved copies untracked", ALWAYS, 0, (int64_t)f->mem_untracked);
	want(l, "memory verdicts", ALWAYS, 0, (int64_t)f->mem_verdicts);
	want(l, "follower context overflows", ALWAYS, 0, (int64_t)f->mem_ctx_overflow);
	/* a copy made where no correct kernel makes one, tied by tc's last packet on the CPU */
	want(l, "saved copies made outside tcp_rcv_state_process", ALWAYS, 0,
	     (int64_t)f->mem_outside_ctx);
	/* where the follower reads what owns an address instead of following kmem_cache_alloc, a
	 * saved copy read so is a kmalloc cache's object until kfree() returns: the layout the
	 * loader proved is the kernel's */
	if (f->mem_owner_read && f->mem_frees)
		want(l, "first copy freed owned by a kmalloc cache", "kmem_cache_alloc not followed",
		     MEM_OWNER_KMALLOC, (int64_t)f->mem_owner_check);
	/* a second kfree from another function is a double free unless the follower missed
	 * runs (an allocation nested in its program on that CPU reuses the address unseen) */
	if (!f->mem_missed)
		want(l, "saved copies freed again elsewhere", "the follower missed no run", 0,
		     (int64_t)f->mem_double_elsewhere);
	if (!f->wire_faults)
		/* one copy per record but the cookie children and the SYNs the kernel must drop */
		want(l, "saved copies", CLEAN_WIRE,
		     (int64_t)(f->records - f->syncookie - f->cookie_not_due - f->rejected -
			       f->dropped), (int64_t)f->mem_allocs);
}

/* The witness bound every SYN and SYN-ACK once, and lost nothing. */
static void witness(const struct expect_facts *f, struct expect_list *l)
{
	want(l, "bind misses", ALWAYS, 0, (int64_t)f->bind_miss);
	if (f->decl->synack_save)
		/* (without it the witness is not on the client's device: every active socket
		 * misses, and no active record is owed) */
		want(l, "active bind misses", "the series declares synack-save", 0,
		     (int64_t)f->active_bind_miss);
	want(l, "ring drops", ALWAYS, 0, (int64_t)f->ring_drops);
	/* a drop counts only for a copy's own sk_buff: which one is, known */
	want(l, "copies cloned while shared", ALWAYS, 0, (int64_t)f->copy_shared_clones);
	want(l, "records lost", ALWAYS, 0, (int64_t)f->records_lost);
	want(l, "unclaimed bindings", ALWAYS, 0, f->unclaimed);
	want(l, "waiting captures", ALWAYS, 0, (int64_t)f->waiting);
	want(l, "TCPTimeWaitOverflow", ALWAYS, 0, f->tcp_tw_overflow);
	if (f->wire_faults || !f->plan)
		return;
	/* every passive connection but those whose SYN the kernel dropped had a socket */
	want(l, "passive SYNs bound", f->whole_run ? WHOLE_CLEAN : CLEAN_WIRE,
	     (int64_t)(f->passive - f->dropped), (int64_t)f->bound);
	want(l, "SYN-ACKs bound", CLEAN_WIRE, (int64_t)f->plan->expect_active,
	     (int64_t)f->active_bound);
	if (f->decl->synack_save)
		/* the witness saw the client answer every timestamped SYN-ACK it judged: the
		 * TSecr cross-check ran on each (which_copy.c) */
		want(l, "active answers seen", CLEAN_WIRE, (int64_t)f->active_ts,
		     (int64_t)f->active_answered);
}

void expect_all(const struct expect_facts *f, struct expect_list *out)
{
	memset(out, 0, sizeof(*out));
	declared(f, out);
	cookies(f, out);
	if (f->plan)
		planned(f, out);
	memory(f, out);
	witness(f, out);
}

void expect_line(const struct expectation *e, char *buf, size_t len)
{
	snprintf(buf, len, "%s %lld, want %lld (%s)", e->name, (long long)e->got,
		 (long long)e->want, e->when);
}

void expect_json(struct json_out *j, const struct expect_list *l)
{
	json_open(j, "expectations", '[');
	for (size_t i = 0; i < l->n; i++) {
		json_open(j, NULL, '{');
		json_str(j, "name", l->e[i].name);
		json_str(j, "when", l->e[i].when);
		json_i64(j, "want", l->e[i].want);
		json_i64(j, "got", l->e[i].got);
		json_bool(j, "ok", l->e[i].ok);
		json_close(j);
	}
	json_close(j);
	json_u64(j, "expectations_failed", l->failed);
}
