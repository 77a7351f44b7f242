// SPDX-License-Identifier: GPL-2.0
/* The capture points' names and lists (point_names.h). */
#include "point_names.h"

#include <stdio.h>
#include <string.h>

const char *const point_names[PT_MAX] = { CAPTURE_POINT_NAMES };

int points_parse(const char *list, unsigned int *mask, char *err, size_t errlen)
{
	const char *p = list;

	*mask = 0;
	if (!strcmp(list, "all")) {
		*mask = (1u << PT_MAX) - 1;
		return 0;
	}
	while (*p) {
		size_t n = strcspn(p, ",");
		int i;

		for (i = 0; i < PT_MAX; i++)
			if (strlen(point_names[i]) == n && !strncmp(p, point_names[i], n))
				break;
		if (i == PT_MAX) {
			snprintf(err, errlen, "--capture-points: '%.*s' is not a capture point (known: "
				 "xdp, tc, tcp, wire, or all)", (int)n, p);
			return -1;
		}
		*mask |= 1u << i;
		p += n;
		if (*p == ',' && !*++p) {
			snprintf(err, errlen, "--capture-points: '%s' ends with a comma", list);
			return -1;
		}
	}
	return 0;
}

void points_text(unsigned int mask, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < PT_MAX; i++)
		if (mask & (1u << i) && used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "," : "",
						 point_names[i]);
}
