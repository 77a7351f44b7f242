/* SPDX-License-Identifier: GPL-2.0 */
/* Strict number parsing for command-line values: whole string, base 10 (or 0x hex), in range. */
#ifndef SYNTWIN_PARSE_NUM_H
#define SYNTWIN_PARSE_NUM_H

#include <stddef.h>
#include <stdint.h>

/*
 * Parse @s as an integer in [@min, @max] into @out.
 * Returns 0, or -1 with a message naming @flag in @err (e.g. "--smp: 'x' is not a number").
 */
int parse_u64_range(const char *flag, const char *s, uint64_t min, uint64_t max,
		    uint64_t *out, char *err, size_t errlen);
int parse_int_range(const char *flag, const char *s, int min, int max, int *out,
		    char *err, size_t errlen);
/* "I/N", 0 <= I < N <= 1024 (--shard). Returns 0, or -1 with a message in @err. */
int parse_shard(const char *s, uint64_t *i, uint64_t *n, char *err, size_t errlen);

#endif
