// SPDX-License-Identifier: GPL-2.0
/*
 * The series' declaration (common/provides.c) and the run's expectations (judge/expect.c):
 * every declaration parsed and every bad line refused with its reason; a clean run's facts
 * meet every expectation, and each wrong kernel's facts fail exactly the expectation that
 * names it, nothing else.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/types.h>

#include "capture.h"
#include "check.h"
#include "expect.h"
#include "plan.h"
#include "provides.h"
#include "tree_facts.h"

static const char reference[] =
	"# a comment\n"
	"counter TCPSynSaved\t\t# 0001\n"
	"counter TCPSynSaveFail\n"
	"counter TCPSynNotSavedCookie\n"
	"synack-save  # 0002\n"
	"\n"
	"counter TCPSynAckSaved\n"
	"selftest tcp_save_syn";

static void test_parse(void)
{
	struct provides p;
	char err[256], what[256];

	CHECK_EQ_INT(provides_parse(reference, &p, err, sizeof(err)), 0);
	CHECK(p.synack_save && p.ncounters == 4 && p.nselftests == 1, "reference parsed");
	CHECK(provides_counter(&p, "TCPSynAckSaved") && !provides_counter(&p, "TCPSynAck"),
	      "counters by their whole name");
	provides_describe(&p, what, sizeof(what));
	CHECK(!strcmp(what, "synack-save, counters TCPSynSaved TCPSynSaveFail TCPSynNotSavedCookie "
		      "TCPSynAckSaved, selftest tcp_save_syn"), "describe: %s", what);
	CHECK_EQ_INT(provides_parse("", &p, err, sizeof(err)), 0);
	provides_describe(&p, what, sizeof(what));
	CHECK(!strcmp(what, "nothing beyond the stock TCP_SAVE_SYN API"), "describe: %s", what);

	static const struct { const char *text, *err; } bad[] = {
		{ "synack-save\nsynack-save\n", "line 2: 'synack-save' synack-save is declared twice" },
		{ "synack-save now", "line 1: 'synack-save now' synack-save takes no name" },
		{ "counter", "line 1: 'counter' counter needs exactly one name" },
		{ "counter A B", "line 1: 'counter A B' counter needs exactly one name" },
		{ "counter A\ncounter A", "line 2: 'counter A' is declared twice" },
		{ "counter A.b", "line 1: 'counter A.b' needs one name of letters, digits, '_' or '-' "
				 "(at most 47)" },
		{ "selftest", "line 1: 'selftest' selftest needs exactly one name" },
		{ "synack_save", "line 1: 'synack_save' is not a declaration (known: synack-save, "
				 "counter NAME, selftest NAME)" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		CHECK_EQ_INT(provides_parse(bad[i].text, &p, err, sizeof(err)), -1);
		CHECK(!strcmp(err, bad[i].err), "'%s': got '%s', want '%s'", bad[i].text, err,
		      bad[i].err);
	}
}

/* The kernel tree's facts (compare/tree_facts.c): both, once each, or refused with the line. */
static void test_tree_facts(void)
{
	struct tree_facts t;
	char err[256];

	CHECK_EQ_INT(tree_facts_parse("# built in /root/.cache/syntwin/kernel/6.12-3ae21cc46b52c452 "
				      "(vm/lib.sh tree_facts)\nversion 6.12\ntcp_ao n\n", &t, err,
				      sizeof(err)), 0);
	CHECK(t.major == 6 && t.minor == 12 && !t.tcp_ao, "6.12 parsed");
	CHECK(tree_at_least(&t, 6, 7) && tree_at_least(&t, 6, 12) && !tree_at_least(&t, 6, 13) &&
	      !tree_at_least(&t, 7, 0), "6.12 ordered");
	CHECK_EQ_INT(tree_facts_parse("tcp_ao y\nversion 6.1", &t, err, sizeof(err)), 0);
	CHECK(t.minor == 1 && t.tcp_ao && !tree_at_least(&t, 6, 7), "6.1 before 6.7");

	static const struct { const char *text, *err; } bad[] = {
		{ "", "version is missing" },
		{ "version 6.1\n", "tcp_ao is missing" },
		{ "version 6\ntcp_ao n", "line 1: 'version 6' version wants MAJOR.MINOR" },
		{ "version 6.1.5\ntcp_ao n", "line 1: 'version 6.1.5' version wants MAJOR.MINOR" },
		{ "version -6.1\ntcp_ao n", "line 1: 'version -6.1' version wants MAJOR.MINOR" },
		{ "version 6.1\nversion 6.12", "line 2: 'version 6.12' version is given twice" },
		{ "version 6.1\ntcp_ao m", "line 2: 'tcp_ao m' tcp_ao wants y or n" },
		{ "version 6.1 x", "line 1: 'version 6.1 x' wants a fact and one value" },
		{ "kernel 6.1", "line 1: 'kernel 6.1' is not a fact (known: version, tcp_ao)" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		CHECK_EQ_INT(tree_facts_parse(bad[i].text, &t, err, sizeof(err)), -1);
		CHECK(!strcmp(err, bad[i].err), "'%s': got '%s', want '%s'", bad[i].text, err,
		      bad[i].err);
	}
	CHECK_EQ_INT(tree_facts_load("/nonexistent/tree", &t, err, sizeof(err)), -1);
	CHECK(!strcmp(err, "/nonexistent/tree: cannot read it"), "load: %s", err);
	{
		char path[] = "/tmp/test_expect.XXXXXX", big[2000];
		int fd = mkstemp(path);

		memset(big, '#', sizeof(big));
		CHECK(fd >= 0 && write(fd, big, sizeof(big)) == (ssize_t)sizeof(big), "%s", path);
		close(fd);
		CHECK_EQ_INT(tree_facts_load(path, &t, err, sizeof(err)), -1);
		CHECK_STR_CONTAINS(err, ": longer than 1023 bytes");
		unlink(path);
	}
}

/* Records per generator, and those proven as planned (the generators of their own). */
static uint64_t gen_records[GEN_MAX], gen_proven[GEN_MAX];

/* The facts of a clean default run of 10,000 on the reference series (README's numbers): 10,024
 * passive connections, 8 of them reset-before-read's. */
static void clean(struct expect_facts *f, struct plan *p, const struct provides *decl)
{
	*p = (struct plan){ .crafted = 500, .fuzz = 200, .tap = 100, .sockets = 9200,
			    .cookie_tail = 92, .cookie_at = 4600, .held_back = 16, .abandoned = 24,
			    .dup_synack = 16, .expect = 10024, .expect_active = 9216,
			    .own = { [GEN_RESET_BEFORE_READ] = 8 } };
	memset(gen_records, 0, sizeof(gen_records));
	memset(gen_proven, 0, sizeof(gen_proven));
	gen_records[GEN_RESET_BEFORE_READ] = gen_proven[GEN_RESET_BEFORE_READ] = 8;
	*f = (struct expect_facts){
		.plan = p, .decl = decl, .whole_run = true,
		.counter_present = { true, true, true, true },
		.passive = 10024, .active = 9216, .records = 10024 + 9216 + 8 + 24,
		.gen_sockets = 9200, .gen_crafted = 500, .gen_tap = 100, .gen_fuzz = 200,
		.gen_held_back = 16, .gen_dup_synack = 16,
		.abandon_rst = 8, .abandon_expire = 8, .abandon_close = 8,
		.proven_held_back = 16, .proven_dup_synack = 16, .proven_rst = 8, .proven_expire = 8,
		.proven_close = 8, .gen_records = gen_records, .gen_proven = gen_proven,
		.syncookie = 92, .rejected = 8, .cookie_due = 92,
		.tcp_syn_saved = 10024 - 92 + 24, .tcp_synack_saved = 16, .tcp_cookie_not_saved = 92,
		.tcp_tw_overflow = 0,
		.mem_allocs = 10024 + 9216 + 24 - 92, .mem_frees = 10024 + 9216 + 24 - 92,
		.mem_owner_read = true, .mem_owner_check = MEM_OWNER_KMALLOC,
		.active_allocs = 9216,
		.bound = 10024, .active_bound = 9216, .active_ts = 9100, .active_answered = 9100,
	};
}

/* Runs @tweak on a clean run's facts: the expectations that fail are exactly @want ("a|b"),
 * in order, and the first one's line is @first. */
static void fails(const char *what, void (*tweak)(struct expect_facts *f), const char *want,
		  const char *first)
{
	static struct expect_list l;
	struct expect_facts f;
	struct provides decl;
	struct plan p;
	char err[128], line[256] = "", names[512] = "";

	provides_parse(reference, &decl, err, sizeof(err));
	clean(&f, &p, &decl);
	tweak(&f);
	expect_all(&f, &l);
	for (size_t i = 0; i < l.n; i++) {
		if (l.e[i].ok)
			continue;
		if (!line[0])
			expect_line(&l.e[i], line, sizeof(line));
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			 names[0] ? "|" : "", l.e[i].name);
	}
	CHECK(!strcmp(names, want), "%s: failed '%s', want '%s'", what, names, want);
	CHECK(!strcmp(line, first), "%s: first '%s', want '%s'", what, line, first);
}

