// SPDX-License-Identifier: GPL-2.0
/* TCP and IPv4 options (tcp_opts.h). */
#include "tcp_opts.h"

bool opt_next(const uint8_t *o, size_t n, size_t *pos, struct opt *out)
{
	size_t i = *pos;

	if (i >= n)
		return false;
	out->kind = o[i];
	out->off = i;
	out->len = 1;
	out->bad = false;
	if (o[i] > 1) {
		if (i + 1 >= n || o[i + 1] < 2)
			out->bad = true;
		else
			out->len = o[i + 1];
	}
	*pos = i + out->len;
	return true;
}

bool tcp_last_tsval(const uint8_t *o, size_t len, uint32_t *val)
{
	struct opt op;
	size_t pos = 0;
	bool found = false;

	while (opt_next(o, len, &pos, &op) && op.kind != 0 && !op.bad) {
		if (op.kind == 8 && op.len == 10 && op.off + 10 <= len) {
			const uint8_t *t = o + op.off + 2;

			*val = (uint32_t)t[0] << 24 | (uint32_t)t[1] << 16 | (uint32_t)t[2] << 8 | t[3];
			found = true;
		}
	}
	return found;
}
