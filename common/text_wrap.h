/* SPDX-License-Identifier: GPL-2.0 */
/* Plain text wrapped at 72 columns, for what people paste into mail (report.txt). */
#ifndef SYNTWIN_TEXT_WRAP_H
#define SYNTWIN_TEXT_WRAP_H

#include <stdio.h>

#define WRAP_COLUMNS 72

/*
 * @text to @f as lines of at most WRAP_COLUMNS characters, broken at spaces: the first line
 * starts with @first, the others with @next. A word longer than a line is cut (hex, paths).
 */
void wrap_print(FILE *f, const char *first, const char *next, const char *text);

#endif
