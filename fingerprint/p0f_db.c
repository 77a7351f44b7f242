// SPDX-License-Identifier: GPL-2.0
/*
 * p0f.fp, read as p0f 3.09b's readfp.c and tcp_register_sig() read it (p0f.h): the [tcp:*]
 * signatures in file order, and the names of every section's labels and 'sys' lines, so that a
 * name keeps the spelling p0f first saw (p0f merges names case-insensitively).
 */
#define _GNU_SOURCE /* strchrnul */
#include "p0f.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "p0f_quirks.h"

enum { SECT_NONE, SECT_MTU, SECT_TCP, SECT_HTTP };

struct reader {
	struct p0f_db *db;
	int sect, to_srv;
	char **classes;
	size_t nclasses;
	/* the current label */
	bool generic;
	int class_id;
	uint32_t name_id;
	char *flavor;
	uint32_t line_no;
	char *err;
	size_t errlen;
};

static int fail(struct reader *r, const char *what)
{
	snprintf(r->err, r->errlen, "line %u: %s", r->line_no, what);
	return -1;
}

static int name_id(struct reader *r, const char *name, size_t len, uint32_t *id)
{
	struct p0f_db *db = r->db;
	char **grown;

	for (size_t i = 0; i < db->nnames; i++) {
		if (!strncasecmp(name, db->names[i], len) && !db->names[i][len]) {
			*id = (uint32_t)i;
			return 0;
		}
	}
	grown = realloc(db->names, (db->nnames + 1) * sizeof(*grown));
	if (!grown)
		return fail(r, "out of memory");
	db->names = grown;
	db->names[db->nnames] = strndup(name, len);
	if (!db->names[db->nnames])
		return fail(r, "out of memory");
	*id = (uint32_t)db->nnames++;
	return 0;
}

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || (c && strchr(" ./-_!?()", c));
}

static int parse_classes(struct reader *r, const char *v)
{
	while (*v) {
		const char *e;
		char **grown;

		while (isblank((unsigned char)*v) || *v == ',')
			v++;
		for (e = v; isalnum((unsigned char)*e); e++)
			;
		if (e == v || (*e && *e != ','))
			return fail(r, "malformed class entry");
		grown = realloc(r->classes, (r->nclasses + 1) * sizeof(*grown));
		if (!grown)
			return fail(r, "out of memory");
		r->classes = grown;
		grown[r->nclasses] = strndup(v, (size_t)(e - v));
		if (!grown[r->nclasses])
			return fail(r, "out of memory");
		r->nclasses++;
		v = e;
	}
	return 0;
}

static int parse_label(struct reader *r, const char *v)
{
	const char *e;

	free(r->flavor);
	r->flavor = NULL;
	if (r->sect == SECT_MTU)
		return 0;
	if ((*v != 'g' && *v != 's') || v[1] != ':')
		return fail(r, "malformed class entry");
	r->generic = *v == 'g';
	v += 2;
	for (e = v; isalnum((unsigned char)*e) || *e == '!'; e++)
		;
	if (e == v || *e != ':')
		return fail(r, "malformed class entry");
	if (*v == '!' && v[1] == ':') {
		r->class_id = -1;
	} else {
		size_t i;

		for (i = 0; i < r->nclasses; i++)
			if (strlen(r->classes[i]) == (size_t)(e - v) &&
			    !strncasecmp(v, r->classes[i], (size_t)(e - v)))
				break;
		if (i == r->nclasses)
			return fail(r, "unknown class");
		r->class_id = (int)i;
	}
	v = ++e;
	while (name_char(*e))
		e++;
	if (e == v || *e != ':')
		return fail(r, "malformed name");
	if (name_id(r, v, (size_t)(e - v), &r->name_id))
		return -1;
	if (e[1] && !(r->flavor = strdup(e + 1)))
		return fail(r, "out of memory");
	return 0;
}

/* 'sys' lines name OSes too; only the first spelling of a name is kept. */
static int parse_sys(struct reader *r, const char *v)
{
	while (*v) {
		const char *e;
		bool is_class;
		uint32_t id;

		while (isblank((unsigned char)*v) || *v == ',')
			v++;
		is_class = *v == '@';
		v += is_class;
		for (e = v; name_char(*e); e++)
			;
		if (e == v || (*e && *e != ','))
			return fail(r, "malformed sys entry");
		if (!is_class && name_id(r, v, (size_t)(e - v), &id))
			return -1;
		v = e;
	}
	return 0;
}

