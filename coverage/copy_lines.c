// SPDX-License-Identifier: GPL-2.0
/* The saved copy's lines in a kernel tree's source (see copy_lines.h). */
#define _XOPEN_SOURCE 700
#include "copy_lines.h"

#include <ctype.h>
#include <errno.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "text_file.h"

static bool is_id(int c)
{
	return isalnum((unsigned char)c) || c == '_';
}

int copy_names_read(struct copy_names *cn, const char *path, char *err, size_t errlen)
{
	FILE *in = fopen(path, "r");
	char line[256], kind[16], id[64], extra[2];
	unsigned long no = 0;

	memset(cn, 0, sizeof(*cn));
	if (!in)
		return errmsg(err, errlen, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), in)) {
		struct copy_name *v;
		int n;

		no++;
		line[strcspn(line, "#")] = '\0';
		n = sscanf(line, "%15s %63s %1s", kind, id, extra);
		if (n <= 0)
			continue;
		v = realloc(cn->v, (cn->n + 1) * sizeof(*v));
		if (!v) {
			fclose(in);
			copy_names_free(cn);
			return errmsg(err, errlen, "%s: out of memory", path);
		}
		cn->v = v;
		if (n != 2)
			goto bad;
		if (!strcmp(kind, "word"))
			v[cn->n].kind = NAME_WORD;
		else if (!strcmp(kind, "prefix"))
			v[cn->n].kind = NAME_PREFIX;
		else if (!strcmp(kind, "body"))
			v[cn->n].kind = NAME_BODY;
		else
			goto bad;
		for (const char *c = id; *c; c++)
			if (!is_id(*c))
				goto bad;
		snprintf(v[cn->n++].id, sizeof(v->id), "%s", id);
	}
	fclose(in);
	if (!cn->n)
		return errmsg(err, errlen, "%s: names no identifier", path);
	return 0;
bad:
	fclose(in);
	copy_names_free(cn);
	return errmsg(err, errlen, "%s:%lu: expected 'word|prefix|body IDENTIFIER'", path, no);
}

void copy_names_free(struct copy_names *cn)
{
	free(cn->v);
	memset(cn, 0, sizeof(*cn));
}

/*
 * Where code ends on this line: where a comment starts (slash-slash or slash-star), or at once
 * when the line continues a comment (a star, then a space, a slash or nothing). A name in a
 * comment is no use of it.
 */
static size_t code_len(const char *s, size_t len)
{
	size_t i = 0;
	bool in_str = false;

	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	/* a comment's continuation; "*p = x" is code */
	if (i < len && s[i] == '*' && (i + 1 == len || s[i + 1] == ' ' || s[i + 1] == '/'))
		return 0;
	for (; i < len; i++) {
		if (s[i] == '"' && (!i || s[i - 1] != '\\'))
			in_str = !in_str;
		else if (!in_str && s[i] == '/' && i + 1 < len && (s[i + 1] == '/' || s[i + 1] == '*'))
			return i;
	}
	return len;
}

/*
 * The first word or prefix name line @s names (whole identifiers, outside string literals and
 * comments), or NULL; every name it names has its hits counted.
 */
static const struct copy_name *names_in(const struct copy_names *cn, const char *s, size_t len)
{
	const struct copy_name *first = NULL;
	bool in_str = false;

	len = code_len(s, len);
	for (size_t i = 0; i < len; i++) {
		size_t j = i;

		if (s[i] == '"' && (!i || s[i - 1] != '\\'))
			in_str = !in_str;
		if (in_str || !is_id(s[i]) || (i && is_id(s[i - 1])))
			continue;
		while (j < len && is_id(s[j]))
			j++;
		for (size_t k = 0; k < cn->n; k++) {
			size_t n = strlen(cn->v[k].id);

			if (cn->v[k].kind == NAME_BODY || n > j - i || memcmp(s + i, cn->v[k].id, n))
				continue;
			if (n == j - i || cn->v[k].kind == NAME_PREFIX) {
				cn->v[k].hits++;
				if (!first)
					first = &cn->v[k];
			}
		}
		i = j;
	}
	return first;
}

struct text_lines {
	const char **start;
	size_t *len;
	size_t n;
};

static int split(struct text_lines *tl, const char *text)
{
	size_t cap = 1;

	for (const char *c = text; *c; c++)
		cap += *c == '\n';
	tl->start = malloc(cap * sizeof(*tl->start));
	tl->len = malloc(cap * sizeof(*tl->len));
	tl->n = 0;
	if (!tl->start || !tl->len)
		return -1;
	for (const char *c = text; *c;) {
		const char *e = strchr(c, '\n');
		size_t n = e ? (size_t)(e - c) : strlen(c);

		tl->start[tl->n] = c;
		tl->len[tl->n++] = n;
		c += n + (e != NULL);
	}
	return 0;
}

