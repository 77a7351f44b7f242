// SPDX-License-Identifier: GPL-2.0
/*
 * syntwin-coverage: the two headline numbers of a coverage kernel's run, from its lcov tracefile
 * and the tree it was built from. (1) The series' own hunks: of the lines the patches add that
 * gcov calls executable, how many ran. (2) The saved copy's code: of the executable lines that
 * touch the copy (found in the tree's source by copy_lines.c, from the names file), how many
 * ran. Every line not executed is listed with its function and the reason on record for it
 * (reasons.c), or as a gap; lines gcov could not measure (a kernel C file not profiled, a file
 * this config does not build, a header no profiled file compiles) are listed apart, never
 * counted as executed. Written here, not with lcov's own filters: lcov selects whole files or
 * functions, and the sets measured here are lines that the patches and the names pick.
 *
 * usage: syntwin-coverage --info FILE --tree DIR [--root DIR]... --names FILE --reasons FILE
 *                         [--profiled FILE] [--patch FILE]... [--release TEXT] --out DIR
 * --profiled: the files the kernel was built to profile, one per line; each must have counts.
 * Writes DIR/coverage.txt (its headline also to stdout) and DIR/coverage.json.
 * Exit 0 written; 2 bad input (also: a profiled file without counts, no executable saved-copy
 * line at all: the names or the tracefile are wrong for this tree).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "copy_lines.h"
#include "json_out.h"
#include "lcov_info.h"
#include "patch_lines.h"
#include "reasons.h"

#define MAX_LIST 64

struct opts {
	const char *info, *tree, *names, *reasons, *out, *release, *profiled;
	const char *roots[MAX_LIST];
	size_t nroots;
	const char *patches[MAX_LIST];
	size_t npatches;
};

enum line_state {
	L_EXECUTED,
	L_NOT_EXECUTED,
	L_NOT_EXECUTABLE,	/* gcov has no count for it: a declaration, comment, brace */
	L_NOT_PROFILED,		/* a kernel C file this config builds, compiled without gcov */
	L_NOT_BUILT,		/* a C file this config does not build */
	L_HEADER,		/* a header no profiled file compiles code of */
	L_NOT_FOUND,		/* a series line the tree does not have where the patch put it */
};

/* One measured set (the series' lines, the saved copy's lines) as it is being reported. */
struct tally {
	const char *name;
	unsigned int executable, executed, with_reason, gaps, not_profiled, not_built, headers,
		not_found;
	FILE *txt;		/* the not-executed list goes to a scratch file, then the report */
	struct json_out *j;	/* inside the set's "not_executed" array */
};

static void usage_die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "syntwin-coverage: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nusage: syntwin-coverage --info FILE --tree DIR [--root DIR]... --names FILE "
		"--reasons FILE [--profiled FILE] [--patch FILE]... [--release TEXT] --out DIR\n");
	exit(2);
}

static void parse(struct opts *o, int argc, char **argv)
{
	for (int i = 1; i < argc; i += 2) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			usage_die("%s needs a value", k);
		if (!strcmp(k, "--info"))
			o->info = v;
		else if (!strcmp(k, "--tree")) {
			/* "DIR/" names the same tree: the paths scanned are made relative to it */
			for (size_t n = strlen(argv[i + 1]); n > 1 && argv[i + 1][n - 1] == '/';)
				argv[i + 1][--n] = '\0';
			o->tree = v;
		}
		else if (!strcmp(k, "--names"))
			o->names = v;
		else if (!strcmp(k, "--reasons"))
			o->reasons = v;
		else if (!strcmp(k, "--out"))
			o->out = v;
		else if (!strcmp(k, "--release"))
			o->release = v;
		else if (!strcmp(k, "--profiled"))
			o->profiled = v;
		else if (!strcmp(k, "--root") && o->nroots < MAX_LIST - 1)
			o->roots[o->nroots++] = v;
		else if (!strcmp(k, "--patch") && o->npatches < MAX_LIST)
			o->patches[o->npatches++] = v;
		else
			usage_die("unknown option '%s' (or more than %d of it)", k, MAX_LIST - 1);
	}
	if (!o->info || !o->tree || !o->names || !o->reasons || !o->out)
		usage_die("--info, --tree, --names, --reasons and --out are required");
	o->roots[o->nroots++] = o->tree;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

/* Does the tree hold the object of C file @path (this config builds it)? */
static bool built(const char *tree, const char *path)
{
	char o[4096];

	snprintf(o, sizeof(o), "%s/%.*s.o", tree, (int)strlen(path) - 2, path);
	return access(o, F_OK) == 0;
}

