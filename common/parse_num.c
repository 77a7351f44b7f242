// SPDX-License-Identifier: GPL-2.0
/* Strict number parsing for command-line values (see parse_num.h). */
#include "parse_num.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int parse_u64_range(const char *flag, const char *s, uint64_t min, uint64_t max,
		    uint64_t *out, char *err, size_t errlen)
{
	unsigned long long v;
	char *end;

	if (!s || !*s) {
		snprintf(err, errlen, "%s: missing value", flag);
		return -1;
	}
	/* strtoull accepts leading blanks and a minus sign: we accept neither. */
	if (!isdigit((unsigned char)s[0])) {
		snprintf(err, errlen, "%s: '%s' is not a non-negative number", flag, s);
		return -1;
	}
	errno = 0;
	v = strtoull(s, &end, 10); /* decimal: "010" is ten, as the shell reads it */
	if (errno == ERANGE || *end) {
		snprintf(err, errlen, "%s: '%s' is not a number%s", flag, s,
			 errno == ERANGE ? " in range" : "");
		return -1;
	}
	if (v < min || v > max) {
		snprintf(err, errlen, "%s: %llu is out of range [%llu, %llu]", flag, v,
			 (unsigned long long)min, (unsigned long long)max);
		return -1;
	}
	*out = v;
	return 0;
}

int parse_int_range(const char *flag, const char *s, int min, int max, int *out,
		    char *err, size_t errlen)
{
	uint64_t v;

	if (parse_u64_range(flag, s, (uint64_t)min, (uint64_t)max, &v, err, errlen))
		return -1;
	*out = (int)v;
	return 0;
}

int parse_shard(const char *s, uint64_t *i, uint64_t *n, char *err, size_t errlen)
{
	const char *slash = strchr(s, '/');
	char left[24];

	if (!slash || (size_t)(slash - s) >= sizeof(left)) {
		snprintf(err, errlen, "--shard '%s' is not I/N", s);
		return -1;
	}
	snprintf(left, sizeof(left), "%.*s", (int)(slash - s), s);
	if (parse_u64_range("--shard's N", slash + 1, 1, 1024, n, err, errlen) ||
	    parse_u64_range("--shard's I", left, 0, *n - 1, i, err, errlen))
		return -1;
	return 0;
}