/* Does line @s (at column 0) define function @id: its name then '(', and no ';' at the end? */
static bool defines(const char *s, size_t len, const char *id)
{
	size_t n = strlen(id);

	if (!len || !is_id(s[0]) || s[len - 1] == ';')
		return false;
	for (size_t i = 0; i + n < len; i++)
		if ((!i || !is_id(s[i - 1])) && !memcmp(s + i, id, n) && s[i + n] == '(')
			return true;
	return false;
}

/* Mark in @by the body of every definition of @name: its "{" line to its "}" at column 0. */
static void mark_bodies(const struct text_lines *tl, struct copy_name *name,
			const struct copy_name **by)
{
	for (size_t i = 0; i < tl->n; i++) {
		size_t open = i + 1;

		if (!defines(tl->start[i], tl->len[i], name->id))
			continue;
		/* the parameters may run over a few lines before the "{" */
		while (open < tl->n && open < i + 12 && tl->start[open][0] != '{' &&
		       !(tl->len[open] && tl->start[open][tl->len[open] - 1] == ';'))
			open++;
		if (open >= tl->n || tl->start[open][0] != '{')
			continue;
		name->hits++;
		for (size_t k = open; k < tl->n; k++) {
			if (!by[k])
				by[k] = name;
			if (tl->start[k][0] == '}')
				break;
		}
	}
}

static int add_line(struct copy_lines *cl, const char *path, unsigned int no, const char *s,
		    size_t len, const struct copy_name *by)
{
	struct copy_line *v = realloc(cl->v, (cl->n + 1) * sizeof(*v));

	if (!v)
		return -1;
	cl->v = v;
	while (len && isspace((unsigned char)*s))
		s++, len--;
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	v[cl->n].path = strdup(path);
	v[cl->n].text = strndup(s, len);
	v[cl->n].line = no;
	v[cl->n].by = by;
	if (!v[cl->n].path || !v[cl->n].text) {
		free(v[cl->n].path);
		free(v[cl->n].text);
		return -1;
	}
	cl->n++;
	return 0;
}

int copy_lines_scan_text(struct copy_lines *cl, const struct copy_names *cn, const char *path,
			 const char *text)
{
	struct text_lines tl;
	const struct copy_name **by;
	int rc = -1;

	if (split(&tl, text))
		goto out;
	by = calloc(tl.n + 1, sizeof(*by));
	if (!by)
		goto out;
	for (size_t i = 0; i < tl.n; i++)
		by[i] = names_in(cn, tl.start[i], tl.len[i]);
	for (size_t k = 0; k < cn->n; k++)
		if (cn->v[k].kind == NAME_BODY)
			mark_bodies(&tl, &cn->v[k], by);
	rc = 0;
	for (size_t i = 0; i < tl.n && !rc; i++)
		if (by[i])
			rc = add_line(cl, path, i + 1, tl.start[i], tl.len[i], by[i]);
	free(by);
out:
	free(tl.start);
	free(tl.len);
	return rc;
}

/* nftw has no context argument: the scan in progress. */
static struct {
	struct copy_lines *cl;
	const struct copy_names *cn;
	size_t rootlen;
	char *err;
	size_t errlen;
} scan;

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	size_t n = strlen(path);
	char *text;
	int rc;

	(void)st;
	(void)ftw;
	if (type != FTW_F || n < 2 || path[n - 2] != '.' || (path[n - 1] != 'c' && path[n - 1] != 'h'))
		return 0;
	text = text_file_all(path);
	if (!text) {
		errmsg(scan.err, scan.errlen, "%s: %s", path, strerror(errno));
		return 1;
	}
	rc = copy_lines_scan_text(scan.cl, scan.cn, path + scan.rootlen, text);
	free(text);
	if (rc)
		errmsg(scan.err, scan.errlen, "out of memory");
	return rc ? 1 : 0;
}

static int by_place(const void *a, const void *b)
{
	const struct copy_line *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c ? c : (x->line > y->line) - (x->line < y->line);
}

int copy_lines_scan(struct copy_lines *cl, const struct copy_names *cn, const char *tree,
		    const char *const *dirs, size_t ndirs, char *err, size_t errlen)
{
	char dir[4096];

	scan.cl = cl;
	scan.cn = cn;
	scan.rootlen = strlen(tree) + 1;
	scan.err = err;
	scan.errlen = errlen;
	for (size_t i = 0; i < ndirs; i++) {
		snprintf(dir, sizeof(dir), "%s/%s", tree, dirs[i]);
		int rc = nftw(dir, visit, 32, FTW_PHYS);

		if (rc < 0)
			return errmsg(err, errlen, "%s: %s", dir, strerror(errno));
		if (rc > 0)
			return -1;
	}
	qsort(cl->v, cl->n, sizeof(*cl->v), by_place);
	return 0;
}

void copy_lines_free(struct copy_lines *cl)
{
	for (size_t i = 0; i < cl->n; i++) {
		free(cl->v[i].path);
		free(cl->v[i].text);
	}
	free(cl->v);
	memset(cl, 0, sizeof(*cl));
}
