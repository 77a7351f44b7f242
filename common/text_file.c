// SPDX-License-Identifier: GPL-2.0
/* A small text file read whole (text_file.h). */
#include "text_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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

char *text_file_all(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0;
	int err;

	if (!f)
		return NULL;
	if (getdelim(&buf, &cap, '\0', f) < 0) {
		err = ferror(f) ? errno : !buf ? ENOMEM : 0;
		if (err) {
			free(buf);
			fclose(f);
			errno = err;
			return NULL;
		}
		buf[0] = '\0';	/* an empty file */
	}
	fclose(f);
	return buf;
}
