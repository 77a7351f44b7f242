/* SPDX-License-Identifier: GPL-2.0 */
/* An error message into a caller's buffer, for functions that return -1 and say why. */
#ifndef SYNTWIN_ERRMSG_H
#define SYNTWIN_ERRMSG_H

#include <stddef.h>

/* printf @fmt into @err (@errlen bytes); returns -1, so a caller can `return errmsg(...)`. */
int errmsg(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
