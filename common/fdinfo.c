// SPDX-License-Identifier: GPL-2.0
/* fdinfo fields (see fdinfo.h). */
#include "fdinfo.h"

#include <stdio.h>
#include <string.h>

long long fdinfo_number(int fd, const char *field)
{
	char path[64], line[256];
	size_t fl = strlen(field);
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, fl) && line[fl] == ':' && sscanf(line + fl + 1, "%lld", &v) == 1)
			break;
	fclose(f);
	return v;
}
