// SPDX-License-Identifier: GPL-2.0
/*
 * report.txt: what a kernel reviewer pastes into a reply on the list. Plain text, wrapped at 72
 * columns: the kernel, what was applied to it, the run's counts and verdicts, the expectations
 * that failed, the first unexplained records decoded, a kill matrix or a bisect's first bad
 * commit if there is one, and a Tested-by: line (or, on failure, a summary to report).
 *
 * usage: syntwin-report --kernel TEXT [--applied FILE] [--run DIR] [--matrix FILE.json]
 *                       [--bisect FIRST_BAD_TEXT] [--tested-by "Name <email>"]
 *        syntwin-report --ktap --kernel TEXT --run DIR [--status N]
 * --status N: the run's exit status as `syntwin run` decided it (1 for a kernel splat the host
 * saw, a torn record, ...: what summary.json, written by the guest, cannot say); not 0 is a
 * failure in both forms.
 * --ktap: the run's verdicts as KTAP (kselftest's format, Documentation/dev-tools/ktap.rst) for
 * CI dashboards instead: the records, the run's completeness, each expectation, a test each.
 * Reads DIR/summary.json and DIR/connections.jsonl (jansson: Debian's JSON reader, where the
 * run writes its JSON itself) and writes the report to stdout. Exit 0, or 2 on bad input.
 */
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "hex.h"
#include "text_wrap.h"
#include "witness_features.h"

#define FIRST_SHOWN 3	/* unexplained records decoded in the report */

struct opts {
	const char *kernel, *applied, *run, *matrix, *bisect, *tested_by, *status;
	bool ktap;
};

static void die(const char *what, const char *why)
{
	fprintf(stderr, "syntwin-report: %s: %s\n", what, why);
	exit(2);
}

static long long num(const json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static void applied(const char *path)
{
	char line[512];
	FILE *f = fopen(path, "re");

	if (!f)
		die(path, "cannot read the list of applied patches");
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (*line)
			wrap_print(stdout, line[0] == ' ' ? "            " : "  applied:  ", "            ",
				   line[0] == ' ' ? line + 2 : line);
	}
	fclose(f);
}

/* The explained counts: "ipv4-option-rewrite 43, syncookie 18" (nonzero ones). */
static void explained_list(const json_t *ex, char *buf, size_t n)
{
	const char *k;
	json_t *v;
	size_t used = 0;

	*buf = 0;
	json_object_foreach((json_t *)ex, k, v) {
		if (json_integer_value(v) > 0 && used < n)
			used += (size_t)snprintf(buf + used, n - used, "%s%s %lld", used ? ", " : "", k,
						 json_integer_value(v));
	}
}

/* One copy of a record, decoded: "native: ipv4 ttl=64 ... | tcp ...". */
static void decoded(const json_t *rec, const char *who, long long mac)
{
	const char *hex = str(rec, who);
	size_t len = strlen(hex) / 2;
	uint8_t buf[512];
	struct syn_layout l;
	char text[1024], head[16];

	snprintf(head, sizeof(head), "    %-7s", who);
	if (!len || len > sizeof(buf) || hex_decode(hex, buf, len) < 0) {
		wrap_print(stdout, head, "           ", "(no copy)");
		return;
	}
	syn_layout(buf, len, (size_t)mac, &l);
	syn_decode_text(buf, &l, text, sizeof(text));
	wrap_print(stdout, head, "           ", text);
}

/* As the judge counts them (judge.c): a record the witness lost to its map's eviction is the
 * run's partiality, not an unexplained difference. */
static bool unexplained(const json_t *rec)
{
	const char *v = str(rec, "verdict");

	return strcmp(v, "identical") && strcmp(v, "explained") &&
	       !(!strcmp(v, "bpf-missing") && !strcmp(str(rec, "reason"), "witness-map-eviction"));
}

/* The first FIRST_SHOWN unexplained records of DIR/connections.jsonl; returns how many. */
static int first_unexplained(const char *dir)
{
	char path[4096], *line = NULL, text[1024];
	size_t cap = 0;
	int shown = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/connections.jsonl", dir);
	f = fopen(path, "re");
	if (!f)
		die(path, "cannot read the run's records");
	while (shown < FIRST_SHOWN && getline(&line, &cap, f) > 0) {
		json_t *rec = json_loads(line, 0, NULL);

		if (rec && unexplained(rec)) {
			bool mode2 = num(rec, "mode") == 2;

			snprintf(text, sizeof(text), "record %lld (%s, %s, IPv%lld, mode %lld): %s: %s",
				 num(rec, "n"), str(rec, "gen"), str(rec, "direction"),
				 num(rec, "family"), num(rec, "mode"), str(rec, "verdict"),
				 str(rec, "detail"));
			wrap_print(stdout, "  ", "    ", text);
			decoded(rec, "native", mode2 ? 14 : 0);
			decoded(rec, "bpf", num(rec, "bpf_mac_len"));
			shown++;
		}
		json_decref(rec);
	}
	free(line);
	fclose(f);
	return shown;
}

