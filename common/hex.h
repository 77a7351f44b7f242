/* SPDX-License-Identifier: GPL-2.0 */
/* Lowercase hex encoding of byte strings, for JSON reports and the loader's output. */
#ifndef SYNTWIN_HEX_H
#define SYNTWIN_HEX_H

#include <stddef.h>
#include <stdint.h>

/* Write @n bytes of @p as 2n hex digits plus a NUL into @out (2n+1 bytes). */
void hex_encode(const uint8_t *p, size_t n, char *out);
/* The 2n hex digits at @hex (either case) into @n bytes at @out. Returns 0, or -1 at the first
 * character that is not a hex digit. */
int hex_decode(const char *hex, uint8_t *out, size_t n);

#endif
