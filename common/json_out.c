// SPDX-License-Identifier: GPL-2.0
/* A small checked JSON writer (see json_out.h). */
#include "json_out.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void json_init(struct json_out *j, bool pretty)
{
	memset(j, 0, sizeof(*j));
	j->pretty = pretty;
	j->first[0] = true;
}

void json_free(struct json_out *j)
{
	free(j->buf);
	j->buf = NULL;
	j->len = j->cap = 0;
}

static void put(struct json_out *j, const char *s, size_t n)
{
	if (j->failed)
		return;
	if (j->len + n + 1 > j->cap) {
		size_t cap = j->cap ? j->cap : 1024;
		char *b;

		while (j->len + n + 1 > cap)
			cap *= 2;
		b = realloc(j->buf, cap);
		if (!b) {
			j->failed = true;
			return;
		}
		j->buf = b;
		j->cap = cap;
	}
	memcpy(j->buf + j->len, s, n);
	j->len += n;
	j->buf[j->len] = '\0';
}

static void put_s(struct json_out *j, const char *s) { put(j, s, strlen(s)); }

static void put_escaped(struct json_out *j, const char *s)
{
	static const char hexd[] = "0123456789abcdef";

	put(j, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };

			put(j, e, 2);
		} else if (c < 0x20) {
			char e[6] = { '\\', 'u', '0', '0', hexd[c >> 4], hexd[c & 15] };

			put(j, e, 6);
		} else {
			put(j, (const char *)&c, 1);
		}
	}
	put(j, "\"", 1);
}

/* The separator and key before a value; a key is required in an object, refused in an array. */
static void member(struct json_out *j, const char *key)
{
	bool obj = j->depth > 0 && j->in_object[j->depth];

	if (j->depth == 0 ? j->len > 0 : obj != (key != NULL)) {
		j->failed = true;
		return;
	}
	if (j->depth > 0 && !j->first[j->depth])
		put_s(j, j->pretty && j->depth == 1 ? ",\n  " : ", ");
	else if (j->depth == 1 && j->pretty)
		put_s(j, "\n  ");
	j->first[j->depth] = false;
	if (key) {
		put_escaped(j, key);
		put_s(j, ": ");
	}
}

void json_open(struct json_out *j, const char *key, char bracket)
{
	member(j, key);
	if (j->depth + 1 >= JSON_MAX_DEPTH || (bracket != '{' && bracket != '[')) {
		j->failed = true;
		return;
	}
	put(j, &bracket, 1);
	j->depth++;
	j->first[j->depth] = true;
	j->in_object[j->depth] = bracket == '{';
}

void json_close(struct json_out *j)
{
	if (j->depth == 0) {
		j->failed = true;
		return;
	}
	if (j->pretty && j->depth == 1)
		put_s(j, "\n");
	put_s(j, j->in_object[j->depth] ? "}" : "]");
	j->depth--;
}

void json_str(struct json_out *j, const char *key, const char *v)
{
	member(j, key);
	put_escaped(j, v ? v : "");
}

void json_u64(struct json_out *j, const char *key, uint64_t v)
{
	char b[24];

	member(j, key);
	put(j, b, (size_t)snprintf(b, sizeof(b), "%" PRIu64, v));
}

void json_i64(struct json_out *j, const char *key, int64_t v)
{
	char b[24];

	member(j, key);
	put(j, b, (size_t)snprintf(b, sizeof(b), "%" PRId64, v));
}

void json_bool(struct json_out *j, const char *key, bool v)
{
	member(j, key);
	put_s(j, v ? "true" : "false");
}

void json_null_at(struct json_out *j, const char *key)
{
	member(j, key);
	put_s(j, "null");
}

const char *json_done(struct json_out *j)
{
	if (j->failed || j->depth != 0 || !j->len)
		return NULL;
	put_s(j, "\n");
	return j->failed ? NULL : j->buf;
}
