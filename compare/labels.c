// SPDX-License-Identifier: GPL-2.0
/* Connection labels by flow and ISN (see labels.h). */
#include "labels.h"

#include "fnv.h"

#include <stdlib.h>
#include <string.h>

int labels_init(struct labels *t, size_t nbuckets)
{
	memset(t, 0, sizeof(*t));
	t->bucket = calloc(nbuckets, sizeof(*t->bucket));
	t->nbuckets = nbuckets;
	return t->bucket ? 0 : -1;
}

void labels_free(struct labels *t)
{
	for (size_t b = 0; t->bucket && b < t->nbuckets; b++)
		for (struct label *l = t->bucket[b], *n; l; l = n) {
			n = l->next;
			free(l);
		}
	free(t->bucket);
	t->bucket = NULL;
}

/* (the ISN aside: a label's flow is the connection's, whatever SYN it sent) */
static size_t hash_flow(const struct capture_key *f, size_t n)
{
	struct capture_key k = *f;

	k.seq = 0;
	memset(k.pad, 0, sizeof(k.pad));
	return (size_t)(fnv1a(FNV1A_INIT, &k, sizeof(k)) % n);
}

static bool same_flow(const struct capture_key *a, const struct capture_key *b)
{
	return flow_same(a, b);
}

int labels_put(struct labels *t, const struct label *l)
{
	struct label *c = malloc(sizeof(*c)), **p;

	if (!c)
		return -1;
	*c = *l;
	c->next = NULL;
	/* appended: labels of one flow given without an ISN are taken oldest first */
	for (p = &t->bucket[hash_flow(&l->flow, t->nbuckets)]; *p; p = &(*p)->next)
		;
	*p = c;
	t->live++;
	return 0;
}

/*
 * The link pointing at the label to take for @flow/@isn, or NULL. Of the labels without an
 * ISN: with @before_ns, the newest given before then (the SYN's first copy arrived then, and
 * its connection's label was the last given for the flow before its SYN); else the oldest.
 */
static struct label **find(const struct labels *t, const struct capture_key *flow, bool has_isn,
			   uint32_t isn, uint64_t before_ns)
{
	struct label **p, **oldest = NULL, **newest_before = NULL;

	for (p = &t->bucket[hash_flow(flow, t->nbuckets)]; *p; p = &(*p)->next) {
		if (!same_flow(&(*p)->flow, flow))
			continue;
		if ((*p)->has_isn) {
			if (has_isn && (*p)->isn == isn)
				return p;
			continue;
		}
		if (!oldest)
			oldest = p;
		if (before_ns && (*p)->t_ns && (*p)->t_ns < before_ns)
			newest_before = p; /* appended in the order given */
	}
	return newest_before ? newest_before : oldest;
}

const struct label *labels_peek(const struct labels *t, const struct capture_key *flow,
				bool has_isn, uint32_t isn, uint64_t before_ns)
{
	struct label **p = find(t, flow, has_isn, isn, before_ns);

	return p ? *p : NULL;
}

int labels_take(struct labels *t, const struct capture_key *flow, bool has_isn, uint32_t isn,
		uint64_t before_ns, struct label *out, bool *dup)
{
	struct label **p = find(t, flow, has_isn, isn, before_ns), *l;

	*dup = false;
	if (p) {
		l = *p;
		*p = l->next;
		t->live--;
		*out = *l;
		out->next = NULL;
		/* remembered by the ISN it turned out to have */
		t->recent[t->recent_next] = *out;
		t->recent[t->recent_next].has_isn = has_isn;
		t->recent[t->recent_next].isn = isn;
		t->recent_next = (t->recent_next + 1) % LABELS_RECENT;
		t->recent_n += t->recent_n < LABELS_RECENT;
		free(l);
		return 0;
	}
	if (!has_isn)
		return -1;
	for (size_t i = 1; i <= t->recent_n; i++) {
		const struct label *r = &t->recent[(t->recent_next + LABELS_RECENT - i) % LABELS_RECENT];

		if (r->has_isn && r->isn == isn && same_flow(&r->flow, flow)) {
			*out = *r;
			*dup = true;
			return 0;
		}
	}
	return -1;
}