/* A kernel whose SYN-ACK save broke, with its counter renamed: the old probe tested it less. */
static void synack_hidden(struct expect_facts *f)
{
	f->counter_present[3] = false;
	f->tcp_synack_saved = -1;
	f->mem_allocs = f->mem_frees = f->mem_allocs - 9216;
	f->active_allocs = 0;
}

/* A kernel that answers with cookies where none were due: 50 SYNs lost, each "explained". */
static void cookies_not_due(struct expect_facts *f)
{
	f->cookie_not_due = 50;	/* judged so, each one (judge.c) */
	f->tcp_cookie_not_saved += 50;
	f->tcp_syn_saved -= 50;
	f->mem_allocs = f->mem_frees = f->mem_allocs - 50;
}

static void syn_saved_off(struct expect_facts *f) { f->tcp_syn_saved++; }
/* A SYN-ACK's unread copy replaced by a duplicate's: one allocation more, tied to a SYN-ACK
 * (the judge names the record); the SYN counter is not to blame. */
static void synack_saved_twice(struct expect_facts *f)
{
	f->mem_allocs = ++f->mem_frees;
	f->active_allocs++;
}
static void leak(struct expect_facts *f) { f->mem_frees--; f->mem_live = 1; }
/* The witness's egress program missed a client's ACK: one active record judged without the
 * TSecr cross-check. */
