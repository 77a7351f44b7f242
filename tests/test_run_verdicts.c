// SPDX-License-Identifier: GPL-2.0
/*
 * The judge's run-level rules (judge/run_verdicts.h), table-driven: each rule's verdict, and
 * next to it the near miss one fact away that must decide the other way.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/types.h>

#include "capture.h"
#include "check.h"
#include "registry.h"
#include "run_verdicts.h"

static void client_failed(void)
{
	struct client_failure f = { .gen = "sockets", .knobs = "mss=536 tfo", .index = 17,
				    .err = ECONNREFUSED };
	struct compare_result res;

	CHECK_EQ_INT(judge_client_failed(&f, &res), 1);
	CHECK_EQ_INT(res.verdict, V_CONN_FAILED);
	CHECK_EQ_INT(res.reason, R_NONE);
	CHECK_STR_CONTAINS(res.detail, "sockets #17 (mss=536 tfo) failed in the client");
	CHECK_STR_CONTAINS(res.detail, "(ECONNREFUSED)");
}

struct mem_case {
	const char *name;
	struct mem_finding f;
	int bad;
	const char *detail;
};

static const struct mem_case mem_cases[] = {
	{ "outstanding", { .kind = MEM_OUTSTANDING, .bytes = 112, .isn = 7 }, 1,
	  "a saved copy of 112 bytes (allocated for isn 7) was never freed (outstanding at the end "
	  "of the run)" },
	{ "freed twice in one function",
	  { MEM_FREED_TWICE, 112, 9, "tcp_saved_syn_free+0x1f", "tcp_saved_syn_free+0x2a", false },
	  1,
	  "a saved copy of 112 bytes (allocated for isn 9) was freed twice in one function "
	  "(tcp_saved_syn_free+0x1f, then tcp_saved_syn_free+0x2a)" },
	/* near misses: another function (a prefix of the first's name too) is not judged */
	/* another slab cache owning the address by then does not excuse one function's second
	 * kfree: that function freed the saved copy's address twice */
	{ "freed twice in one function, another cache owning the address",
	  { MEM_FREED_TWICE, 112, 9, "tcp_saved_syn_free+0x1f", "tcp_saved_syn_free+0x2a", true },
	  1, "was freed twice in one function (tcp_saved_syn_free+0x1f, then "
	  "tcp_saved_syn_free+0x2a)" },
	{ "freed again in another function",
	  { MEM_FREED_TWICE, 112, 9, "tcp_saved_syn_free+0x1f", "reqsk_free+0x10", false }, 0,
	  "another function, not judged" },
	{ "freed again in a function whose name starts alike",
	  { MEM_FREED_TWICE, 112, 9, "tcp_free+0x1f", "tcp_free_fastopen_req+0x8", false }, 0,
	  "another function, not judged" },
	{ "freed again in another function, another cache owning the address",
	  { MEM_FREED_TWICE, 112, 9, "tcp_saved_syn_free+0x1f", "kfree_rcu_work+0x10", true }, 0,
	  "freed at tcp_saved_syn_free+0x1f, again at kfree_rcu_work+0x10: another function, on "
	  "an object of another slab cache (the page was given back and taken): a reuse, not a "
	  "double free" },
};

static void memory(void)
{
	for (size_t i = 0; i < sizeof(mem_cases) / sizeof(mem_cases[0]); i++) {
		const struct mem_case *c = &mem_cases[i];
		struct compare_result res;
		int bad = judge_memory(&c->f, &res);

		CHECK(bad == c->bad, "%s: judged %d, want %d", c->name, bad, c->bad);
		CHECK(!bad || res.verdict == V_DIFFER, "%s: verdict %d", c->name, res.verdict);
		CHECK(strstr(res.detail, c->detail) != NULL, "%s: detail '%s'", c->name, res.detail);
	}
}

