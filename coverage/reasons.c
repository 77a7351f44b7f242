// SPDX-License-Identifier: GPL-2.0
/* The reasons file (see reasons.h). */
#include "reasons.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int reasons_read(struct reasons *r, const char *path, char *err, size_t errlen)
{
	FILE *in = fopen(path, "r");
	char line[1024];
	unsigned long no = 0;

	memset(r, 0, sizeof(*r));
	if (!in) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), in)) {
		char *fn = line, *text, *cls, *why;
		struct reason *v;

		no++;
		line[strcspn(line, "\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		text = strchr(fn, '\t');
		cls = text ? strchr(text + 1, '\t') : NULL;
		why = cls ? strchr(cls + 1, '\t') : NULL;
		if (!why || text == fn || cls == text + 1 || !why[1] ||
		    (strncmp(cls + 1, "unreachable\t", 12) && strncmp(cls + 1, "gap\t", 4))) {
			snprintf(err, errlen,
				 "%s:%lu: expected FUNCTION<TAB>TEXT<TAB>unreachable|gap<TAB>WHY", path, no);
			fclose(in);
			reasons_free(r);
			return -1;
		}
		*text++ = '\0';
		*cls++ = '\0';
		*why++ = '\0';
		v = realloc(r->v, (r->n + 1) * sizeof(*v));
		if (!v)
			goto oom;
		r->v = v;
		v[r->n++] = (struct reason){ strdup(fn), strdup(text), strdup(why),
					     !strcmp(cls, "unreachable"), 0 };
		if (!v[r->n - 1].fn || !v[r->n - 1].text || !v[r->n - 1].why)
			goto oom;
	}
	fclose(in);
	return 0;
oom:
	snprintf(err, errlen, "%s: out of memory", path);
	fclose(in);
	reasons_free(r);
	return -1;
}

struct reason *reason_for(struct reasons *r, const char *fn, const char *text)
{
	if (!fn)
		return NULL;
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].fn, fn) &&
		    (!strcmp(r->v[i].text, "*") || !strcmp(text, r->v[i].text)))
			return &r->v[i];
	return NULL;
}

void reasons_free(struct reasons *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].fn);
		free(r->v[i].text);
		free(r->v[i].why);
	}
	free(r->v);
	memset(r, 0, sizeof(*r));
}