/* The run's part; returns whether it passed (nothing unexplained, every expectation held,
 * not partial). */
/* "Witness:" and the features the run's witness had of the kernel (witness_features.h), if
 * summary.json says (results from before it did not). */
static void witness_line(const json_t *wf)
{
	char text[256] = "";
	size_t used = 0;

	if (!json_is_object(wf))
		return;
	for (int i = 0; i < WF_MAX && used < sizeof(text); i++) {
		const json_t *v = json_object_get(wf, witness_feature_keys[i]);

		if (v) /* a feature the summary's witness did not read yet: not said */
			used += (size_t)snprintf(text + used, sizeof(text) - used, "%s%s%s",
						 used ? ", " : "", json_is_true(v) ? "" : "no ",
						 witness_feature_names[i]);
	}
	wrap_print(stdout, "Witness:    ", "            ", text);
}

static bool run_part(const char *dir)
{
	char path[4096], text[2048], ex[1024];
	json_error_t err;
	json_t *s, *e;
	size_t i;
	long long bad;
	bool ok;

	snprintf(path, sizeof(path), "%s/summary.json", dir);
	s = json_load_file(path, 0, &err);
	if (!s)
		die(path, err.text);
	witness_line(json_object_get(s, "witness_features"));
	explained_list(json_object_get(s, "explained"), ex, sizeof(ex));
	snprintf(text, sizeof(text), "%lld connections (%lld active), seed %lld, mix %s, "
		 "series %s%s: %lld identical, explained: %s; %lld unexplained",
		 num(s, "connections"), num(s, "active_connections"), num(s, "seed"), str(s, "mix"),
		 str(s, "series_hash"), json_is_true(json_object_get(s, "partial")) ? " (PARTIAL)" : "",
		 num(s, "identical"), *ex ? ex : "none", num(s, "unexplained"));
	wrap_print(stdout, "Run:        ", "            ", text);
	bad = num(s, "expectations_failed");
	snprintf(text, sizeof(text), "%zu checked, %lld failed",
		 json_array_size(json_object_get(s, "expectations")), bad);
	wrap_print(stdout, "Expected:   ", "            ", text);
	json_array_foreach(json_object_get(s, "expectations"), i, e) {
		if (json_is_true(json_object_get(e, "ok")))
			continue;
		snprintf(text, sizeof(text), "FAILED %s: got %lld, want %lld (%s)", str(e, "name"),
			 num(e, "got"), num(e, "want"), str(e, "when"));
		wrap_print(stdout, "  ", "    ", text);
	}
	ok = !num(s, "unexplained") && !bad && !json_is_true(json_object_get(s, "partial"));
	if (num(s, "unexplained")) {
		printf("\nFirst unexplained records (kernel's copy, witness's copy):\n");
		first_unexplained(dir);
	}
	json_decref(s);
	return ok;
}

/* A KTAP test description: no '#' (it would start a directive), no line break. */
static void ktap_name(char *dst, size_t n, const char *src)
{
	size_t i = 0;

	for (; *src && i + 1 < n; src++)
		dst[i++] = *src == '#' || *src == '\n' ? ' ' : *src;
	dst[i] = 0;
}

/* The run's verdicts as KTAP version 1: test 1 the records (none unexplained), test 2 the
 * run's completeness, then one test per expectation, each with its numbers as a diagnostic. */
static void ktap_part(const char *dir, const char *kernel, long status)
{
	char path[4096], name[256];
	json_error_t err;
	json_t *s, *e, *ex;
	size_t i;

	snprintf(path, sizeof(path), "%s/summary.json", dir);
	s = json_load_file(path, 0, &err);
	if (!s)
		die(path, err.text);
	ex = json_object_get(s, "expectations");
	ktap_name(name, sizeof(name), kernel);
	printf("KTAP version 1\n# syntwin run on %s\n1..%zu\n", name, 3 + json_array_size(ex));
	printf("# %lld connections, %lld active: %lld identical, %lld unexplained\n",
	       num(s, "connections"), num(s, "active_connections"), num(s, "identical"),
	       num(s, "unexplained"));
	printf("%s 1 every record identical or explained\n", num(s, "unexplained") ? "not ok" : "ok");
	printf("%s 2 the run complete (not partial)\n",
	       json_is_true(json_object_get(s, "partial")) ? "not ok" : "ok");
	printf("# syntwin run's exit status %ld (1: a kernel splat, a torn record or the above)\n",
	       status);
	printf("%s 3 the run's exit status 0\n", status ? "not ok" : "ok");
	json_array_foreach(ex, i, e) {
		printf("# %s: got %lld, want %lld\n", str(e, "when"), num(e, "got"), num(e, "want"));
		ktap_name(name, sizeof(name), str(e, "name"));
		printf("%s %zu expectation %s\n", json_is_true(json_object_get(e, "ok")) ? "ok" : "not ok",
		       i + 4, name);
	}
	json_decref(s);
}

