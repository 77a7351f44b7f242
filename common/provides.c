// SPDX-License-Identifier: GPL-2.0
/* A series' declaration of what it implements (provides.h). */
#include "provides.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_out.h"
#include "text_file.h"

/* A counter's or selftest's name: letters, digits, '_' and '-', 1..PROVIDES_NAME-1 of them. */
static bool name_ok(const char *s, size_t n)
{
	if (!n || n >= PROVIDES_NAME)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-')
			return false;
	return true;
}

/* Adds name @s (@n bytes) to @list of @count, once. Returns 0, or -1 (@why says). */
static int add_name(char list[][PROVIDES_NAME], size_t *count, const char *s, size_t n,
		    const char **why)
{
	if (!name_ok(s, n)) {
		*why = "needs one name of letters, digits, '_' or '-' (at most 47)";
		return -1;
	}
	for (size_t i = 0; i < *count; i++)
		if (strlen(list[i]) == n && !memcmp(list[i], s, n)) {
			*why = "is declared twice";
			return -1;
		}
	if (*count >= PROVIDES_MAX) {
		*why = "has too many names (at most 16)";
		return -1;
	}
	memcpy(list[*count], s, n);
	list[(*count)++][n] = '\0';
	return 0;
}

/* The words of one line (comment stripped): up to 3, their starts and lengths. */
static int words(const char *line, size_t len, const char *w[3], size_t wl[3])
{
	int n = 0;

	for (size_t i = 0; i < len;) {
		while (i < len && isspace((unsigned char)line[i]))
			i++;
		if (i >= len || line[i] == '#')
			break;
		size_t s = i;

		while (i < len && !isspace((unsigned char)line[i]) && line[i] != '#')
			i++;
		if (n == 3)
			return 4;
		w[n] = line + s, wl[n++] = i - s;
	}
	return n;
}

static bool is(const char *w, size_t n, const char *kw)
{
	return strlen(kw) == n && !memcmp(w, kw, n);
}

/* One line. Returns 0, or -1 with @why set. */
static int parse_line(const char *line, size_t len, struct provides *p, const char **why)
{
	const char *w[3];
	size_t wl[3];
	int n = words(line, len, w, wl);

	if (n == 0)
		return 0;
	if (is(w[0], wl[0], "synack-save")) {
		if (n != 1 || p->synack_save) {
			*why = n != 1 ? "synack-save takes no name" : "synack-save is declared twice";
			return -1;
		}
		p->synack_save = true;
		return 0;
	}
	if (is(w[0], wl[0], "counter") || is(w[0], wl[0], "selftest")) {
		bool counter = is(w[0], wl[0], "counter");

		if (n != 2) {
			*why = counter ? "counter needs exactly one name" :
					 "selftest needs exactly one name";
			return -1;
		}
		return counter ? add_name(p->counter, &p->ncounters, w[1], wl[1], why) :
				 add_name(p->selftest, &p->nselftests, w[1], wl[1], why);
	}
	*why = "is not a declaration (known: synack-save, counter NAME, selftest NAME)";
	return -1;
}

int provides_parse(const char *text, struct provides *p, char *err, size_t errlen)
{
	unsigned int lineno = 1;

	memset(p, 0, sizeof(*p));
	for (const char *s = text; *s; lineno++) {
		const char *e = strchr(s, '\n'), *why = NULL;
		size_t len = e ? (size_t)(e - s) : strlen(s);

		if (parse_line(s, len, p, &why)) {
			snprintf(err, errlen, "line %u: '%.*s' %s", lineno, (int)(len > 60 ? 60 : len),
				 s, why);
			return -1;
		}
		s += len + (e ? 1 : 0);
	}
	return 0;
}

int provides_load(const char *path, struct provides *p, char *err, size_t errlen)
{
	char buf[8192], msg[200];

	if (text_file_read(path, buf, sizeof(buf), err, errlen))
		return -1;
	if (provides_parse(buf, p, msg, sizeof(msg))) {
		snprintf(err, errlen, "%s: %s", path, msg);
		return -1;
	}
	return 0;
}

bool provides_counter(const struct provides *p, const char *name)
{
	for (size_t i = 0; i < p->ncounters; i++)
		if (!strcmp(p->counter[i], name))
			return true;
	return false;
}

void provides_json(struct json_out *j, const char *key, const struct provides *p)
{
	json_open(j, key, '{');
	json_bool(j, "synack_save", p->synack_save);
	json_open(j, "counters", '[');
	for (size_t i = 0; i < p->ncounters; i++)
		json_str(j, NULL, p->counter[i]);
	json_close(j);
	json_open(j, "selftests", '[');
	for (size_t i = 0; i < p->nselftests; i++)
		json_str(j, NULL, p->selftest[i]);
	json_close(j);
	json_close(j);
}

/* Appends @s to @buf (of @len, @at used so far), cut at the end. */
static size_t put(char *buf, size_t len, size_t at, const char *s)
{
	int n = snprintf(buf + at, at < len ? len - at : 0, "%s", s);

	return at + (n > 0 ? (size_t)n : 0) < len ? at + (size_t)n : len - 1;
}

void provides_describe(const struct provides *p, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	if (p->synack_save)
		at = put(buf, len, at, "synack-save");
	for (size_t i = 0; i < p->ncounters; i++) {
		at = put(buf, len, at, i ? " " : at ? ", counters " : "counters ");
		at = put(buf, len, at, p->counter[i]);
	}
	for (size_t i = 0; i < p->nselftests; i++) {
		at = put(buf, len, at, i ? " " : at ? ", selftest " : "selftest ");
		at = put(buf, len, at, p->selftest[i]);
	}
	if (!at)
		put(buf, len, 0, "nothing beyond the stock TCP_SAVE_SYN API");
}
