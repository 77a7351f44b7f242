// SPDX-License-Identifier: GPL-2.0
/* Bound records by socket cookie (bound_table.h). */
#include "bound_table.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct bound_table {
	struct bound_rec *slot;		/* rec.cookie 0: empty */
	size_t cap, n;			/* cap a power of two; n < cap * 3 / 4 */
};

static size_t hash(__u64 cookie, size_t cap)
{
	cookie ^= cookie >> 33;
	cookie *= 0xff51afd7ed558ccdULL;
	cookie ^= cookie >> 33;
	return (size_t)cookie & (cap - 1);
}

static int resize(struct bound_table *t, size_t cap)
{
	struct bound_rec *old = t->slot;
	size_t ocap = t->cap;

	t->slot = calloc(cap, sizeof(*t->slot));
	if (!t->slot) {
		t->slot = old;
		return -ENOMEM;
	}
	t->cap = cap;
	t->n = 0;
	for (size_t i = 0; i < ocap; i++)
		if (old[i].rec.cookie)
			bound_table_put(t, &old[i]);
	free(old);
	return 0;
}

struct bound_table *bound_table_new(void)
{
	struct bound_table *t = calloc(1, sizeof(*t));

	if (t && resize(t, 64)) {
		free(t);
		t = NULL;
	}
	return t;
}

void bound_table_free(struct bound_table *t)
{
	if (t)
		free(t->slot);
	free(t);
}

/* The slot of @cookie, or of the empty slot where it would go. */
static size_t find(const struct bound_table *t, __u64 cookie)
{
	size_t i = hash(cookie, t->cap);

	while (t->slot[i].rec.cookie && t->slot[i].rec.cookie != cookie)
		i = (i + 1) & (t->cap - 1);
	return i;
}

int bound_table_put(struct bound_table *t, const struct bound_rec *r)
{
	size_t i;

	if (!r->rec.cookie)
		return -EINVAL;
	if ((t->n + 1) * 4 > t->cap * 3 && resize(t, t->cap * 2))
		return -ENOMEM;
	i = find(t, r->rec.cookie);
	if (!t->slot[i].rec.cookie)
		t->n++;
	t->slot[i] = *r;
	return 0;
}

/* Empties slot @i and moves later records of its probe run back (no tombstones). */
static void remove_at(struct bound_table *t, size_t i)
{
	size_t mask = t->cap - 1, j = i;

	t->slot[i].rec.cookie = 0;
	t->n--;
	for (;;) {
		size_t home;

		j = (j + 1) & mask;
		if (!t->slot[j].rec.cookie)
			return;
		home = hash(t->slot[j].rec.cookie, t->cap);
		/* j's record may move to i only if its home is not in (i, j] cyclically */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			t->slot[i] = t->slot[j];
			t->slot[j].rec.cookie = 0;
			i = j;
		}
	}
}

int bound_table_get(struct bound_table *t, __u64 cookie, struct bound_rec *out, int take)
{
	size_t i;

	if (!cookie)
		return -ENOENT;
	i = find(t, cookie);
	if (!t->slot[i].rec.cookie)
		return -ENOENT;
	if (out)
		*out = t->slot[i];
	if (take)
		remove_at(t, i);
	return 0;
}

size_t bound_table_count(const struct bound_table *t)
{
	return t->n;
}

size_t bound_table_clear(struct bound_table *t)
{
	size_t n = t->n;

	memset(t->slot, 0, t->cap * sizeof(*t->slot));
	t->n = 0;
	return n;
}
