/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's lines that touch the saved copy, found in the source of the tree under test (never
 * a hand-kept list of lines): every line naming one of a names file's identifiers, and every line
 * of the functions it names as bodies. The names file (coverage/saved-copy.names) says what
 * "touch the copy" means; this finds where, on whatever tree it is given.
 */
#ifndef SYNTWIN_COPY_LINES_H
#define SYNTWIN_COPY_LINES_H

#include <stddef.h>

enum copy_name_kind {
	NAME_WORD,	/* a line naming this identifier */
	NAME_PREFIX,	/* a line naming an identifier that begins with this */
	NAME_BODY,	/* every line of this function's body (its "{" to its "}") */
};

struct copy_name {
	enum copy_name_kind kind;
	char id[64];
	unsigned int hits;	/* lines (or bodies) it matched in the scan, counted or not */
};

struct copy_names {
	struct copy_name *v;
	size_t n;
};

struct copy_line {
	char *path;		/* relative to the tree */
	unsigned int line;
	char *text;		/* the source line, trimmed */
	const struct copy_name *by;	/* the name that made it count (in the names read) */
};

struct copy_lines {
	struct copy_line *v;
	size_t n;
};

/* Names file @path: lines "word|prefix|body IDENTIFIER", '#' comments. 0, or -1 with @err. */
int copy_names_read(struct copy_names *cn, const char *path, char *err, size_t errlen);
void copy_names_free(struct copy_names *cn);

/*
 * Every .c and .h file under @tree's directories @dirs (e.g. "net", "include"), scanned for
 * @cn: the matching lines appended to @cl in path and line order. 0, or -1 with @err.
 */
int copy_lines_scan(struct copy_lines *cl, const struct copy_names *cn, const char *tree,
		    const char *const *dirs, size_t ndirs, char *err, size_t errlen);
/* The same for one file's text (@path names it in the result): the scanner's core. */
int copy_lines_scan_text(struct copy_lines *cl, const struct copy_names *cn, const char *path,
			 const char *text);
void copy_lines_free(struct copy_lines *cl);

#endif
