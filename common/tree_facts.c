// SPDX-License-Identifier: GPL-2.0
/* The kernel tree's facts for the drop rules (tree_facts.h). */
#include "tree_facts.h"

#include <stdio.h>
#include <string.h>

#include "json_out.h"
#include "text_file.h"

/* "MAJOR.MINOR" of at most 3 digits each, nothing after. */
static bool parse_version(const char *v, unsigned int *major, unsigned int *minor)
{
	char tail;

	return sscanf(v, "%3u.%3u%c", major, minor, &tail) == 2 && v[0] >= '0' && v[0] <= '9' &&
	       strspn(v, "0123456789.") == strlen(v);
}

/* One line (@line, NUL-terminated, no newline). Returns 0, or -1 with @why set. */
static int parse_line(const char *line, struct tree_facts *t, unsigned int *seen,
		      const char **why)
{
	char key[16], val[16], extra;
	int n = sscanf(line, "%15s %15s %c", key, val, &extra);

	if (n <= 0)
		return 0;
	if (n != 2) {
		*why = "wants a fact and one value";
		return -1;
	}
	if (!strcmp(key, "version")) {
		if (*seen & 1 || !parse_version(val, &t->major, &t->minor)) {
			*why = *seen & 1 ? "version is given twice" : "version wants MAJOR.MINOR";
			return -1;
		}
		*seen |= 1;
		return 0;
	}
	if (!strcmp(key, "tcp_ao")) {
		if (*seen & 2 || (strcmp(val, "y") && strcmp(val, "n"))) {
			*why = *seen & 2 ? "tcp_ao is given twice" : "tcp_ao wants y or n";
			return -1;
		}
		t->tcp_ao = val[0] == 'y';
		*seen |= 2;
		return 0;
	}
	*why = "is not a fact (known: version, tcp_ao)";
	return -1;
}

int tree_facts_parse(const char *text, struct tree_facts *t, char *err, size_t errlen)
{
	unsigned int lineno = 1, seen = 0;

	memset(t, 0, sizeof(*t));
	for (const char *s = text; *s; lineno++) {
		const char *e = strchr(s, '\n'), *why = NULL;
		size_t len = e ? (size_t)(e - s) : strlen(s);
		char line[80];

		if (*s == '#') { /* a comment, of any length */
			s += len + (e ? 1 : 0);
			continue;
		}
		if (len >= sizeof(line)) {
			snprintf(err, errlen, "line %u: longer than %zu bytes", lineno, sizeof(line) - 1);
			return -1;
		}
		memcpy(line, s, len);
		line[len] = '\0';
		if (parse_line(line, t, &seen, &why)) {
			snprintf(err, errlen, "line %u: '%s' %s", lineno, line, why);
			return -1;
		}
		s += len + (e ? 1 : 0);
	}
	if (seen != 3) {
		snprintf(err, errlen, "%s is missing", seen & 1 ? "tcp_ao" : "version");
		return -1;
	}
	return 0;
}

int tree_facts_load(const char *path, struct tree_facts *t, char *err, size_t errlen)
{
	char buf[1024], msg[160];

	if (text_file_read(path, buf, sizeof(buf), err, errlen))
		return -1;
	if (tree_facts_parse(buf, t, msg, sizeof(msg))) {
		snprintf(err, errlen, "%s: %s", path, msg);
		return -1;
	}
	return 0;
}

bool tree_at_least(const struct tree_facts *t, unsigned int major, unsigned int minor)
{
	return t->major > major || (t->major == major && t->minor >= minor);
}

void tree_facts_json(struct json_out *j, const char *key, const struct tree_facts *t)
{
	char v[16];

	snprintf(v, sizeof(v), "%u.%u", t->major, t->minor);
	json_open(j, key, '{');
	json_str(j, "version", v);
	json_bool(j, "tcp_ao", t->tcp_ao);
	json_close(j);
}