/* What a second kfree read excuses: another cache's object there, and only that. */
static void owners(void)
{
	CHECK(mem_other_owner(MEM_OWNER_OTHER), "another cache's object: another owner");
	CHECK(!mem_other_owner(MEM_OWNER_UNREAD), "unread: no other owner");
	CHECK(!mem_other_owner(MEM_OWNER_KMALLOC), "a kmalloc cache's: no other owner");
	CHECK(!mem_other_owner(MEM_OWNER_NO_SLAB), "no slab page: no other owner");
	CHECK(!mem_other_owner(MEM_OWNER_NOT_OBJECT), "no object of that cache there: no owner");
	CHECK(!mem_other_owner(99), "a value the follower never writes: no other owner");
}

struct cookie_case {
	struct cookie_counts c;
	bool agree;
	const char *rule;
};

static const struct cookie_case cookie_cases[] = {
	{ { "TCPSynNotSavedCookie", 5, 5, 0 }, true, "proven == growth" },
	{ { "TCPSynNotSavedCookie", 6, 5, 0 }, false, "proven == growth" },
	{ { "TCPSynNotSavedCookie", 4, 5, 0 }, false, "proven == growth" },
	{ { "TCPSynNotSavedCookie", 7, 5, 2 }, true, "proven <= growth <= proven + records_lost" },
	{ { "TCPSynNotSavedCookie", 8, 5, 2 }, false, "proven <= growth <= proven + records_lost" },
	{ { "TCPSynNotSavedCookie", -1, 0, 0 }, false, "proven == growth" },
	{ { "SyncookiesRecv", 9, 5, 0 }, true, "proven <= growth" },
	{ { "SyncookiesRecv", 5, 5, 0 }, true, "proven <= growth" },
	{ { "SyncookiesRecv", 4, 5, 0 }, false, "proven <= growth" },
	{ { "SyncookiesRecv", -1, 0, 0 }, false, "proven <= growth" },
};

static void cookie_counter(void)
{
	for (size_t i = 0; i < sizeof(cookie_cases) / sizeof(cookie_cases[0]); i++) {
		const struct cookie_case *c = &cookie_cases[i];

		CHECK(judge_cookie_counter(&c->c) == c->agree, "%s growth %lld proven %llu lost %llu",
		      c->c.counter, (long long)c->c.growth, (unsigned long long)c->c.proven,
		      (unsigned long long)c->c.lost);
		CHECK(!strcmp(cookie_counter_rule(&c->c), c->rule), "rule '%s', want '%s'",
		      cookie_counter_rule(&c->c), c->rule);
	}
}

static void leftovers(void)
{
	/* wire_faults, key_judged, answers_judged, flow_missing */
	CHECK_EQ_INT(judge_leftover(&(struct leftover_facts){ .wire_faults = false }), LEFT_JUDGE);
	CHECK_EQ_INT(judge_leftover(&(struct leftover_facts){ true, true, true, true }),
		     LEFT_LATE_COPY);
	CHECK_EQ_INT(judge_leftover(&(struct leftover_facts){ true, false, true, true }),
		     LEFT_LATE_ANSWER);
	CHECK_EQ_INT(judge_leftover(&(struct leftover_facts){ true, false, false, true }),
		     LEFT_LATE_CAPTURE);
	CHECK_EQ_INT(judge_leftover(&(struct leftover_facts){ false, false, false, true }),
		     LEFT_LATE_CAPTURE);
	/* near misses: without wire faults a judged key or answer proves nothing: judged */
	CHECK_EQ_INT(judge_leftover(&(struct leftover_facts){ false, true, false, false }),
		     LEFT_JUDGE);
	CHECK_EQ_INT(judge_leftover(&(struct leftover_facts){ false, false, true, false }),
		     LEFT_JUDGE);
}

