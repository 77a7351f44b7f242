// SPDX-License-Identifier: GPL-2.0
/* A small text file read whole (text_file.h). */
#include "text_file.h"

#include <stdio.h>
#include <string.h>

int text_file_read(const char *path, char *buf, size_t cap, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f) {
		snprintf(err, errlen, "%s: cannot read it", path);
		return -1;
	}
	n = fread(buf, 1, cap - 1, f);
	if (ferror(f) || !feof(f) || memchr(buf, '\0', n)) {
		if (ferror(f) || memchr(buf, '\0', n))
			snprintf(err, errlen, "%s: %s", path, ferror(f) ? "cannot read it" :
				 "not a text file");
		else
			snprintf(err, errlen, "%s: longer than %zu bytes", path, cap - 1);
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[n] = '\0';
	return 0;
}
