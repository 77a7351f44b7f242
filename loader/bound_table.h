/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The records the witness's ring buffer delivered and no consumer took yet, by socket cookie:
 * an open-addressing table (linear probing, deletion by backward shift) that grows as needed.
 * In flight are the sockets established but not yet judged: a few thousand at most.
 */
#ifndef SYNTWIN_BOUND_TABLE_H
#define SYNTWIN_BOUND_TABLE_H

#include <linux/types.h>
#include <stddef.h>

#include "capture.h"

struct bound_table;

struct bound_table *bound_table_new(void);
void bound_table_free(struct bound_table *t);

/* Files @r under r->rec.cookie (nonzero), replacing any record there. Returns 0 or -ENOMEM. */
int bound_table_put(struct bound_table *t, const struct bound_rec *r);

/* The record filed under @cookie into @out (NULL: only whether there is one); with @take,
 * removed. Returns 0 or -ENOENT. */
int bound_table_get(struct bound_table *t, __u64 cookie, struct bound_rec *out, int take);

/* Records filed and not taken. */
size_t bound_table_count(const struct bound_table *t);

/* Removes every record; returns how many there were. */
size_t bound_table_clear(struct bound_table *t);

#endif
