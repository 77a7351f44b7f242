/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lines a patch adds, by file and line number in the patched tree (its hunks' '+' lines).
 * Each hunk is found in the tree as it is built, the way patch(1) finds it: its new side
 * (context and added lines) matched nearest to the line its header names, since a series'
 * later patches move an earlier one's lines; failing that, each run of added lines on its own.
 * These are "the series' own hunks" the coverage report measures.
 */
#ifndef SYNTWIN_PATCH_LINES_H
#define SYNTWIN_PATCH_LINES_H

#include <stddef.h>

struct added_line {
	char *path;		/* the file, as the patch's "+++ b/PATH" names it */
	unsigned int line;	/* in the tree; 0: not found there (a later patch changed it) */
	char *patch;		/* the patch's file name, for the report */
};

struct added_lines {
	struct added_line *v;
	size_t n;
};

/*
 * Append the lines patch file @path adds to @al, found in the tree at @tree. Returns 0, or -1
 * with "why" in @err (unreadable, a hunk header that does not parse, a hunk cut short).
 */
int added_lines_read(struct added_lines *al, const char *path, const char *tree, char *err,
		     size_t errlen);
void added_lines_free(struct added_lines *al);

#endif
