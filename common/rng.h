/* SPDX-License-Identifier: GPL-2.0 */
/* splitmix64: a tiny seeded generator, so every run is reproducible from its --seed. */
#ifndef SYNTWIN_RNG_H
#define SYNTWIN_RNG_H

#include <stdint.h>

static inline uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* True with probability @permille / 1000. */
static inline int rng_permille(uint64_t *s, unsigned int permille)
{
	return rng_next(s) % 1000 < permille;
}

#endif
