// SPDX-License-Identifier: GPL-2.0
/* TCP options (tcp_opts.h). */
#include "tcp_opts.h"

bool tcp_last_tsval(const uint8_t *o, size_t len, uint32_t *val)
{
	bool found = false;

	for (size_t i = 0; i + 1 < len && o[i];) {
		if (o[i] == 1) {
			i++;
			continue;
		}
		if (o[i + 1] < 2)
			break;
		if (o[i] == 8 && o[i + 1] == 10 && i + 10 <= len) {
			*val = (uint32_t)o[i + 2] << 24 | (uint32_t)o[i + 3] << 16 |
			       (uint32_t)o[i + 4] << 8 | o[i + 5];
			found = true;
		}
		i += o[i + 1];
	}
	return found;
}
