/* SPDX-License-Identifier: GPL-2.0 */
/* A small text file read whole, for the declarations a run is given (provides, tree facts). */
#ifndef SYNTWIN_TEXT_FILE_H
#define SYNTWIN_TEXT_FILE_H

#include <stddef.h>

/*
 * File @path into @buf (@cap bytes, NUL-terminated). Returns 0, or -1 with "PATH: why" in @err
 * (cannot read it, not a text file, longer than @cap - 1 bytes).
 */
int text_file_read(const char *path, char *buf, size_t cap, char *err, size_t errlen);

/*
 * File @path whole, however long (up to a NUL byte, which no source file has), in a buffer of
 * its own (NUL-terminated; the caller frees it): for source files a tool reads line by line.
 * NULL with errno set if it cannot be read.
 */
char *text_file_all(const char *path);

#endif
