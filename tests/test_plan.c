// SPDX-License-Identifier: GPL-2.0
/*
 * The run's plan (gen/plan.c), each number fixed by hand: the default mix of 10,000 (what
 * the README's run shows), without the active direction, every other mix, a replay, a rerun,
 * the smallest run, and an unknown mix refused. o: the generator of its own (registry.h),
 * reset-before-read: 8 with the planned handshakes, its seed the run's + 17.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "plan.h"

/* The plan of @in as one line: generators, syncookie tail, planned, expectations, seeds. */
static const char *line(const struct plan_input *in)
{
	static char buf[256];
	char err[128];
	struct plan p;

	if (plan_make(in, &p, err, sizeof(err)))
		return err[0] ? strcpy(buf, err) : "error";
	snprintf(buf, sizeof(buf),
		 "s%llu c%llu f%llu t%llu r%llu | cookie %llu@%llu | h%llu a%llu d%llu o%llu | "
		 "expect %llu/%llu | seeds %llu %llu %llu %llu %llu %llu | %s",
		 (unsigned long long)p.sockets, (unsigned long long)p.crafted,
		 (unsigned long long)p.fuzz, (unsigned long long)p.tap, (unsigned long long)p.replay,
		 (unsigned long long)p.cookie_tail, (unsigned long long)p.cookie_at,
		 (unsigned long long)p.held_back, (unsigned long long)p.abandoned,
		 (unsigned long long)p.dup_synack,
		 (unsigned long long)p.own[GEN_RESET_BEFORE_READ], (unsigned long long)p.expect,
		 (unsigned long long)p.expect_active, (unsigned long long)p.seed_sockets,
		 (unsigned long long)p.seed_crafted, (unsigned long long)p.seed_planned,
		 (unsigned long long)p.seed_fuzz, (unsigned long long)p.seed_tap,
		 (unsigned long long)p.own_seed[GEN_RESET_BEFORE_READ], p.client_mix);
	return buf;
}

#define PLAN(want, ...)                                                                    \
	do {                                                                               \
		struct plan_input in = { __VA_ARGS__ };                                     \
		const char *got = line(&in);                                                \
		CHECK(!strcmp(got, want), "plan: got '%s', want '%s'", got, want);          \
	} while (0)