static enum line_state state_of(const struct cov_info *ci, const char *tree, const char *path,
				unsigned int line)
{
	const struct cov_file *f = cov_file_find(ci, path);
	const struct cov_line *l;

	if (!line)
		return L_NOT_FOUND;
	if (!f) {
		if (!ends_with(path, ".c"))
			return L_HEADER;
		return built(tree, path) ? L_NOT_PROFILED : L_NOT_BUILT;
	}
	l = cov_line_find(f, line);
	if (!l)
		return L_NOT_EXECUTABLE;
	return l->count ? L_EXECUTED : L_NOT_EXECUTED;
}

/*
 * The function a source line at column 0 defines (kernel style: "type name(args" with no ';' at
 * the end, or BPF_CALL_n(name, ...)), into @fn; false if it defines none.
 */
static bool definition(const char *l, char *fn, size_t cap)
{
	const char *paren = strchr(l, '('), *start;
	size_t n = strcspn(l, "\n");

	if (!(isalpha((unsigned char)l[0]) || l[0] == '_') || !paren || !n || l[n - 1] == ';')
		return false;
	if (!strncmp(l, "BPF_CALL_", 9)) {	/* the helper's name is the macro's first argument */
		start = paren + 1;
		n = strcspn(start, ",)");
	} else {
		for (start = paren; start > l && (isalnum((unsigned char)start[-1]) || start[-1] == '_');)
			start--;
		n = paren - start;
	}
	if (!n)
		return false;
	snprintf(fn, cap, "%.*s", (int)n, start);
	return true;
}

/*
 * Line @line of @tree/@path, trimmed, into @text, and the function it lies in (the last
 * definition before it) into @fn: "" where the file or line is not there. From the source,
 * not gcov's function records: those name no function inlined into another.
 */
static void source_at(const char *tree, const char *path, unsigned int line, char *text,
		      size_t cap, char *fn, size_t fncap)
{
	char p[4096], *l = NULL, *s;
	size_t lcap = 0, n;
	FILE *in;

	text[0] = fn[0] = '\0';
	snprintf(p, sizeof(p), "%s/%s", tree, path);
	in = fopen(p, "r");
	if (!in)
		return;
	for (unsigned int no = 1; no <= line && getline(&l, &lcap, in) >= 0; no++) {
		definition(l, fn, fncap);
		if (no != line)
			continue;
		for (s = l; *s == ' ' || *s == '\t'; s++)
			;
		for (n = strlen(s); n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t');)
			n--;
		snprintf(text, cap, "%.*s", (int)(n < cap ? n : cap - 1), s);
	}
	free(l);
	fclose(in);
}

/* One line of a set: counted, and listed when it did not run or could not be measured. */
/* One line of a set; @rs NULL: no reason applies (the series' own lines must all run). */
static void tally_line(struct tally *t, const struct cov_info *ci, struct reasons *rs,
		       const char *tree, const char *path, unsigned int line)
{
	enum line_state st = state_of(ci, tree, path, line);
	struct reason *r = NULL;
	const char *what;
	char text[512], fn[128], gapwhy[600];

	source_at(tree, path, line, text, sizeof(text), fn, sizeof(fn));

	switch (st) {
	case L_EXECUTED:
		t->executable++;
		t->executed++;
		return;
	case L_NOT_EXECUTABLE:
		return;
	case L_NOT_EXECUTED:
		t->executable++;
		r = rs ? reason_for(rs, fn, text) : NULL;
		if (r)
			r->used++;
		if (r && r->unreachable) {
			t->with_reason++;
			snprintf(gapwhy, sizeof(gapwhy), "unreachable in a guest: %s", r->why);
		} else {
			t->gaps++;
			snprintf(gapwhy, sizeof(gapwhy), "GAP: %s",
				 r ? r->why : rs ? "no traffic reaches it, and no reason is on record" :
				 "a line of the series no traffic reaches");
		}
		what = gapwhy;
		break;
	case L_NOT_FOUND:
		t->not_found++;
		what = "NOT FOUND: the tree does not have this added line where its patch put it (a later patch changed it?)";
		break;
	case L_NOT_PROFILED:
		t->not_profiled++;
		what = "NOT MEASURED: a kernel C file this config builds, not profiled (add it to kernel-series/coverage.config)";
		break;
	case L_NOT_BUILT:
		t->not_built++;
		what = "not built in this config";
		break;
	default:
		t->headers++;
		what = "not measured: a header no profiled file compiles this line of";
		break;
	}
	if (st == L_NOT_BUILT || st == L_HEADER)
		return; /* counted in the summary line only: nothing in this kernel runs them */
	fprintf(t->txt, "  %s:%u %s: %s\n      %s\n", path, line, fn[0] ? fn : "-", text, what);
	json_open(t->j, NULL, '{');
	json_str(t->j, "file", path);
	json_u64(t->j, "line", line);
	json_str(t->j, "function", fn);
	json_str(t->j, "text", text);
	json_str(t->j, "state", st == L_NOT_EXECUTED ? (r && r->unreachable ? "unreachable" : "gap") :
				st == L_NOT_FOUND ? "not-found" : "not-profiled");
	json_str(t->j, "why", what);
	json_close(t->j);
}

static void tally_json(struct json_out *j, const struct tally *t)
{
	json_u64(j, "executable", t->executable);
	json_u64(j, "executed", t->executed);
	json_u64(j, "not_executed_unreachable", t->with_reason);
	json_u64(j, "gaps", t->gaps);
	json_u64(j, "not_profiled", t->not_profiled);
	json_u64(j, "not_built", t->not_built);
	json_u64(j, "headers_unmeasured", t->headers);
	json_u64(j, "not_found", t->not_found);
}

/* "12 of 14 executable lines executed (85.7 %)" and what was not. */
static void tally_headline(FILE *out, const struct tally *t)
{
	if (t->executable)
		fprintf(out, "%-17s %u of %u executable lines executed (%.1f %%)", t->name,
			t->executed, t->executable, 100.0 * t->executed / t->executable);
	else
		fprintf(out, "%-17s no executable line (n/a)", t->name);
	if (t->executable > t->executed)
		fprintf(out, "; not executed: %u unreachable in a guest (reason on record), %u gap(s)",
			t->with_reason, t->gaps);
	if (t->not_profiled)
		fprintf(out, "; %u in files not profiled", t->not_profiled);
	if (t->not_found)
		fprintf(out, "; %u not found in the tree", t->not_found);
	fputc('\n', out);
}

/* Every file of @list (one per line) the kernel was built to profile has counts in @ci. */
static void check_profiled(const struct cov_info *ci, const char *list)
{
	FILE *in = fopen(list, "r");
	char line[1024];

	if (!in)
		usage_die("%s: %s", list, strerror(errno));
	while (fgets(line, sizeof(line), in)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] && !cov_file_find(ci, line))
			usage_die("%s, which the kernel profiles, has no counts in the tracefile", line);
	}
	fclose(in);
}

