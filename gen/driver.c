// SPDX-License-Identifier: GPL-2.0
/* syntwin-server's plan (driver.h). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "parse_num.h"
#include "report.h"

/* The one number @cmd (a generator's --count, through the shell) prints. Returns 0, or -1
 * (printed): the command failed or printed no number. */
static int count_of(const char *cmd, uint64_t *n)
{
	unsigned long long v;
	FILE *f = popen(cmd, "re");
	int got, status;

	if (!f) {
		fprintf(stderr, "syntwin-server: cannot run '%s'\n", cmd);
		return -1;
	}
	got = fscanf(f, "%llu", &v);
	status = pclose(f);
	if (got != 1 || status != 0) {
		fprintf(stderr, "syntwin-server: '%s' gave no count (status %d)\n", cmd, status);
		return -1;
	}
	*n = v;
	return 0;
}

/* What each generator selects (crafted, fuzz, tap, sockets), each of its sequence of the
 * given length (@len NULL: an earlier run's records), into @in's rerun_* counts. */
static int selection_counts(const char *sel, const uint64_t *len, uint64_t seed,
			    const char *tree, struct plan_input *in)
{
	static const char *const gen[4] = { "syntwin-crafted", "syntwin-crafted --fuzz",
					    "syntwin-crafted --tap", "syntwin-client" };
	uint64_t *dst[4] = { &in->rerun_crafted, &in->rerun_fuzz, &in->rerun_tap,
			     &in->rerun_sockets };
	char cmd[1024], size[64] = "";

	for (int g = 0; g < 4; g++) {
		/* (each with the run's seed, as the crafted run has it: no count depends on it) */
		if (len)
			snprintf(size, sizeof(size), " --connections %llu --seed %llu",
				 (unsigned long long)len[g], (unsigned long long)seed);
		snprintf(cmd, sizeof(cmd), "%s%s %s --count", gen[g], size, sel);
		if (g < 3)
			snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), " --tree %s", tree);
		if (count_of(cmd, dst[g]))
			return -1;
	}
	in->selected = true;
	return 0;
}

/* A shard's counts: the whole run's plan first, then each generator's slice of its share. */
static int shard_counts(const struct driver_args *a, const char *sel, struct plan_input *in)
{
	struct plan whole;
	char err[256];
	uint64_t len[4];

	if (plan_make(in, &whole, err, sizeof(err)) ||
	    parse_shard(a->shard, &in->shard, &in->shards, err, sizeof(err))) {
		fprintf(stderr, "syntwin-server: %s\n", err);
		return -1;
	}
	len[0] = whole.crafted, len[1] = whole.fuzz, len[2] = whole.tap, len[3] = whole.sockets;
	return selection_counts(sel, len, a->seed, a->tree, in);
}

int driver_plan(const struct driver_args *a, struct plan_input *in, struct plan *p)
{
	char sel[600] = "", cmd[1024], err[256], *doc;
	int rc;

	*in = (struct plan_input){ .connections = a->connections, .seed = a->seed, .mix = a->mix,
				   .active = a->active, .declared = a->declared };
	if (a->rerun)
		snprintf(sel, sizeof(sel), "--rerun %s", a->rerun);
	else if (a->shard)
		snprintf(sel, sizeof(sel), "--shard %s", a->shard);
	if (!strcmp(a->mix, "replay")) {
		snprintf(cmd, sizeof(cmd), "syntwin-crafted --replay %s/replay.pcap %s --count",
			 a->out, sel);
		if (count_of(cmd, &in->replay))
			return -1;
	} else if (a->rerun) {
		in->rerun = true;
		if (selection_counts(sel, NULL, a->seed, a->tree, in))
			return -1;
	} else if (a->shard && shard_counts(a, sel, in)) {
		return -1;
	}
	if (plan_make(in, p, err, sizeof(err))) {
		fprintf(stderr, "syntwin-server: %s\n", err);
		return -1;
	}
	doc = plan_json(in, p);
	rc = doc && !write_file_atomic(a->out, "plan.json", doc) ? 0 : -1;
	free(doc);
	if (rc)
		fprintf(stderr, "syntwin-server: cannot write %s/plan.json\n", a->out);
	else if (a->rerun)
		printf("rerun: %llu connection(s) that were not identical\n",
		       (unsigned long long)p->expect);
	return rc;
}
