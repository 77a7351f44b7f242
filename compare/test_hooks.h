/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TEST ONLY: the faults the test suite asks of a run (--test-*), all behind these calls, each
 * doing nothing unless its option was given.
 */
#ifndef SYNTWIN_TEST_HOOKS_H
#define SYNTWIN_TEST_HOOKS_H

#include <stdbool.h>

#include "gather.h"
#include "options.h"

/* --test-fault: once --test-fault-after records are on disk, SIGKILL or panic the guest. */
void test_hooks_init(const struct opts *o, struct record_writer *w);
/* --test-corrupt K: the judged copy of every K-th record with both copies, one byte flipped. */
void test_corrupt_copy(const struct opts *o, struct run_stats *st, struct socket_seen *g);
/* --test-corrupt-covered: the kernel's copy made wrong inside the region an explanation covers
 * (into @buf, 1024 bytes), and judged again into @res. Returns the judge's result, or @bad. */
int test_corrupt_covered(const struct opts *o, struct run_stats *st, struct observation *ob,
			 struct compare_result *res, uint8_t *buf, int bad);
/* --test-reset I: the child of socket connection #I closes with an RST. */
void test_reset(const struct opts *o, int fd, const struct conn_record *c);

#endif