static void as_planned(void)
{
	struct compare_result retransmit = { .verdict = V_EXPLAINED, .reason = R_RETRANSMIT };
	struct compare_result abandoned = { .verdict = V_EXPLAINED, .reason = R_ABANDONED };
	struct compare_result differ = { .verdict = V_DIFFER, .reason = R_RETRANSMIT };
	struct compare_result identical = { .verdict = V_IDENTICAL };

	CHECK(judge_as_planned(&gen_rows[GEN_HELD_BACK], &retransmit), "held-back");
	CHECK(!judge_as_planned(&gen_rows[GEN_HELD_BACK], &abandoned), "held-back");
	CHECK(!judge_as_planned(&gen_rows[GEN_HELD_BACK], &differ), "not explained");
	CHECK(!judge_as_planned(&gen_rows[GEN_HELD_BACK], &identical), "held-back, identical");
	CHECK(judge_as_planned(&gen_rows[GEN_ABANDONED_EXPIRE], &abandoned), "abandoned");
	CHECK(!judge_as_planned(&gen_rows[GEN_SOCKETS], &retransmit), "plans nothing");
	CHECK(!judge_as_planned(&gen_rows[GEN_SOCKETS], &identical), "plans nothing, identical");
	for (int g = 0; g < GEN_MAX; g++)
		CHECK(strlen(gen_rows[g].name) < GEN_NAME_MAX, "%s: longer than a label keeps",
		      gen_rows[g].name);
	/* a generator of its own with no planned reason: each record identical */
	CHECK(judge_as_planned(&gen_rows[GEN_RESET_BEFORE_READ], &identical), "reset-before-read");
	CHECK(!judge_as_planned(&gen_rows[GEN_RESET_BEFORE_READ], &retransmit),
	      "reset-before-read, explained");
	CHECK(!judge_as_planned(&gen_rows[GEN_RESET_BEFORE_READ], &differ), "reset-before-read, differ");
}

/* A complete run that owes nothing; each case changes one fact. */
static const struct run_end whole = { .passive_paid = 100, .passive_planned = 100,
				      .active = 40, .active_planned = 40 };

struct end_case {
	const char *name;
	void (*change)(struct run_end *e);
	bool partial;
	int status;
};

static void as_is(struct run_end *e) { (void)e; }
static void one_owed(struct run_end *e) { e->passive_paid--; }
static void active_owed(struct run_end *e) { e->active--; }
static void active_unrecorded(struct run_end *e) { e->active--; e->active_unrecorded = 1; }
static void evicted(struct run_end *e) { e->evictions = 1; }
static void lost(struct run_end *e) { e->lost = 1; }
static void keys_lost(struct run_end *e) { e->keys_lost = true; }
static void unexplained(struct run_end *e) { e->unexplained = 1; }
static void expectation(struct run_end *e) { e->expectations_failed = 1; }
static void write_failed(struct run_end *e) { e->write_failed = true; }

static const struct end_case end_cases[] = {
	{ "complete", as_is, false, 0 },
	{ "one passive owed", one_owed, true, 1 },
	{ "one active owed", active_owed, true, 1 },
	{ "one active failed before its SYN-ACK", active_unrecorded, false, 0 },
	{ "the witness evicted", evicted, true, 1 },
	{ "a record lost", lost, true, 1 },
	{ "a judged key not kept", keys_lost, true, 1 },
	{ "one unexplained", unexplained, false, 1 },
	{ "an expectation failed", expectation, false, 1 },
	{ "results not written", write_failed, true, 2 },
};

static void run_end(void)
{
	for (size_t i = 0; i < sizeof(end_cases) / sizeof(end_cases[0]); i++) {
		const struct end_case *c = &end_cases[i];
		struct run_end e = whole;
		bool partial;

		c->change(&e);
		partial = judge_run_partial(&e);
		CHECK(partial == c->partial, "%s: partial %d", c->name, partial);
		CHECK(judge_run_status(&e, partial) == c->status, "%s: status %d, want %d", c->name,
		      judge_run_status(&e, partial), c->status);
	}
	/* each planned connection pays once; a cookie connection with no child pays at the end */
	CHECK_EQ_INT(passive_paid(10, 2, 3, false), 8);
	CHECK_EQ_INT(passive_paid(10, 2, 3, true), 11);
}

int main(void)
{
	client_failed();
	memory();
	owners();
	cookie_counter();
	leftovers();
	as_planned();
	run_end();
	return check_report("run_verdicts");
}
