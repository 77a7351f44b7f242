// SPDX-License-Identifier: GPL-2.0
/*
 * syntwin-plan: a run's plan (plan.h) into DIR/plan.json. A run's driver (syntwin-server,
 * gen/driver.c) plans its run itself; `syntwin merge` (record/merge.sh) asks this tool for
 * the whole run's plan of a sharded one.
 * usage: syntwin-plan --out DIR --connections N --seed S --mix MIX [--active]
 *        [--replay SYNS] [--rerun CRAFTED,FUZZ,TAP,SOCKETS]
 *        [--shard I/N --selected CRAFTED,FUZZ,TAP,SOCKETS] [--provides FILE]
 *        syntwin-plan --provides FILE --list counters|selftests
 *        syntwin-plan --provides FILE --declares synack-save
 * The last two read a series' declaration (provides.h) for the shell: the names one a line,
 * or exit 0 if it declares the SYN-ACK save and 1 if not; a bad file is exit 2, named.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse_num.h"
#include "plan.h"
#include "provides.h"
#include "report.h"

static const char usage[] =
	"usage: syntwin-plan --out DIR --connections N --seed S --mix MIX [--active]\n"
	"                    [--replay SYNS] [--rerun CRAFTED,FUZZ,TAP,SOCKETS]\n"
	"                    [--shard I/N --selected CRAFTED,FUZZ,TAP,SOCKETS] [--provides FILE]\n"
	"       syntwin-plan --provides FILE --list counters|selftests\n"
	"       syntwin-plan --provides FILE --declares synack-save\n";

/* What --provides, --list and --declares asked for. */
struct query {
	const char *provides, *list, *declares;
	struct provides decl;
};

/* --rerun's (--selected's) four counts, each what that generator selects of the earlier run
 * (of its whole sequence). */
static int parse_counts(const char *flag, const char *v, struct plan_input *in, char *err,
			size_t errlen)
{
	uint64_t *dst[4] = { &in->rerun_crafted, &in->rerun_fuzz, &in->rerun_tap,
			     &in->rerun_sockets };
	char buf[128], *save = NULL, *tok;
	int i = 0;

	if (strlen(v) >= sizeof(buf)) {
		snprintf(err, errlen, "%s: '%s' is too long", flag, v);
		return -1;
	}
	strcpy(buf, v);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save), i++)
		if (i >= 4 || parse_u64_range(flag, tok, 0, UINT64_MAX / 4, dst[i], err, errlen))
			break;
	if (i != 4 || tok) {
		if (i >= 4 || !tok)
			snprintf(err, errlen, "%s: '%s' is not four counts", flag, v);
		return -1;
	}
	return 0;
}

static int parse(int argc, char **argv, struct plan_input *in, const char **dir,
		 struct query *q, char *err, size_t errlen)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int rc = 0;

		if (!strcmp(a, "--active")) {
			in->active = true;
			continue;
		}
		if (!v) {
			snprintf(err, errlen, "%s needs a value", a);
			return -1;
		}
		i++;
		if (!strcmp(a, "--out"))
			*dir = v;
		else if (!strcmp(a, "--provides"))
			q->provides = v;
		else if (!strcmp(a, "--list") && (!strcmp(v, "counters") || !strcmp(v, "selftests")))
			q->list = v;
		else if (!strcmp(a, "--declares") && !strcmp(v, "synack-save"))
			q->declares = v;
		else if (!strcmp(a, "--connections"))
			rc = parse_u64_range(a, v, 1, 100000000, &in->connections, err, errlen);
		else if (!strcmp(a, "--seed"))
			rc = parse_u64_range(a, v, 0, 999999999999999999ULL, &in->seed, err, errlen);
		else if (!strcmp(a, "--mix"))
			in->mix = v;
		else if (!strcmp(a, "--replay"))
			rc = parse_u64_range(a, v, 0, 100000000, &in->replay, err, errlen);
		else if (!strcmp(a, "--rerun") || !strcmp(a, "--selected")) {
			rc = parse_counts(a, v, in, err, errlen);
			in->rerun |= !strcmp(a, "--rerun");
			in->selected = true;
		}
		else if (!strcmp(a, "--shard"))
			rc = parse_shard(v, &in->shard, &in->shards, err, errlen);
		else
			snprintf(err, errlen, "unknown option '%s'", a), rc = -1;
		if (rc)
			return -1;
	}
	if (q->provides && provides_load(q->provides, &q->decl, err, errlen))
		return -1;
	if (q->list || q->declares) {
		if (!q->provides || *dir || (q->list && q->declares)) {
			snprintf(err, errlen, "--list or --declares: with --provides alone");
			return -1;
		}
		return 0;
	}
	if (q->provides)
		in->declared = &q->decl;
	if (!*dir || !in->connections || !in->mix) {
		snprintf(err, errlen, "--out, --connections and --mix are required");
		return -1;
	}
	if ((in->shards > 1) != (in->selected && !in->rerun)) {
		snprintf(err, errlen, "--shard and --selected go together");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct plan_input in = { 0 };
	static struct query q;
	struct plan p;
	const char *dir = NULL;
	char err[512], *doc;
	int rc;

	if (parse(argc, argv, &in, &dir, &q, err, sizeof(err))) {
		fprintf(stderr, "syntwin-plan: %s\n%s", err, usage);
		return 2;
	}
	if (q.declares)
		return q.decl.synack_save ? 0 : 1;
	if (q.list) {
		bool counters = !strcmp(q.list, "counters");
		size_t n = counters ? q.decl.ncounters : q.decl.nselftests;

		for (size_t i = 0; i < n; i++)
			printf("%s\n", counters ? q.decl.counter[i] : q.decl.selftest[i]);
		return 0;
	}
	if (plan_make(&in, &p, err, sizeof(err))) {
		fprintf(stderr, "syntwin-plan: %s\n%s", err, usage);
		return 2;
	}
	doc = plan_json(&in, &p);
	if (!doc) {
		fprintf(stderr, "syntwin-plan: out of memory\n");
		return 2;
	}
	rc = write_file_atomic(dir, "plan.json", doc) ? 2 : 0;
	free(doc);
	return rc;
}
