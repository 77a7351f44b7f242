// SPDX-License-Identifier: GPL-2.0
/* /proc/net/netstat reader (netstat.h). */
#include "netstat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t tcpext_counter(const char *name)
{
	/* the file comes as pairs of lines: "TcpExt: Name ..." then "TcpExt: value ..." */
	static char names[8192], values[8192];
	int64_t result = -1;
	FILE *f = fopen("/proc/net/netstat", "re");

	if (!f)
		return -1;
	while (fgets(names, sizeof(names), f) && fgets(values, sizeof(values), f)) {
		char *sn, *sv, *n = strtok_r(names, " \n", &sn), *v = strtok_r(values, " \n", &sv);

		if (!n || strcmp(n, "TcpExt:"))
			continue;
		while ((n = strtok_r(NULL, " \n", &sn)) && (v = strtok_r(NULL, " \n", &sv)))
			if (!strcmp(n, name))
				result = strtoll(v, NULL, 10);
	}
	fclose(f);
	return result;
}
