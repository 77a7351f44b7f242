/* SPDX-License-Identifier: GPL-2.0 */
/* FNV-1a (64-bit): a quick hash for the tables of labels, fingerprints and checks by label. */
#ifndef SYNTWIN_FNV_H
#define SYNTWIN_FNV_H

#include <stddef.h>
#include <stdint.h>

#define FNV1A_INIT 0xcbf29ce484222325ull

/* @h carried over @n bytes at @p (start from FNV1A_INIT). */
static inline uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/* @h carried over the bytes of string @s, not its NUL. */
static inline uint64_t fnv1a_str(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return h;
}

#endif
