// SPDX-License-Identifier: GPL-2.0
/* Lowercase hex encoding (see hex.h). */
#include "hex.h"

void hex_encode(const uint8_t *p, size_t n, char *out)
{
	static const char d[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = d[p[i] >> 4];
		out[2 * i + 1] = d[p[i] & 15];
	}
	out[2 * n] = '\0';
}