struct inputs {
	struct cov_info ci;
	struct copy_names cn;
	struct copy_lines cl;
	struct added_lines al;
	struct reasons rs;
};

static void load(struct inputs *in, const struct opts *o)
{
	static const char *const dirs[] = { "net", "include" };
	char err[512];

	if (cov_info_load(&in->ci, o->info, o->roots, o->nroots, err, sizeof(err)) ||
	    copy_names_read(&in->cn, o->names, err, sizeof(err)) ||
	    reasons_read(&in->rs, o->reasons, err, sizeof(err)) ||
	    copy_lines_scan(&in->cl, &in->cn, o->tree, dirs, 2, err, sizeof(err)))
		usage_die("%s", err);
	if (!in->ci.nfiles)
		usage_die("%s: no file's counts in it (was the kernel a gcov kernel?)", o->info);
	for (size_t i = 0; i < o->npatches; i++)
		if (added_lines_read(&in->al, o->patches[i], o->tree, err, sizeof(err)))
			usage_die("%s", err);
	if (o->profiled)
		check_profiled(&in->ci, o->profiled);
}

/* Is patched file @path part of the kernel (not its tools, scripts or documentation)? */
static bool kernel_file(const char *path)
{
	static const char *const outside[] = { "tools/", "scripts/", "samples/", "Documentation/" };

	for (size_t i = 0; i < sizeof(outside) / sizeof(*outside); i++)
		if (!strncmp(path, outside[i], strlen(outside[i])))
			return false;
	return ends_with(path, ".c") || ends_with(path, ".h");
}

static void measure_series(struct tally *t, struct inputs *in, const char *tree)
{
	for (size_t i = 0; i < in->al.n; i++)
		if (kernel_file(in->al.v[i].path))
			tally_line(t, &in->ci, NULL, tree, in->al.v[i].path, in->al.v[i].line);
}

static void measure_copy(struct tally *t, struct inputs *in, const char *tree)
{
	for (size_t i = 0; i < in->cl.n; i++)
		tally_line(t, &in->ci, &in->rs, tree, in->cl.v[i].path, in->cl.v[i].line);
}

