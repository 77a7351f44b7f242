// SPDX-License-Identifier: GPL-2.0
/* The lines a unified diff adds, found in the patched tree (see patch_lines.h). */
#include "patch_lines.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "text_file.h"

static int add(struct added_lines *al, const char *file, unsigned int line, const char *patch)
{
	if (!(al->n & (al->n - 1))) {
		struct added_line *v = realloc(al->v, (al->n ? 2 * al->n : 16) * sizeof(*v));

		if (!v)
			return -1;
		al->v = v;
	}
	al->v[al->n].line = line;
	al->v[al->n].path = strdup(file);
	al->v[al->n].patch = strdup(patch);
	if (!al->v[al->n].path || !al->v[al->n].patch) {
		free(al->v[al->n].path);
		free(al->v[al->n].patch);
		return -1;
	}
	al->n++;
	return 0;
}

/* One file of the tree, as lines (the last one asked for is kept: hunks come file by file). */
struct tree_file {
	char path[1024];
	char *text;
	char **line;
	size_t n;
};

static void tree_file_free(struct tree_file *t)
{
	free(t->text);
	free(t->line);
	memset(t, 0, sizeof(*t));
}

static int tree_file_load(struct tree_file *t, const char *tree, const char *path)
{
	char p[4096];
	size_t cap = 1;

	if (!strcmp(t->path, path))
		return 0;
	tree_file_free(t);
	snprintf(t->path, sizeof(t->path), "%s", path);
	snprintf(p, sizeof(p), "%s/%s", tree, path);
	t->text = text_file_all(p);
	if (!t->text)	/* a file the tree lacks: every hunk in it is "not found" */
		return errno == ENOENT ? 0 : -1;
	for (char *c = t->text; *c; c++)
		cap += *c == '\n';
	t->line = malloc(cap * sizeof(*t->line));
	if (!t->line)
		return -1;
	for (char *c = t->text; *c;) {
		char *e = strchr(c, '\n');

		t->line[t->n++] = c;
		if (!e)
			break;
		*e = '\0';
		c = e + 1;
	}
	return 0;
}

/* A hunk's new side: its context and added lines, in order. */
struct hunk {
	char file[1024];
	const char *patch;
	unsigned int start;			/* the header's new-side start */
	unsigned int old_left, new_left;	/* lines still due */
	char **text;
	bool *added;
	size_t n;
};

static void hunk_reset(struct hunk *h)
{
	for (size_t i = 0; i < h->n; i++)
		free(h->text[i]);
	free(h->text);
	free(h->added);
	h->text = NULL;
	h->added = NULL;
	h->n = 0;
}

/* Does the tree hold @h's lines [@from, @to) at its line index @at? */
static bool matches_at(const struct tree_file *t, const struct hunk *h, size_t from, size_t to,
		       size_t at)
{
	if (at + (to - from) > t->n)
		return false;
	for (size_t i = from; i < to; i++)
		if (strcmp(t->line[at + i - from], h->text[i]))
			return false;
	return true;
}

/* The tree's line index nearest to @near, at most @span away, where @h's lines [@from, @to)
 * stand, or -1. */
static long find_block(const struct tree_file *t, const struct hunk *h, size_t from, size_t to,
		       long near, long span)
{
	for (long d = 0; d <= span && d <= (long)t->n; d++) {
		if (near - d >= 0 && matches_at(t, h, from, to, near - d))
			return near - d;
		if (d && near + d < (long)t->n && matches_at(t, h, from, to, near + d))
			return near + d;
	}
	return -1;
}

/*
 * Can line @s be found on its own? Only a line few others look like: at least 12 characters
 * besides blanks (never a brace, "return 0;", "} else {").
 */
static bool distinctive(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s != ' ' && *s != '\t';
	return n >= 12;
}

/* How far from its header's line a hunk, or a line of it, is looked for: the moves a series'
 * other patches make in one file. */
#define HUNK_SPAN 1000

/*
 * Record @h's added lines where the tree has them: the whole hunk where it stands; failing that
 * (a later patch changed its context or some of its lines), each distinctive added line where
 * that line stands, nearest to where the hunk put it; else 0 (not found).
 */
static int locate(struct added_lines *al, struct tree_file *t, const char *tree, struct hunk *h)
{
	long at;

	if (tree_file_load(t, tree, h->file))
		return -1;
	at = find_block(t, h, 0, h->n, (long)h->start - 1, HUNK_SPAN);
	for (size_t i = 0; i < h->n; i++) {
		long line_at = at >= 0 ? at + (long)i : -1;

		if (!h->added[i])
			continue;
		if (line_at < 0 && distinctive(h->text[i]))
			line_at = find_block(t, h, i, i + 1, (long)(h->start - 1 + i), HUNK_SPAN);
		if (add(al, h->file, line_at >= 0 ? (unsigned int)line_at + 1 : 0, h->patch))
			return -1;
	}
	return 0;
}

