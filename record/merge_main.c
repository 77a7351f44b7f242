// SPDX-License-Identifier: GPL-2.0
/*
 * syntwin-merge: the JSON half of `syntwin merge` (record/merge.sh runs it; Wireshark's editcap
 * and mergecap do the captures).
 *
 * syntwin-merge --out TMP DIR...
 *	DIR... are the N shards of one seeded run (`syntwin run --shard I/N`), each once: same N,
 *	seed, mix, kernel, series and declaration, same size. Writes into TMP, as the unsharded
 *	run would have: connections.jsonl (the shards' records in shard order, numbered again
 *	without a gap, each keeping its shard "I/N" and its number there, shard_n), summary.json
 *	(summary_merge.h, the distinct shapes and the fingerprints per generator counted again
 *	from the merged records by the run's own code), plan.json (the whole run's plan) and
 *	provides. Prints one line a shard, in shard order: "K OFFSET DIR", OFFSET the number of its
 *	first record in the merged run (editcap -t). Exit 0; 2 on bad input, named.
 * syntwin-merge --verdict OUT
 *	The merged run's outcome, like `syntwin run`'s: every failed expectation (naming its shard)
 *	and the result line; exit 0, or 1 if a shard was partial, anything is unexplained or an
 *	expectation failed.
 */
#define _GNU_SOURCE /* asprintf */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge_recount.h"
#include "plan.h"
#include "provides.h"
#include "report.h"
#include "summary_merge.h"
#include "text_file.h"

static const char usage[] = "usage: syntwin-merge --out TMP SHARD_DIR...\n"
			    "       syntwin-merge --verdict OUT\n";

struct shard {
	const char *dir;
	json_t *summary, *plan;
	unsigned long long i, of;	/* shard i of N */
	unsigned long long records;
};

static void __attribute__((noreturn)) leave(int status, const char *prefix, const char *fmt,
					    va_list ap)
{
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	exit(status);
}

/* Bad input: exit 2 with "syntwin: merge: ..." (the shell's usage_die). */
static void __attribute__((noreturn, format(printf, 1, 2))) bad(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	leave(2, "syntwin: merge: ", fmt, ap);
}

/* The merge itself failed (a write, memory): exit 1, "syntwin: error: merge: ..." (die). */
static void __attribute__((noreturn, format(printf, 1, 2))) failed(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	leave(1, "syntwin: error: merge: ", fmt, ap);
}

static json_t *load(const char *dir, const char *name)
{
	char path[4096];
	json_error_t e;
	json_t *j;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	j = json_load_file(path, JSON_DECODE_ANY, &e);
	if (!j)
		bad("%s could not be read: %s (line %d)", path, e.text, e.line);
	return j;
}

/* The shard's "I/N", else it is no shard. */
static void shard_of(struct shard *s)
{
	const char *v = json_string_value(json_object_get(s->summary, "shard"));
	int end = 0;

	if (!v || !isdigit((unsigned char)v[0]) ||
	    sscanf(v, "%llu/%llu%n", &s->i, &s->of, &end) != 2 || v[end] || s->i >= s->of)
		bad("%s is not a shard (its summary names no I/N)", s->dir);
}

/* @key's values equal in @a and @b, or missing from both */
static bool same(const json_t *a, const json_t *b, const char *key)
{
	const json_t *x = json_object_get(a, key), *y = json_object_get(b, key);

	return (!x && !y) || json_equal(x, y);
}

static void same_file(const struct shard *s, const struct shard *first, const char *name)
{
	char pa[4096], pb[4096];
	char *a, *b;
	bool eq;

	snprintf(pa, sizeof(pa), "%s/%s", s->dir, name);
	snprintf(pb, sizeof(pb), "%s/%s", first->dir, name);
	a = text_file_all(pa);
	b = text_file_all(pb);
	if (!a || !b)
		bad("%s: %s", a ? pb : pa, strerror(errno));
	eq = !strcmp(a, b);
	free(a);
	free(b);
	if (!eq)
		bad("%s ran under another series declaration (provides) than %s", s->dir, first->dir);
}

/* Every directory one shard of one run, each I once (the shell checked the files are there). */
static void check_shards(struct shard *s, size_t n)
{
	static const char *const run_keys[] = { "seed", "mix", "kernel", "series_hash" };

	for (size_t k = 0; k < n; k++) {
		shard_of(&s[k]);
		if (s[k].of != n)
			bad("%s is shard %llu/%llu: %zu directories given", s[k].dir, s[k].i, s[k].of, n);
		for (size_t r = 0; r < sizeof(run_keys) / sizeof(run_keys[0]); r++)
			if (!same(s[k].summary, s[0].summary, run_keys[r]))
				bad("%s is not of the same run as the others (seed, mix, kernel or series)",
				    s[k].dir);
	}
	for (size_t k = 0; k < n; k++)
		same_file(&s[k], &s[0], "provides");
	for (size_t k = 0; k < n; k++)
		for (size_t o = 0; o < k; o++)
			if (s[o].i == s[k].i)
				bad("shard %llu/%llu given twice", s[k].i, s[k].of);
	for (size_t k = 0; k < n; k++)
		if (!same(s[k].plan, s[0].plan, "connections") || !same(s[k].plan, s[0].plan, "active"))
			bad("%s is not of the same size as %s", s[k].dir, s[0].dir);
}