int main(void)
{
	struct plan_input in = { .connections = 10000, .seed = 1, .mix = "default", .active = true };
	struct plan p;
	char *doc;

	PLAN("s9200 c500 f200 t100 r0 | cookie 92@4600 | h16 a24 d16 o8 | expect 10024/9216 | "
	     "seeds 1 1 4 8 14 18 | default",
	     .connections = 10000, .seed = 1, .mix = "default", .active = true);
	/* no SYN-ACK saving: no active records, no duplicate SYN-ACKs */
	PLAN("s9200 c500 f200 t100 r0 | cookie 92@4600 | h16 a24 d0 o8 | expect 10024/0 | "
	     "seeds 5 5 8 12 18 22 | default",
	     .connections = 10000, .seed = 5, .mix = "default");
	PLAN("s1000 c0 f0 t0 r0 | cookie 10@500 | h0 a0 d0 o0 | expect 1000/1000 | "
	     "seeds 1 1 4 8 14 18 | default",
	     .connections = 1000, .seed = 1, .mix = "sockets", .active = true);
	PLAN("s1000 c0 f0 t0 r0 | cookie 10@500 | h0 a0 d0 o0 | expect 1000/1000 | "
	     "seeds 1 1 4 8 14 18 | plain",
	     .connections = 1000, .seed = 1, .mix = "plain", .active = true);
	/* crafted only: no socket connections, but the planned duplicate SYN-ACKs are active */
	PLAN("s0 c100 f0 t0 r0 | cookie 0@0 | h16 a24 d16 o8 | expect 124/16 | "
	     "seeds 2 2 5 9 15 19 | default",
	     .connections = 100, .seed = 2, .mix = "crafted", .active = true);
	PLAN("s0 c0 f300 t0 r0 | cookie 0@0 | h0 a0 d0 o0 | expect 300/0 | seeds 2 2 5 9 15 19 | "
	     "default",
	     .connections = 300, .seed = 2, .mix = "fuzz", .active = true);
	/* a replay waits for the capture's SYNs, whatever size was asked, and for nothing else */
	PLAN("s0 c0 f0 t0 r37 | cookie 0@0 | h0 a0 d0 o0 | expect 37/0 | seeds 1 1 4 8 14 18 | "
	     "default",
	     .connections = 10000, .seed = 1, .mix = "replay", .replay = 37, .active = true);
	PLAN("s0 c0 f0 t0 r0 | cookie 0@0 | h0 a0 d0 o0 | expect 0/0 | seeds 1 1 4 8 14 18 | default",
	     .connections = 10000, .seed = 1, .mix = "replay", .active = true);
	/* a rerun: each generator's selection, the planned handshakes all again (not
	 * reset-before-read: its records are identical by plan); a generator the mix does not
	 * run counts nothing, whatever it would select */
	PLAN("s9200 c500 f200 t100 r0 | cookie 92@4600 | h16 a24 d16 o0 | expect 25/21 | "
	     "seeds 1 1 4 8 14 18 | default",
	     .connections = 10000, .seed = 1, .mix = "default", .active = true, .rerun = true,
	     .rerun_crafted = 3, .rerun_fuzz = 1, .rerun_tap = 0, .rerun_sockets = 5);
	PLAN("s1000 c0 f0 t0 r0 | cookie 10@500 | h0 a0 d0 o0 | expect 5/5 | seeds 1 1 4 8 14 18 | "
	     "default",
	     .connections = 1000, .seed = 1, .mix = "sockets", .active = true, .rerun = true,
	     .rerun_crafted = 3, .rerun_fuzz = 1, .rerun_tap = 2, .rerun_sockets = 5);
	/* a shard: each generator's slice of the whole run's sequence; the planned handshakes
	 * all in shard 0, none in the others */
	PLAN("s1840 c100 f40 t20 r0 | cookie 18@920 | h16 a24 d16 o8 | expect 524/476 | "
	     "seeds 5 5 8 12 18 22 | default",
	     .connections = 2000, .seed = 5, .mix = "default", .active = true, .selected = true,
	     .shard = 0, .shards = 4, .rerun_crafted = 25, .rerun_fuzz = 10, .rerun_tap = 5,
	     .rerun_sockets = 460);
	PLAN("s1840 c100 f40 t20 r0 | cookie 18@920 | h0 a0 d0 o0 | expect 500/460 | "
	     "seeds 5 5 8 12 18 22 | default",
	     .connections = 2000, .seed = 5, .mix = "default", .active = true, .selected = true,
	     .shard = 3, .shards = 4, .rerun_crafted = 25, .rerun_fuzz = 10, .rerun_tap = 5,
	     .rerun_sockets = 460);
	/* the smallest run: every share rounds down to nothing but the client's */
	PLAN("s1 c0 f0 t0 r0 | cookie 0@0 | h16 a24 d16 o8 | expect 25/17 | seeds 0 0 3 7 13 17 | "
	     "default",
	     .connections = 1, .seed = 0, .mix = "default", .active = true);
	PLAN("mix 'nope': known mixes are default, sockets, crafted, fuzz, plain, replay",
	     .connections = 10, .mix = "nope");

	CHECK_EQ_INT(plan_make(&in, &p, NULL, 0), 0);
	doc = plan_json(&in, &p);
	CHECK(doc != NULL, "plan_json");
	if (doc) {
		CHECK_STR_CONTAINS(doc, "\"generators\": {\"sockets\": 9200, \"crafted\": 500, "
					"\"fuzz\": 200, \"crafted-tap\": 100, \"replay\": 0, "
					"\"held-back\": 16, \"abandoned\": 24, \"dup-synack\": 16, "
					"\"reset-before-read\": 8}");
		CHECK_STR_CONTAINS(doc, "\"crafted-tap\": 14, \"reset-before-read\": 18}");
		CHECK_STR_CONTAINS(doc, "\"expect\": 10024,\n  \"expect_active\": 9216");
		CHECK_STR_CONTAINS(doc, "\"rerun\": false,\n  \"shard\": 0,\n  \"shards\": 1,");
		free(doc);
	}
	in = (struct plan_input){ .connections = 2000, .seed = 5, .mix = "default", .selected = true,
				  .shard = 2, .shards = 4, .rerun_sockets = 460 };
	CHECK_EQ_INT(plan_make(&in, &p, NULL, 0), 0);
	doc = plan_json(&in, &p);
	CHECK(doc != NULL, "plan_json");
	if (doc) {
		CHECK_STR_CONTAINS(doc, "\"shard\": 2,\n  \"shards\": 4,");
		free(doc);
	}
	return check_report("plan");
}
