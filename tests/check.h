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

/* Each side evaluated once: @actual may be a call with side effects (a connection made). */
#define CHECK_EQ_INT(actual, expected)                                          \
	do {                                                                    \
		long long a_ = (long long)(actual), e_ = (long long)(expected); \
		CHECK(a_ == e_, "%s: expected: %lld (0x%llx) vs actual: %lld (0x%llx)", \
		      #actual, e_, (unsigned long long)e_, a_, (unsigned long long)a_); \
	} while (0)

#define CHECK_STR_CONTAINS(hay, needle)                                         \
	CHECK(strstr((hay), (needle)) != NULL, "'%s' does not contain '%s'", (hay), (needle))

/* The closing line CI reads: "N passed, N failed". Returns the exit status. */
static inline int check_report(const char *suite)
{
	printf("%s: %d passed, %d failed\n", suite, check_pass, check_fail);
	return check_fail ? 1 : 0;
}

#endif
