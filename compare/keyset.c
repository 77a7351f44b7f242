// SPDX-License-Identifier: GPL-2.0
/* A set of capture keys (keyset.h). */
#include "keyset.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

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

int synack_answers(const struct capture_rec *r, struct capture_key *syn)
{
	const __u8 *ip = r->data + r->mac_len, *tcp = ip + r->net_len;
	size_t alen = r->family == AF_INET6 ? 16 : 4, aoff = r->family == AF_INET6 ? 8 : 12;
	__u32 ack;

	if (!(r->flags & CAP_F_SYNACK) || (r->flags & (CAP_F_NO_SYN | CAP_F_TRUNCATED)) ||
	    (size_t)r->mac_len + r->net_len + 20 > r->cap_len || r->cap_len > CAPTURE_MAX ||
	    (tcp[13] & 0x12) != 0x12)
		return -1;
	memset(syn, 0, sizeof(*syn));
	syn->family = r->family;
	memcpy(syn->saddr, ip + aoff + alen, alen);
	memcpy(syn->daddr, ip + aoff, alen);
	memcpy(&syn->sport, tcp + 2, 2);
	memcpy(&syn->dport, tcp, 2);
	ack = (__u32)tcp[8] << 24 | tcp[9] << 16 | tcp[10] << 8 | tcp[11];
	syn->seq = ack - 1;
	return 0;
}

bool late_answer(const struct capture_rec *r, const struct keyset *judged)
{
	struct capture_key syn;

	return (r->flags & CAP_F_SYNACK) && !(r->flags & CAP_F_SAVED) && r->copies &&
	       r->drops >= r->copies && synack_answers(r, &syn) == 0 && keyset_has(judged, &syn);
}
