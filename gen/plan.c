// SPDX-License-Identifier: GPL-2.0
/* The plan of a run (plan.h). */
#include "plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_out.h"
#include "provides.h"

/* The share of each crafted generator in the default mix, in parts per 100. */
#define DEFAULT_CRAFTED_PCT 5	/* profile shapes on tun0 */
#define DEFAULT_FUZZ_PCT 2	/* fuzzed shapes on tun0 */
#define DEFAULT_TAP_PCT 1	/* profile shapes as Ethernet frames on tap0 */
#define COOKIE_TAIL_PCT 1	/* socket connections made with syncookies forced */
#define PLANNED_HELD_BACK 16	/* per family and mode: 4 */
#define PLANNED_ABANDONED 24	/* 8 reset, 8 left to expire, 8 whose listener closes */
#define PLANNED_DUP_SYNACK 16	/* active only */

static const char *const mixes[] = { "default", "sockets", "crafted", "fuzz", "plain", "replay" };

int plan_make(const struct plan_input *in, struct plan *p, char *err, size_t errlen)
{
	const char *m = in->mix;
	uint64_t n = in->connections;
	bool known = false;

	for (size_t i = 0; i < sizeof(mixes) / sizeof(mixes[0]); i++)
		known |= m && !strcmp(m, mixes[i]);
	if (!known) {
		snprintf(err, errlen, "mix '%s': known mixes are default, sockets, crafted, fuzz, "
			 "plain, replay", m ? m : "");
		return -1;
	}
	memset(p, 0, sizeof(*p));
	if (!strcmp(m, "default")) {
		p->crafted = n * DEFAULT_CRAFTED_PCT / 100;
		p->fuzz = n * DEFAULT_FUZZ_PCT / 100;
		p->tap = n * DEFAULT_TAP_PCT / 100;
	} else if (!strcmp(m, "crafted")) {
		p->crafted = n;
	} else if (!strcmp(m, "fuzz")) {
		p->fuzz = n;
	} else if (!strcmp(m, "replay")) {
		p->replay = in->replay;
	}
	if (strcmp(m, "replay"))
		p->sockets = n - p->crafted - p->fuzz - p->tap;
	p->cookie_tail = p->sockets * COOKIE_TAIL_PCT / 100;
	/* in the middle: the half after it runs while the listener still counts as recently
	 * flooded, where a kernel must save SYNs as usual */
	p->cookie_at = p->sockets / 2;
	if ((!strcmp(m, "default") || !strcmp(m, "crafted")) && !(in->shards > 1 && in->shard)) {
		p->held_back = PLANNED_HELD_BACK;
		p->abandoned = PLANNED_ABANDONED;
		p->dup_synack = in->active ? PLANNED_DUP_SYNACK : 0;
		/* a rerun makes again what was not identical: a generator of its own whose
		 * records are identical by plan (no planned reason) has nothing to make again */
		for (int g = 0; g < GEN_MAX; g++)
			p->own[g] = in->rerun && gen_rows[g].planned == R_NONE ? 0 :
									  gen_rows[g].per_run;
	}
	for (int g = 0; g < GEN_MAX; g++)
		p->own_seed[g] = in->seed + gen_rows[g].seed_offset;
	p->seed_sockets = p->seed_crafted = in->seed;
	p->seed_planned = in->seed + 3;
	p->seed_fuzz = in->seed + 7;
	p->seed_tap = in->seed + 13;
	p->client_mix = strcmp(m, "plain") ? "default" : "plain";
	/* every connection, or in a rerun or a shard what each generator selects; the planned
	 * handshakes are made again in a rerun (none of them is identical, by design) */
	if (in->rerun || in->selected) {
		uint64_t sel_sockets = p->sockets ? in->rerun_sockets : 0;

		p->expect = (p->crafted ? in->rerun_crafted : 0) + (p->fuzz ? in->rerun_fuzz : 0) +
			    (p->tap ? in->rerun_tap : 0) + sel_sockets + p->replay;
		p->expect_active = sel_sockets;
	} else {
		p->expect = strcmp(m, "replay") ? n : p->replay;
		p->expect_active = p->sockets;
	}
	p->expect += p->held_back;
	for (int g = 0; g < GEN_MAX; g++)
		p->expect += p->own[g];
	p->expect_active += p->dup_synack;
	if (!in->active)
		p->expect_active = 0;
	return 0;
}

char *plan_json(const struct plan_input *in, const struct plan *p)
{
	struct json_out j;
	const char *doc;
	char *copy;

	json_init(&j, true);
	json_open(&j, NULL, '{');
	json_u64(&j, "connections", in->connections);
	json_u64(&j, "seed", in->seed);
	json_str(&j, "mix", in->mix);
	json_bool(&j, "active", in->active);
	/* what the series declares, the source of every expectation on the kernel (expect.h) */
	if (in->declared)
		provides_json(&j, "declared", in->declared);
	json_bool(&j, "rerun", in->rerun);
	json_u64(&j, "shard", in->shards > 1 ? in->shard : 0);
	json_u64(&j, "shards", in->shards > 1 ? in->shards : 1);
	json_open(&j, "generators", '{');
	json_u64(&j, "sockets", p->sockets);
	json_u64(&j, "crafted", p->crafted);
	json_u64(&j, "fuzz", p->fuzz);
	json_u64(&j, "crafted-tap", p->tap);
	json_u64(&j, "replay", p->replay);
	json_u64(&j, "held-back", p->held_back);
	json_u64(&j, "abandoned", p->abandoned);
	json_u64(&j, "dup-synack", p->dup_synack);
	for (int g = 0; g < GEN_MAX; g++)
		if (gen_rows[g].per_run)
			json_u64(&j, gen_rows[g].name, p->own[g]);
	json_close(&j);
	json_open(&j, "seeds", '{');
	json_u64(&j, "sockets", p->seed_sockets);
	json_u64(&j, "crafted", p->seed_crafted);
	json_u64(&j, "planned", p->seed_planned);
	json_u64(&j, "fuzz", p->seed_fuzz);
	json_u64(&j, "crafted-tap", p->seed_tap);
	for (int g = 0; g < GEN_MAX; g++)
		if (gen_rows[g].per_run)
			json_u64(&j, gen_rows[g].name, p->own_seed[g]);
	json_close(&j);
	json_u64(&j, "syncookie_tail", p->cookie_tail);
	json_u64(&j, "syncookie_at", p->cookie_at);
	json_str(&j, "client_mix", p->client_mix);
	json_u64(&j, "expect", p->expect);
	json_u64(&j, "expect_active", p->expect_active);
	json_close(&j);
	doc = json_done(&j);
	copy = doc ? strdup(doc) : NULL;
	json_free(&j);
	return copy;
}