/* A kill matrix (vm/mutants.sh's matrix.json): one row per kernel. */
static bool matrix_part(const char *path)
{
	static const char *const col[] = { "comparator", "conformance", "selftest", "splat" };
	json_error_t err;
	json_t *m = json_load_file(path, 0, &err), *k;
	char text[1024];
	size_t i;
	bool ok;

	if (!m)
		die(path, err.text);
	printf("\nKill matrix (%lld connections a run):\n", num(m, "connections"));
	json_array_foreach(json_object_get(m, "kernels"), i, k) {
		printf("  %s\n", str(k, "kernel"));
		for (size_t c = 0; c < sizeof(col) / sizeof(col[0]); c++) {
			snprintf(text, sizeof(text), "%s: %s", col[c], str(k, col[c]));
			wrap_print(stdout, "    ", "      ", text);
		}
	}
	ok = json_is_true(json_object_get(m, "ok"));
	if (*str(m, "survivors"))
		wrap_print(stdout, "  survived: ", "    ", str(m, "survivors"));
	json_decref(m);
	return ok;
}

static void usage(void)
{
	fprintf(stderr, "usage: syntwin-report --kernel TEXT [--applied FILE] [--run DIR] "
		"[--matrix FILE.json] [--bisect TEXT] [--tested-by 'Name <email>']\n"
		"       syntwin-report --ktap --kernel TEXT --run DIR [--status N]\n");
	exit(2);
}

static void parse(int argc, char **argv, struct opts *o)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--ktap")) {
			o->ktap = true;
			continue;
		}
		const char **dst = !strcmp(argv[i], "--kernel")	   ? &o->kernel :
				   !strcmp(argv[i], "--applied")   ? &o->applied :
				   !strcmp(argv[i], "--run")	   ? &o->run :
				   !strcmp(argv[i], "--matrix")	   ? &o->matrix :
				   !strcmp(argv[i], "--bisect")	   ? &o->bisect :
				   !strcmp(argv[i], "--tested-by") ? &o->tested_by :
				   !strcmp(argv[i], "--status")	   ? &o->status : NULL;

		if (!dst || i + 1 >= argc)
			usage();
		*dst = argv[++i];
	}
	if (!o->kernel || (!o->run && !o->matrix) || (o->ktap && !o->run))
		usage();
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	bool ok = true;
	long status;

	parse(argc, argv, &o);
	if (o.status && (o.status[strspn(o.status, "0123456789")] || !*o.status))
		die("--status", "not a number");
	status = o.status ? strtol(o.status, NULL, 10) : 0;
	if (o.ktap) {
		ktap_part(o.run, o.kernel, status);
		return 0;
	}
	printf("syntwin: TCP_SAVED_SYN against an independent BPF witness\n\n");
	wrap_print(stdout, "Kernel:     ", "            ", o.kernel);
	if (o.applied)
		applied(o.applied);
	if (o.run)
		ok = run_part(o.run) && ok;
	if (status) {
		char text[160];

		snprintf(text, sizeof(text), "syntwin's status %ld: the run failed beyond its records "
			 "(a kernel splat, a torn record, a partial run: named in its output)", status);
		wrap_print(stdout, "Status:     ", "            ", text);
		ok = false;
	}
	if (o.matrix)
		ok = matrix_part(o.matrix) && ok;
	if (o.bisect) {
		printf("\n");
		wrap_print(stdout, "First bad:  ", "            ", o.bisect);
	}
	printf("\n");
	if (o.bisect)
		wrap_print(stdout, "", "", "Reported: the commit above is the first whose run "
			   "fails (git bisect run, one seeded syntwin run per commit).");
	else if (ok)
		printf("Tested-by: %s\n", o.tested_by ? o.tested_by : "syntwin");
	else
		wrap_print(stdout, "", "", "Reported: the kernel does not keep exactly the SYN that "
			   "arrived, or not what it declares (unexplained records, failed "
			   "expectations or kills above); the same command with the same seed "
			   "reproduces it.");
	return 0;
}
