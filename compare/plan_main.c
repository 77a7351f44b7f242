// SPDX-License-Identifier: GPL-2.0
/*
 * syntwin-plan: a run's plan (plan.h) into DIR/plan.json. A run's driver (syntwin-server,
 * compare/driver.c) plans its run itself; `syntwin merge` (compare/merge.sh) asks this tool for
 * the whole run's plan of a sharded one.
 * usage: syntwin-plan --out DIR --connections N --seed S --mix MIX [--active]
 *        [--replay SYNS] [--rerun CRAFTED,FUZZ,TAP,SOCKETS]
 *        [--shard I/N --selected CRAFTED,FUZZ,TAP,SOCKETS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse_num.h"
#include "plan.h"
#include "report.h"

static const char usage[] =
	"usage: syntwin-plan --out DIR --connections N --seed S --mix MIX [--active]\n"
	"                    [--replay SYNS] [--rerun CRAFTED,FUZZ,TAP,SOCKETS]\n"
	"                    [--shard I/N --selected CRAFTED,FUZZ,TAP,SOCKETS]\n";

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

static int parse(int argc, char **argv, struct plan_input *in, const char **dir, char *err,
		 size_t errlen)
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
	struct plan p;
	const char *dir = NULL;
	char err[256], *doc;
	int rc;

	if (parse(argc, argv, &in, &dir, err, sizeof(err)) ||
	    plan_make(&in, &p, err, sizeof(err))) {
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