static int add_sig(struct reader *r, const char *v)
{
	struct p0f_db *db = r->db;
	struct p0f_sig s = { .generic = r->generic, .class_id = r->class_id,
			     .name_id = r->name_id }, *grown;
	char why[96];

	if (p0f_sig_parse(v, &s, why, sizeof(why)))
		return fail(r, why);
	if (r->flavor && !(s.flavor = strdup(r->flavor)))
		return fail(r, "out of memory");
	grown = realloc(db->sigs[r->to_srv], (db->nsigs[r->to_srv] + 1) * sizeof(*grown));
	if (!grown) {
		free((char *)s.flavor);
		return fail(r, "out of memory");
	}
	db->sigs[r->to_srv] = grown;
	grown[db->nsigs[r->to_srv]++] = s;
	return 0;
}

static int parse_section(struct reader *r, const char *l)
{
	if (!strcmp(l, "[mtu]")) {
		r->sect = SECT_MTU;
		return 0;
	}
	if (!strncmp(l, "[tcp:", 5))
		r->sect = SECT_TCP, l += 5;
	else if (!strncmp(l, "[http:", 6))
		r->sect = SECT_HTTP, l += 6;
	else
		return fail(r, "unknown section");
	if (!strcmp(l, "request]"))
		r->to_srv = 1;
	else if (!strcmp(l, "response]"))
		r->to_srv = 0;
	else
		return fail(r, "unknown traffic direction");
	return 0;
}

static int parse_line(struct reader *r, char *l)
{
	char *v = l, *eon;

	if (*l == '[')
		return parse_section(r, l);
	while (isalpha((unsigned char)*v) || *v == '_')
		v++;
	eon = v;
	while (isblank((unsigned char)*v))
		v++;
	if (v == l || *v != '=')
		return fail(r, "unexpected statement");
	while (isblank((unsigned char)*++v))
		;
	*eon = 0;
	if (!strcmp(l, "classes"))
		return parse_classes(r, v);
	if (!strcmp(l, "label"))
		return parse_label(r, v);
	if (!strcmp(l, "sys"))
		return parse_sys(r, v);
	if (!strcmp(l, "sig"))
		return r->sect == SECT_TCP ? add_sig(r, v) : 0;
	if (!strcmp(l, "ua_os"))
		return 0;
	return fail(r, "unknown field");
}

static char *slurp(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		snprintf(err, errlen, "%s", strerror(errno));
		return NULL;
	}
	do {
		if (cap - len < 4096) {
			char *g = realloc(buf, cap + 65536);

			if (!g) {
				free(buf);
				fclose(f);
				snprintf(err, errlen, "out of memory");
				return NULL;
			}
			buf = g, cap += 65536;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n);
	buf[len] = 0;
	if (ferror(f) || memchr(buf, 0, len)) {
		snprintf(err, errlen, ferror(f) ? "read error" : "a NUL byte in the file");
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

int p0f_db_load(struct p0f_db *db, const char *path, char *err, size_t errlen)
{
	struct reader r = { .db = db, .err = err, .errlen = errlen };
	char *data, *cur, why[160];
	int rc = 0;

	memset(db, 0, sizeof(*db));
	r.err = why, r.errlen = sizeof(why);
	data = slurp(path, why, sizeof(why));
	if (!data) {
		snprintf(err, errlen, "%s: %s", path, why);
		return -1;
	}
	for (cur = data;;) {
		char *eol;

		r.line_no++;
		while (isblank((unsigned char)*cur))
			cur++;
		eol = strchrnul(cur, '\n');
		if (*cur != ';' && cur != eol) {
			char save = *eol;

			*eol = 0;
			rc = parse_line(&r, cur);
			*eol = save;
		}
		if (rc || !*eol)
			break;
		cur = eol + 1;
	}
	for (size_t i = 0; i < r.nclasses; i++)
		free(r.classes[i]);
	free(r.classes);
	free(r.flavor);
	free(data);
	if (!rc && !db->nsigs[1])
		rc = -1, snprintf(why, sizeof(why), "no [tcp:request] signature");
	if (rc) {
		snprintf(err, errlen, "%s: %s", path, why);
		p0f_db_free(db);
	}
	return rc;
}

void p0f_db_free(struct p0f_db *db)
{
	for (int d = 0; d < 2; d++) {
		for (size_t i = 0; i < db->nsigs[d]; i++)
			free((char *)db->sigs[d][i].flavor);
		free(db->sigs[d]);
	}
	for (size_t i = 0; i < db->nnames; i++)
		free(db->names[i]);
	free(db->names);
	memset(db, 0, sizeof(*db));
}
