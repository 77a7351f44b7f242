// SPDX-License-Identifier: GPL-2.0
/* A set of capture keys (keyset.h). */
#include "keyset.h"

#include <stdlib.h>
#include <string.h>

#include "fnv.h"

static size_t slot_of(const struct keyset *s, const struct capture_key *k)
{
	size_t i = (size_t)fnv1a(FNV1A_INIT, k, sizeof(*k)) & (s->cap - 1);

	while (s->used[i] && memcmp(&s->slot[i], k, sizeof(*k)))
		i = (i + 1) & (s->cap - 1);
	return i;
}

/* Twice the room (at least 1024 slots), every key placed again. */
static int grow(struct keyset *s)
{
	struct keyset g = { .cap = s->cap ? 2 * s->cap : 1024 };

	g.slot = calloc(g.cap, sizeof(*g.slot));
	g.used = calloc(g.cap, sizeof(*g.used));
	if (!g.slot || !g.used) {
		free(g.slot);
		free(g.used);
		return -1;
	}
	for (size_t i = 0; i < s->cap; i++)
		if (s->used[i]) {
			size_t j = slot_of(&g, &s->slot[i]);

			g.slot[j] = s->slot[i];
			g.used[j] = true;
			g.n++;
		}
	keyset_free(s);
	*s = g;
	return 0;
}

int keyset_add(struct keyset *s, const struct capture_key *k)
{
	size_t i;

	if (2 * (s->n + 1) > s->cap && grow(s))
		return -1;
	i = slot_of(s, k);
	if (!s->used[i]) {
		s->slot[i] = *k;
		s->used[i] = true;
		s->n++;
	}
	return 0;
}

bool keyset_has(const struct keyset *s, const struct capture_key *k)
{
	return s->cap && s->used[slot_of(s, k)];
}

int keyset_find_below(const struct keyset *s, const struct capture_key *k, unsigned int below,
		      struct capture_key *found)
{
	struct capture_key t = *k;

	for (unsigned int d = 0; d <= below; d++) {
		t.seq = k->seq - d;
		if (keyset_has(s, &t)) {
			*found = t;
			return (int)d;
		}
	}
	return -1;
}

void keyset_free(struct keyset *s)
{
	free(s->slot);
	free(s->used);
	*s = (struct keyset){ 0 };
}
