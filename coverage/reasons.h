/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Why a line of the saved copy's code is not executed by any guest traffic: the reasons file
 * (coverage/unreached.reasons), one line per reason, "FUNCTION<TAB>TEXT<TAB>CLASS<TAB>WHY": it
 * covers the lines of FUNCTION whose source, without its indentation, is TEXT ("*": every
 * line of it). CLASS is
 * "unreachable" (no traffic a guest can make reaches it, WHY says why) or "gap" (traffic could,
 * none does yet: WHY says what it would take). Keyed by function and text, not line numbers, so
 * one file serves every kernel version; a line no reason covers is a gap too, and the report
 * says which have no reason on record.
 */
#ifndef SYNTWIN_REASONS_H
#define SYNTWIN_REASONS_H

#include <stddef.h>

struct reason {
	char *fn, *text, *why;
	int unreachable;	/* 1: unreachable in a guest; 0: a known gap */
	unsigned int used;	/* lines it covered in this report */
};

struct reasons {
	struct reason *v;
	size_t n;
};

/* 0, or -1 with "why" in @err (unreadable; a line without its four fields, an unknown CLASS). */
int reasons_read(struct reasons *r, const char *path, char *err, size_t errlen);
/* The reason covering line @text (trimmed) of function @fn, or NULL. */
struct reason *reason_for(struct reasons *r, const char *fn, const char *text);
void reasons_free(struct reasons *r);

#endif