static int by_shard(const void *a, const void *b)
{
	const struct shard *x = a, *y = b;

	return (x->i > y->i) - (x->i < y->i);
}

static void recount_record(struct recount *rc, const json_t *r)
{
	const char *field[RF_MAX];
	const char *gen = json_string_value(json_object_get(r, "gen"));
	const char *dir = json_string_value(json_object_get(r, "direction"));

	for (int f = 0; f < RF_MAX; f++) {
		field[f] = json_string_value(json_object_get(r, recount_field_names[f]));
		if (!field[f])
			field[f] = "";
	}
	recount_add(rc, gen ? gen : "unknown", dir ? dir : "passive", field,
		    json_string_value(json_object_get(r, "shape")));
}

/*
 * One record renumbered: n from @off on, its shard and its number there (shard_n) added at its
 * end. As text: a record's unsigned 64-bit fields (the socket cookie) can pass 2^63, which
 * jansson cannot hold as an integer, so the record is parsed (numbers as reals) only to check it
 * and to count it again; its bytes are kept.
 */
static char *renumber(char *line, const struct shard *s, unsigned long long off,
		      unsigned long long lineno, struct recount *rc)
{
	static const char head[] = "{\"n\":";
	size_t len = strcspn(line, "\n");
	unsigned long long n;
	json_error_t e;
	json_t *r;
	char *end, *out;

	line[len] = 0;
	r = json_loads(line, JSON_DECODE_INT_AS_REAL, &e);
	if (!json_is_object(r) || strncmp(line, head, sizeof(head) - 1) ||
	    !isdigit((unsigned char)line[sizeof(head) - 1]) || line[len - 1] != '}')
		bad("%s/connections.jsonl line %llu: not a record (%s)", s->dir, lineno,
		    r ? "it does not begin with its number n" : e.text);
	if (json_object_get(r, "shard") || json_object_get(r, "shard_n"))
		bad("%s/connections.jsonl line %llu: a merged record (it names a shard)", s->dir,
		    lineno);
	recount_record(rc, r);
	json_decref(r);
	errno = 0;
	n = strtoull(line + sizeof(head) - 1, &end, 10);
	if (errno || n + off < n)
		bad("%s/connections.jsonl line %llu: n out of range", s->dir, lineno);
	line[len - 1] = 0;	/* the closing brace, written again after shard_n */
	if (asprintf(&out, "%s%llu%s,\"shard\":\"%llu/%llu\",\"shard_n\":%llu}", head, n + off,
		     end, s->i, s->of, n) < 0)
		failed("out of memory");
	return out;
}

/* The shards' records into @tmp/connections.jsonl, in shard order; each shard's first number
 * printed for the captures. */
static void merge_records(struct shard *s, size_t n, const char *tmp, struct recount *rc)
{
	char path[4096], *line = NULL;
	unsigned long long off = 0;
	size_t cap = 0;
	FILE *out;

	snprintf(path, sizeof(path), "%s/connections.jsonl", tmp);
	out = fopen(path, "w");
	if (!out)
		failed("cannot write %s: %s", path, strerror(errno));
	for (size_t k = 0; k < n; k++) {
		FILE *in;

		snprintf(path, sizeof(path), "%s/connections.jsonl", s[k].dir);
		in = fopen(path, "r");
		if (!in)
			bad("%s: %s", path, strerror(errno));
		/* a record's new number: its own n past every record of the shards before */
		unsigned long long first = off;

		printf("%zu %llu %s\n", k, first, s[k].dir);
		for (s[k].records = 0; getline(&line, &cap, in) > 0; off++) {
			char *r = renumber(line, &s[k], first, ++s[k].records, rc);

			if (fprintf(out, "%s\n", r) < 0)
				failed("cannot write %s/connections.jsonl: %s", tmp, strerror(errno));
			free(r);
		}
		if (ferror(in))
			bad("%s: %s", path, strerror(errno));
		fclose(in);
	}
	free(line);
	if (fclose(out))
		failed("cannot write %s/connections.jsonl: %s", tmp, strerror(errno));
}

/* The merged summary, with the records' own counts. */
static void write_summary(struct shard *s, size_t n, const char *tmp, struct recount *rc)
{
	struct merge_recount mr = { .distinct_syn_shapes = recount_shapes(rc) };
	json_t **sums = calloc(n, sizeof(*sums)), *m, *wrap;
	char *gens = recount_fp_generators(rc), *doc;
	json_error_t e;

	/* the generators array as the run writes it (fp_record.c), read back */
	wrap = gens ? json_loads(gens, 0, &e) : NULL;
	mr.fp_generators = json_object_get(wrap, "generators");
	for (size_t k = 0; sums && k < n; k++)
		sums[k] = s[k].summary;
	m = sums && mr.fp_generators ? summary_merge(sums, n, &mr) : NULL;
	doc = m ? json_dumps(m, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17)) : NULL;
	/* ending in a newline, as the run's own */
	if (!doc || !(doc = realloc(doc, strlen(doc) + 2)))
		failed("the summaries could not be merged into %s/summary.json", tmp);
	strcat(doc, "\n");
	if (write_file_atomic(tmp, "summary.json", doc))
		failed("the summaries could not be merged into %s/summary.json", tmp);
	free(doc);
	free(sums);
	json_decref(m);
	json_decref(wrap);
	free(gens);
}

