/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An lcov tracefile (`lcov --capture`, geninfo's format: SF, DA, end_of_record) read into
 * per-file tables of executable lines. Only what the report needs: which lines gcov calls
 * executable and how often each ran (the function a line lies in comes from the source: gcov's
 * function records name none that was inlined).
 */
#ifndef SYNTWIN_LCOV_INFO_H
#define SYNTWIN_LCOV_INFO_H

#include <stddef.h>

struct cov_line {
	unsigned int line;
	unsigned long long count;
};

struct cov_file {
	char *path;		/* relative to the tree (a root in cov_info_load stripped) */
	struct cov_line *lines;	/* sorted by line, one entry per line (counts of repeats summed) */
	size_t nlines;
};

struct cov_info {
	struct cov_file *files;
	size_t nfiles;
};

/*
 * Tracefile @path into @ci. Each SF path is made relative by stripping the first of @roots
 * (directories, without a trailing slash) it starts with. Returns 0, or -1 with "why" in @err
 * (unreadable, a malformed record, a record not closed).
 */
int cov_info_load(struct cov_info *ci, const char *path, const char *const *roots, size_t nroots,
		  char *err, size_t errlen);
void cov_info_free(struct cov_info *ci);

const struct cov_file *cov_file_find(const struct cov_info *ci, const char *relpath);
/* The entry of @line in @f, or NULL when gcov calls that line not executable. */
const struct cov_line *cov_line_find(const struct cov_file *f, unsigned int line);

#endif