/* Set @t measured by @measure, as object @key of @j: what did not run, then the counts. */
static void measure_set(struct json_out *j, const char *key, struct tally *t, struct inputs *in,
			const char *tree,
			void (*measure)(struct tally *, struct inputs *, const char *))
{
	json_open(j, key, '{');
	json_open(j, "not_executed", '[');
	measure(t, in, tree);
	json_close(j);
	tally_json(j, t);
	json_close(j);
}

/* Copy scratch file @from (a set's list) to @to under @title. */
static void append_list(FILE *to, FILE *from, const char *title)
{
	char buf[4096];
	size_t n;

	if (!ftell(from))
		return;
	fprintf(to, "\n%s\n", title);
	rewind(from);
	while ((n = fread(buf, 1, sizeof(buf), from)))
		fwrite(buf, 1, n, to);
}

static FILE *open_out(const char *dir, const char *name)
{
	char p[4096];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	if (!f)
		usage_die("%s: %s", p, strerror(errno));
	return f;
}

/* The names file's names that matched nothing in this tree, comma-separated, into @buf. */
static void names_unmatched(const struct inputs *in, char *buf, size_t cap)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < in->cn.n; k++) {
		if (!in->cn.v[k].hits && len < cap)
			len += snprintf(buf + len, cap - len, "%s%s %s", len ? ", " : "",
					in->cn.v[k].kind == NAME_BODY ? "body" : "word",
					in->cn.v[k].id);
	}
}

/* The headline: what `syntwin --coverage run` prints, and the report's first lines. */
static void write_headline(FILE *out, const struct opts *o, const struct tally *sr,
			   const struct tally *cp, const struct inputs *in)
{
	const struct reasons *rs = &in->rs;
	unsigned int unused = 0;
	char names[1024];

	fprintf(out, "kernel coverage of the saved copy's code: %s\n", o->release ? o->release : "");
	tally_headline(out, sr);
	tally_headline(out, cp);
	fprintf(out, "not measured (nothing in this kernel runs them): %u line(s) in files this "
		"config does not build, %u in headers no profiled file compiles code of\n",
		sr->not_built + cp->not_built, sr->headers + cp->headers);
	for (size_t i = 0; i < rs->n; i++)
		unused += !rs->v[i].used;
	if (unused)
		fprintf(out, "%u reason(s) on record covered no line of this kernel\n", unused);
	names_unmatched(in, names, sizeof(names));
	if (names[0])
		fprintf(out, "names that match nothing in this tree: %s\n", names);
}

static void write_txt(FILE *out, const struct opts *o, const struct tally *sr,
		      const struct tally *cp, const struct inputs *in)
{
	write_headline(out, o, sr, cp, in);
	append_list(out, sr->txt, "series lines not executed or not measured:");
	append_list(out, cp->txt, "saved-copy lines not executed or not measured:");
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	struct inputs in = { 0 };
	struct json_out j;
	struct tally sr = { .name = "series hunks:" }, cp = { .name = "saved-copy lines:" };
	FILE *txt, *js;

	parse(&o, argc, argv);
	load(&in, &o);
	json_init(&j, true);
	json_open(&j, NULL, '{');
	json_str(&j, "release", o.release ? o.release : "");
	sr.txt = tmpfile();
	cp.txt = tmpfile();
	if (!sr.txt || !cp.txt)
		usage_die("no scratch file: %s", strerror(errno));
	sr.j = cp.j = &j;
	measure_set(&j, "series", &sr, &in, o.tree, measure_series);
	measure_set(&j, "saved_copy", &cp, &in, o.tree, measure_copy);
	json_close(&j);
	if (!json_done(&j))
		usage_die("out of memory writing the JSON report");
	txt = open_out(o.out, "coverage.txt");
	write_txt(txt, &o, &sr, &cp, &in);
	js = open_out(o.out, "coverage.json");
	fputs(json_done(&j), js);
	if (ferror(txt) || fclose(txt) || ferror(js) || fclose(js))
		usage_die("%s: could not write the report", o.out);
	write_headline(stdout, &o, &sr, &cp, &in);
	if (!cp.executable)
		usage_die("no executable line touches the saved copy: the names (%s) or the tracefile "
			  "(%s) do not fit this tree", o.names, o.info);
	json_free(&j);
	cov_info_free(&in.ci);
	copy_lines_free(&in.cl);
	copy_names_free(&in.cn);
	added_lines_free(&in.al);
	reasons_free(&in.rs);
	fclose(sr.txt);
	fclose(cp.txt);
	return 0;
}