/* The whole run's plan and the declaration it ran under. */
static void write_plan(const struct shard *first, const char *tmp)
{
	const json_t *p = first->plan;
	json_t *conns = json_object_get(p, "connections");
	struct plan_input in = {
		.connections = (uint64_t)json_integer_value(conns),
		.seed = (uint64_t)json_integer_value(json_object_get(p, "seed")),
		.mix = json_string_value(json_object_get(p, "mix")),
		.active = json_is_true(json_object_get(p, "active")),
	};
	static struct provides decl;
	char path[4096], err[512], *doc, *text;
	struct plan plan;

	snprintf(path, sizeof(path), "%s/provides", first->dir);
	if (provides_load(path, &decl, err, sizeof(err)))
		bad("%s", err);
	in.declared = &decl;
	if (!json_is_integer(conns) || json_integer_value(conns) < 1)
		bad("%s/plan.json names no connections", first->dir);
	if (!in.mix || plan_make(&in, &plan, err, sizeof(err)))
		bad("the whole run's plan could not be made from %s/plan.json: %s", first->dir,
		    in.mix ? err : "no mix");
	doc = plan_json(&in, &plan);
	text = text_file_all(path);
	if (!doc || !text || write_file_atomic(tmp, "plan.json", doc) ||
	    write_file_atomic(tmp, "provides", text))
		failed("cannot write the plan and declaration into %s", tmp);
	free(doc);
	free(text);
}

static int merge(const char *tmp, char **dirs, size_t n)
{
	struct shard *s = calloc(n, sizeof(*s));
	struct recount *rc = recount_new();

	if (!s || !rc)
		failed("out of memory");
	for (size_t k = 0; k < n; k++) {
		s[k].dir = dirs[k];
		s[k].summary = load(dirs[k], "summary.json");
		s[k].plan = load(dirs[k], "plan.json");
	}
	check_shards(s, n);
	qsort(s, n, sizeof(*s), by_shard);
	merge_records(s, n, tmp, rc);
	write_summary(s, n, tmp, rc);
	write_plan(&s[0], tmp);
	if (fflush(stdout))
		failed("cannot print the shards' order: %s", strerror(errno));
	recount_free(rc);
	for (size_t k = 0; k < n; k++) {
		json_decref(s[k].summary);
		json_decref(s[k].plan);
	}
	free(s);
	return 0;
}

/* @v as the shell's jq -r printed it (summary_value_text()). */
static void put_value(const json_t *v)
{
	char *t = summary_value_text(v);

	fputs(t ? t : "null", stderr);
	free(t);
}

/* The merged run's outcome (after the captures are in place): 0, or 1 as `syntwin run`. */
static int merge_verdict(const char *out)
{
	json_t *sum = load(out, "summary.json"), *e;
	json_t *failed = json_object_get(sum, "expectations_failed");
	json_t *unexplained = json_object_get(sum, "unexplained");
	bool partial = !json_is_false(json_object_get(sum, "partial"));
	char path[4096], *line = NULL;
	unsigned long long records = 0;
	size_t cap = 0, k;
	FILE *f;

	json_array_foreach(json_object_get(sum, "expectations"), k, e) {
		if (json_is_true(json_object_get(e, "ok")))
			continue;
		fputs("syntwin: expectation failed (shard ", stderr);
		put_value(json_object_get(e, "shard"));
		fputs("): ", stderr);
		put_value(json_object_get(e, "name"));
		fputc(' ', stderr);
		put_value(json_object_get(e, "got"));
		fputs(", want ", stderr);
		put_value(json_object_get(e, "want"));
		fputs(" (", stderr);
		put_value(json_object_get(e, "when"));
		fputs(")\n", stderr);
	}
	snprintf(path, sizeof(path), "%s/connections.jsonl", out);
	f = fopen(path, "r");
	if (!f)
		bad("%s: %s", path, strerror(errno));
	while (getline(&line, &cap, f) > 0)
		records++;
	free(line);
	fclose(f);
	fprintf(stderr, "==> merge: %lld shards, %llu records, ",
		(long long)json_integer_value(json_object_get(sum, "merged_from")), records);
	put_value(unexplained);
	fprintf(stderr, " unexplained, %lld expectation(s) failed%s; results in %s\n",
		(long long)json_integer_value(failed), partial ? ", PARTIAL" : "", out);
	return !partial && json_is_integer(unexplained) && !json_integer_value(unexplained) &&
		       !json_integer_value(failed) ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--verdict"))
		return merge_verdict(argv[2]);
	if (argc >= 4 && !strcmp(argv[1], "--out"))
		return merge(argv[2], argv + 3, (size_t)argc - 3);
	fputs(usage, stderr);
	return 2;
}