static void answer_unseen(struct expect_facts *f) { f->active_answered--; }
static void dup_unproven(struct expect_facts *f) { f->proven_dup_synack--; }
/* A reset before the read lost one copy: that record is not identical. */
static void reset_copy_lost(struct expect_facts *f)
{
	(void)f;
	gen_proven[GEN_RESET_BEFORE_READ]--;
}
static void freed_elsewhere(struct expect_facts *f) { f->mem_double_elsewhere = 1; }
/* a saved copy allocated outside tcp_rcv_state_process(): tied by tc's last packet */
static void outside_ctx(struct expect_facts *f) { f->mem_outside_ctx = 1; }
/* the first copy freed read as no kmalloc cache's (the layout read wrong), or as nothing; and
 * the same where the follower follows kmem_cache_alloc (no owner read: no expectation) */
/* a second kfree kept out of mem_double (an earlier one at the address) */
static void double_unrecorded(struct expect_facts *f) { f->mem_double_unrecorded = 1; }
static void owner_other(struct expect_facts *f) { f->mem_owner_check = MEM_OWNER_OTHER; }
static void owner_none(struct expect_facts *f) { f->mem_owner_check = MEM_OWNER_UNREAD; }
static void owner_not_read(struct expect_facts *f)
{
	f->mem_owner_read = false;
	f->mem_owner_check = MEM_OWNER_UNREAD;
}
/* A replayed SYN the kernel dropped for a reason its bytes show: a passive connection with no
 * socket and no saved copy. */
static void one_dropped(struct expect_facts *f)
{
	f->dropped = 1;
	f->bound--;
	f->mem_allocs = --f->mem_frees;
	f->tcp_syn_saved--;
}
static void freed_elsewhere_missed(struct expect_facts *f)
{
	f->mem_double_elsewhere = 1;
	f->mem_missed = 3;	/* not judged: the follower may have missed the reuse */
}
/* A second handler held a copy's frame (IP went on with a clone, or it did not: unknown). */
static void shared_clone(struct expect_facts *f) { f->copy_shared_clones = 1; }
static void netem(struct expect_facts *f)
{
	f->wire_faults = true;	/* a repeat child: one more passive record, one more cookie */
	f->cookie_repeat = f->duplicate_children = 1;
	f->passive++;
	f->gen_sockets++;
	f->tcp_cookie_not_saved++;
}

/* The stock kernel's facts: nothing declared, so no active direction (the witness is not on
 * the client's device: every active socket a bind miss) and no counters of the series. */
