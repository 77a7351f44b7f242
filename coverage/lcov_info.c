// SPDX-License-Identifier: GPL-2.0
/* An lcov tracefile's line and function records (see lcov_info.h). */
#include "lcov_info.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"

static int by_line(const void *a, const void *b)
{
	const struct cov_line *x = a, *y = b;

	return (x->line > y->line) - (x->line < y->line);
}

static const char *relative(const char *path, const char *const *roots, size_t nroots)
{
	for (size_t i = 0; i < nroots; i++) {
		size_t n = strlen(roots[i]);

		if (!strncmp(path, roots[i], n) && path[n] == '/')
			return path + n + 1;
	}
	return path;
}

/* Sort a finished file's lines and sum the counts of a line named twice (lcov may). */
static void finish_file(struct cov_file *f)
{
	size_t out = 0;

	qsort(f->lines, f->nlines, sizeof(*f->lines), by_line);
	for (size_t i = 0; i < f->nlines; i++) {
		if (out && f->lines[out - 1].line == f->lines[i].line)
			f->lines[out - 1].count += f->lines[i].count;
		else
			f->lines[out++] = f->lines[i];
	}
	f->nlines = out;
}

static int grow(void **p, size_t n, size_t size)
{
	void *q;

	if (n & (n - 1))	/* grow at powers of two */
		return 0;
	q = realloc(*p, (n ? 2 * n : 4) * size);
	if (!q)
		return -1;
	*p = q;
	return 0;
}

/* A DA:LINE,COUNT[,CHECKSUM] record of file @f (other records are not needed). */
static int add_record(struct cov_file *f, const char *line)
{
	unsigned int no;
	unsigned long long count;

	if (strncmp(line, "DA:", 3))
		return 0;
	if (sscanf(line + 3, "%u,%llu", &no, &count) != 2)
		return -1;
	if (grow((void **)&f->lines, f->nlines, sizeof(*f->lines)))
		return -1;
	f->lines[f->nlines++] = (struct cov_line){ no, count };
	return 0;
}

static int parse(struct cov_info *ci, FILE *in, const char *path, const char *const *roots,
		 size_t nroots, char *err, size_t errlen)
{
	char line[4096];
	struct cov_file *cur = NULL;
	unsigned long no = 0;

	while (fgets(line, sizeof(line), in)) {
		no++;
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "SF:", 3)) {
			if (cur)
				return errmsg(err, errlen, "%s:%lu: SF inside a record", path, no);
			/* a header's lines come once per object that compiles them: one table */
			cur = (struct cov_file *)cov_file_find(ci, relative(line + 3, roots, nroots));
			if (cur)
				continue;
			if (grow((void **)&ci->files, ci->nfiles, sizeof(*ci->files)))
				return errmsg(err, errlen, "out of memory");
			cur = &ci->files[ci->nfiles++];
			memset(cur, 0, sizeof(*cur));
			cur->path = strdup(relative(line + 3, roots, nroots));
			if (!cur->path)
				return errmsg(err, errlen, "out of memory");
		} else if (!strcmp(line, "end_of_record")) {
			if (!cur)
				return errmsg(err, errlen, "%s:%lu: end_of_record outside a record", path, no);
			finish_file(cur);
			cur = NULL;
		} else if (cur && add_record(cur, line)) {
			return errmsg(err, errlen, "%s:%lu: malformed record '%.60s'", path, no, line);
		}
	}
	if (ferror(in))
		return errmsg(err, errlen, "%s: %s", path, strerror(errno));
	if (cur)
		return errmsg(err, errlen, "%s: the last record (%s) is not closed", path, cur->path);
	return 0;
}

int cov_info_load(struct cov_info *ci, const char *path, const char *const *roots, size_t nroots,
		  char *err, size_t errlen)
{
	FILE *in = fopen(path, "r");
	int rc;

	memset(ci, 0, sizeof(*ci));
	if (!in)
		return errmsg(err, errlen, "%s: %s", path, strerror(errno));
	rc = parse(ci, in, path, roots, nroots, err, errlen);
	fclose(in);
	if (rc)
		cov_info_free(ci);
	return rc;
}

void cov_info_free(struct cov_info *ci)
{
	for (size_t i = 0; i < ci->nfiles; i++) {
		free(ci->files[i].lines);
		free(ci->files[i].path);
	}
	free(ci->files);
	memset(ci, 0, sizeof(*ci));
}

const struct cov_file *cov_file_find(const struct cov_info *ci, const char *relpath)
{
	for (size_t i = 0; i < ci->nfiles; i++)
		if (!strcmp(ci->files[i].path, relpath))
			return &ci->files[i];
	return NULL;
}

const struct cov_line *cov_line_find(const struct cov_file *f, unsigned int line)
{
	struct cov_line key = { .line = line };

	return bsearch(&key, f->lines, f->nlines, sizeof(*f->lines), by_line);
}
