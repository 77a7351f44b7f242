// SPDX-License-Identifier: GPL-2.0
/* The selection of a rerun (rerun.h). */
#include "rerun.h"

#include "parse_num.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The value of "key":"..." in @line is one of the comma-separated @names. */
static bool str_is(const char *line, const char *key, const char *names)
{
	char pat[48], val[48];
	const char *p, *e;

	snprintf(pat, sizeof(pat), "\"%s\":\"", key);
	p = strstr(line, pat);
	if (!p)
		return false;
	p += strlen(pat);
	e = strchr(p, '"');
	if (!e || e - p >= (long)sizeof(val))
		return false;
	snprintf(val, sizeof(val), "%.*s", (int)(e - p), p);
	for (const char *n = names; *n;) {
		size_t l = strcspn(n, ",");

		if (l == strlen(val) && !strncmp(n, val, l))
			return true;
		n += l + (n[l] == ',');
	}
	return false;
}

int rerun_load(const char *jsonl, const char *gen, struct rerun_set *set)
{
	static char line[8192];
	size_t cap = 0;
	FILE *f = fopen(jsonl, "re");

	set->idx = NULL;
	set->n = 0;
	set->from_run = true;
	if (!f) {
		perror(jsonl);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, "\"gen_index\":");

		if (!p || str_is(line, "verdict", "identical") || !str_is(line, "gen", gen))
			continue;
		if (set->n == cap) {
			uint64_t *m = realloc(set->idx, (cap = cap ? 2 * cap : 256) * sizeof(*m));

			if (!m) {
				fclose(f);
				return -1;
			}
			set->idx = m;
		}
		set->idx[set->n++] = strtoull(p + 12, NULL, 10);
	}
	fclose(f);
	qsort(set->idx, set->n, sizeof(*set->idx), cmp);
	size_t u = 0;

	for (size_t i = 0; i < set->n; i++)
		if (!u || set->idx[u - 1] != set->idx[i])
			set->idx[u++] = set->idx[i];
	set->n = u;
	return 0;
}

int shard_parse(const char *v, struct rerun_set *set, char *err, size_t errlen)
{
	return parse_shard(v, &set->shard, &set->shards, err, errlen);
}

bool rerun_active(const struct rerun_set *set)
{
	return set->from_run || set->shards > 1;
}

bool rerun_has(const struct rerun_set *set, uint64_t i)
{
	if (set->shards > 1 && i % set->shards != set->shard)
		return false;
	return !set->from_run || bsearch(&i, set->idx, set->n, sizeof(*set->idx), cmp) != NULL;
}