static void test_stock(void)
{
	static struct expect_list l;
	struct expect_facts f;
	struct provides none;
	struct plan p;
	char err[128];

	provides_parse("", &none, err, sizeof(err));
	clean(&f, &p, &none);
	p.expect_active = p.dup_synack = 0;
	f.active = f.gen_dup_synack = f.proven_dup_synack = f.active_bound = f.active_allocs = 0;
	f.active_bind_miss = 9200;
	f.mem_allocs = f.mem_frees = f.mem_allocs - 9216;
	f.tcp_syn_saved = f.tcp_synack_saved = f.tcp_cookie_not_saved = -1;
	f.records -= 9216;
	expect_all(&f, &l);
	CHECK(l.failed == 0 && l.n == 40, "stock: %zu of %zu failed, want 0 of 40", l.failed, l.n);
	for (size_t i = 0; i < l.n; i++)
		CHECK(l.e[i].ok, "stock: %s got %lld want %lld", l.e[i].name,
		      (long long)l.e[i].got, (long long)l.e[i].want);
}

static void test_expect(void)
{
	static struct expect_list l;
	struct expect_facts f;
	struct provides decl;
	struct plan p;
	char err[128];

	provides_parse(reference, &decl, err, sizeof(err));
	clean(&f, &p, &decl);
	expect_all(&f, &l);
	CHECK(l.failed == 0 && l.n == 49, "clean run: %zu of %zu failed, want 0 of 49", l.failed, l.n);
	for (size_t i = 0; i < l.n; i++)
		CHECK(l.e[i].ok, "clean run: %s got %lld want %lld", l.e[i].name,
		      (long long)l.e[i].got, (long long)l.e[i].want);
	fails("synack hidden", synack_hidden,
	      "counter TCPSynAckSaved present|TCPSynAckSaved|saved copies",
	      "counter TCPSynAckSaved present 0, want 1 (declared by the series)");
	fails("cookies not due", cookies_not_due, "syncookie connections",
	      "syncookie connections 142, want 92 (the plan's forced window, less TIME_WAIT "
	      "reopenings)");
	fails("TCPSynSaved off by one", syn_saved_off, "TCPSynSaved",
	      "TCPSynSaved 9957, want 9956 (declared by the series)");
	fails("a leak", leak, "saved copies freed|saved copies outstanding",
	      "saved copies freed 19171, want 19172 (always)");
	fails("dup-synack unproven", dup_unproven, "dup-synack proven syn-retransmit",
	      "dup-synack proven syn-retransmit 15, want 16 (always)");
	fails("reset before the read, a copy lost", reset_copy_lost, "reset-before-read proven",
	      "reset-before-read proven 7, want 8 (always)");
	fails("a faulty wire", netem, "", "");
	fails("an answer unseen", answer_unseen, "active answers seen",
	      "active answers seen 9099, want 9100 (a wire without faults)");
	fails("a SYN-ACK saved twice", synack_saved_twice, "saved copies",
	      "saved copies 19173, want 19172 (a wire without faults)");
	fails("a replayed SYN dropped", one_dropped, "", "");
	fails("freed again elsewhere", freed_elsewhere, "saved copies freed again elsewhere",
	      "saved copies freed again elsewhere 1, want 0 (the follower missed no run)");
	fails("freed again, runs missed", freed_elsewhere_missed, "", "");
	fails("a copy made outside TCP's receive", outside_ctx,
	      "saved copies made outside tcp_rcv_state_process",
	      "saved copies made outside tcp_rcv_state_process 1, want 0 (always)");
	fails("the first copy's owner another cache", owner_other,
	      "first copy freed owned by a kmalloc cache",
	      "first copy freed owned by a kmalloc cache 2, want 1 (kmem_cache_alloc not followed)");
	fails("the first copy's owner unread", owner_none, "first copy freed owned by a kmalloc cache",
	      "first copy freed owned by a kmalloc cache 0, want 1 (kmem_cache_alloc not followed)");
	fails("kmem_cache_alloc followed", owner_not_read, "", "");
	fails("a second kfree unrecorded", double_unrecorded, "second kfrees unrecorded",
	      "second kfrees unrecorded 1, want 0 (always)");
	fails("a copy cloned while shared", shared_clone, "copies cloned while shared",
	      "copies cloned while shared 1, want 0 (always)");
}

int main(void)
{
	test_parse();
	test_tree_facts();
	test_expect();
	test_stock();
	return check_report("expect");
}
