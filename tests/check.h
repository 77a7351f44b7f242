/* SPDX-License-Identifier: GPL-2.0 */
/* Minimal assertion helpers for syntwin's C tests: count, print the failing expression, go on. */
#ifndef SYNTWIN_CHECK_H
#define SYNTWIN_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_pass, check_fail;

#define CHECK(cond, ...)                                                        \
	do {                                                                    \
		if (cond) {                                                     \
			check_pass++;                                           \
		} else {                                                        \
			check_fail++;                                           \
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                           \
			fputc('\n', stderr);                                    \
		}                                                               \
	} while (0)

#define CHECK_EQ_INT(actual, expected)                                          \
	CHECK((long long)(actual) == (long long)(expected),                     \
	      "expected: %lld (0x%llx) vs actual: %lld (0x%llx)",               \
	      (long long)(expected), (unsigned long long)(expected),            \
	      (long long)(actual), (unsigned long long)(actual))

#define CHECK_STR_CONTAINS(hay, needle)                                         \
	CHECK(strstr((hay), (needle)) != NULL, "'%s' does not contain '%s'", (hay), (needle))

/* The closing line CI reads: "N passed, N failed". Returns the exit status. */
static inline int check_report(const char *suite)
{
	printf("%s: %d passed, %d failed\n", suite, check_pass, check_fail);
	return check_fail ? 1 : 0;
}

#endif