/* "@@ -A[,B] +C[,D] @@": a missing count is 1 (diff's own convention). */
static int hunk_header(const char *s, struct hunk *h)
{
	unsigned int a, b = 1, c, d = 1;
	int pos = 0;

	if (sscanf(s, "@@ -%u%n", &a, &pos) != 1)
		return -1;
	s += pos;
	if (*s == ',' && sscanf(s, ",%u%n", &b, &pos) == 1)
		s += pos;
	if (sscanf(s, " +%u%n", &c, &pos) != 1)
		return -1;
	s += pos;
	if (*s == ',' && sscanf(s, ",%u%n", &d, &pos) == 1)
		s += pos;
	if (strncmp(s, " @@", 3))
		return -1;
	h->old_left = b;
	h->start = c;
	h->new_left = d;
	return 0;
}

static int keep(struct hunk *h, const char *text, bool added)
{
	char **t = realloc(h->text, (h->n + 1) * sizeof(*t));
	bool *a;

	if (!t)
		return -1;
	h->text = t;
	a = realloc(h->added, (h->n + 1) * sizeof(*a));
	if (!a)
		return -1;
	h->added = a;
	h->text[h->n] = strndup(text, strcspn(text, "\n"));
	h->added[h->n] = added;
	return h->text[h->n++] ? 0 : -1;
}

/* One line inside a hunk: counted off, and its new side kept. */
static int hunk_line(struct hunk *h, const char *line)
{
	switch (line[0]) {
	case '+':
		if (!h->new_left)
			return -1;
		h->new_left--;
		return keep(h, line + 1, true);
	case '-':
		if (!h->old_left)
			return -1;
		h->old_left--;
		return 0;
	case ' ':
	case '\n':	/* an empty context line some tools write without its space */
		if (!h->old_left || !h->new_left)
			return -1;
		h->old_left--;
		h->new_left--;
		return keep(h, line[0] == ' ' ? line + 1 : "", false);
	default:
		return -1;
	}
}

static int parse(struct added_lines *al, FILE *in, const char *path, const char *tree,
		 char *err, size_t errlen)
{
	char line[8192];
	struct hunk h = { .patch = strrchr(path, '/') ? strrchr(path, '/') + 1 : path };
	struct tree_file t = { 0 };
	unsigned long no = 0;
	int rc = 0;

	while (!rc && fgets(line, sizeof(line), in)) {
		no++;
		if (h.old_left || h.new_left) {
			if (line[0] == '\\')	/* "\ No newline at end of file" */
				continue;
			if (hunk_line(&h, line))
				rc = errmsg(err, errlen, "%s:%lu: a line the hunk does not count", path, no);
			else if (!h.old_left && !h.new_left && locate(al, &t, tree, &h))
				rc = errmsg(err, errlen, "%s: cannot read %s in the tree (or out of memory)",
					    path, h.file);
		} else if (!strncmp(line, "+++ ", 4)) {
			/* one leading directory dropped, as patch -p1 does (b/, new/, linux-x.y/) */
			const char *f = line + 4, *slash = strchr(f, '/');

			if (slash && slash < f + strcspn(f, "\t\n"))
				f = slash + 1;
			snprintf(h.file, sizeof(h.file), "%.*s", (int)strcspn(f, "\t\n"), f);
		} else if (!strncmp(line, "@@ ", 3)) {
			hunk_reset(&h);
			if (!h.file[0] || hunk_header(line, &h))
				rc = errmsg(err, errlen, "%s:%lu: a hunk header that does not parse", path, no);
		}
	}
	if (!rc && ferror(in))
		rc = errmsg(err, errlen, "%s: %s", path, strerror(errno));
	if (!rc && (h.old_left || h.new_left))
		rc = errmsg(err, errlen, "%s: the last hunk is cut short", path);
	hunk_reset(&h);
	tree_file_free(&t);
	return rc;
}

int added_lines_read(struct added_lines *al, const char *path, const char *tree, char *err,
		     size_t errlen)
{
	FILE *in = fopen(path, "r");
	int rc;

	if (!in)
		return errmsg(err, errlen, "%s: %s", path, strerror(errno));
	rc = parse(al, in, path, tree, err, errlen);
	fclose(in);
	return rc;
}

void added_lines_free(struct added_lines *al)
{
	for (size_t i = 0; i < al->n; i++) {
		free(al->v[i].path);
		free(al->v[i].patch);
	}
	free(al->v);
	memset(al, 0, sizeof(*al));
}
