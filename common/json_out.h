/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small JSON document writer: a growing buffer, every string escaped, commas and nesting kept
 * by the writer. Any failure (no memory, nesting too deep, a key outside an object) sticks in
 * ->failed, so a caller checks once at the end and never writes a cut or malformed document.
 * Written here rather than taken from a library: Debian's JSON C libraries (json-c, jansson)
 * build a tree of every value first; summaries are written every 3 s in the guest, and this is
 * 100 lines with no allocation per value.
 */
#ifndef SYNTWIN_JSON_OUT_H
#define SYNTWIN_JSON_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_MAX_DEPTH 16

struct json_out {
	char *buf;
	size_t len, cap;
	int depth;
	bool first[JSON_MAX_DEPTH];	/* no member written yet at this depth */
	bool in_object[JSON_MAX_DEPTH];
	bool pretty;			/* top-level members one per line */
	bool failed;
};

void json_init(struct json_out *j, bool pretty);
void json_free(struct json_out *j);
/* Open/close an object or array; @key names it inside an object (NULL inside an array). */
void json_open(struct json_out *j, const char *key, char bracket);
void json_close(struct json_out *j);
void json_str(struct json_out *j, const char *key, const char *v);
void json_u64(struct json_out *j, const char *key, uint64_t v);
void json_i64(struct json_out *j, const char *key, int64_t v);
void json_bool(struct json_out *j, const char *key, bool v);
/* (not json_null(): that name is jansson's, and both link into syntwin-merge) */
void json_null_at(struct json_out *j, const char *key);
/* The finished document (NUL-terminated, ending in a newline), or NULL if anything failed or
 * an object is still open. */
const char *json_done(struct json_out *j);

#endif
