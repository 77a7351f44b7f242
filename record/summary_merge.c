// SPDX-License-Identifier: GPL-2.0
/* summary.json of a sharded run from its shards' (summary_merge.h). */
#include "summary_merge.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Values every shard of one run shares: a difference between shards is written out. */
static const char *const same_keys[] = { "seed", "mix", "kernel", "series_hash", "rerun_of",
					 "counter", "rule", "syncookie_proof",
					 "witness_map_bytes", "map_entries", "modes",
					 /* witness_features: read from the one kernel */
					 "ring_buffer", "drop_reasons", "trampolines",
					 "lookup_and_delete" };

static bool is_same_key(const char *key)
{
	for (size_t i = 0; i < sizeof(same_keys) / sizeof(same_keys[0]); i++)
		if (!strcmp(key, same_keys[i]))
			return true;
	return false;
}

char *summary_value_text(const json_t *v)
{
	if (!v)
		return strdup("null");
	if (json_is_string(v))
		return strdup(json_string_value(v));
	return json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
}

/* "shards differ: A vs B" */
static json_t *differ(const json_t *a, const json_t *b)
{
	char *ta = summary_value_text(a), *tb = summary_value_text(b);
	json_t *r = ta && tb ? json_sprintf("shards differ: %s vs %s", ta, tb) : NULL;

	free(ta);
	free(tb);
	return r;
}

static json_t *add_numbers(const json_t *a, const json_t *b, bool longest)
{
	if (json_is_integer(a) && json_is_integer(b)) {
		json_int_t x = json_integer_value(a), y = json_integer_value(b);

		return json_integer(longest ? (x > y ? x : y) : x + y);
	}
	double x = json_number_value(a), y = json_number_value(b);

	return json_real(longest ? (x > y ? x : y) : x + y);
}

/* jq's `$a * $b`: @b's keys over @a's, objects within merged the same way. */
static json_t *deep_over(const json_t *a, const json_t *b)
{
	json_t *r, *v;
	const char *k;

	if (!json_is_object(a) || !json_is_object(b))
		return json_deep_copy(b);
	r = json_deep_copy(a);
	json_object_foreach((json_t *)b, k, v) {
		json_t *m = deep_over(json_object_get(r, k), v);

		if (!r || !m || json_object_set_new(r, k, m)) {
			json_decref(r);
			return NULL;
		}
	}
	return r;
}

static json_t *merge2(const json_t *a, const json_t *b, const char *key);

/* A value's kind as the merge sees it: true and false one kind, integers and reals another. */
static int kind(const json_t *v)
{
	if (json_is_boolean(v))
		return JSON_TRUE;
	if (json_is_number(v))
		return JSON_INTEGER;
	return json_typeof(v);
}

/* Objects: @a's keys in its order, then those only @b has; a key both have, merged. */
static json_t *merge_objects(const json_t *a, const json_t *b)
{
	json_t *r = json_object(), *v;
	const char *k;

	json_object_foreach((json_t *)a, k, v) {
		const json_t *w = json_object_get(b, k);
		json_t *m = w ? merge2(v, w, k) : json_deep_copy(v);

		if (!r || !m || json_object_set_new(r, k, m))
			goto oom;
	}
	json_object_foreach((json_t *)b, k, v)
		if (!json_object_get(a, k) && json_object_set_new(r, k, json_deep_copy(v)))
			goto oom;
	return r;
oom:
	json_decref(r);
	return NULL;
}

static json_t *merge2(const json_t *a, const json_t *b, const char *key)
{
	if (json_is_null(a) || json_is_null(b))
		return json_null();
	if (!strcmp(key, "bpf_last_error"))
		return deep_over(a, b);
	if (is_same_key(key) || kind(a) != kind(b))
		return json_equal(a, b) ? json_deep_copy(a) : differ(a, b);
	if (json_is_number(a))
		return add_numbers(a, b, !strcmp(key, "settle_ms"));
	if (json_is_boolean(a)) {
		bool x = json_is_true(a), y = json_is_true(b);

		return json_boolean(!strcmp(key, "agree") ? x && y : x || y);
	}
	if (json_is_string(a))
		return json_equal(a, b) ? json_deep_copy(a) : differ(a, b);
	if (json_is_object(a))
		return merge_objects(a, b);
	if (json_is_array(a)) {
		json_t *r = json_deep_copy(a);

		if (r && json_array_extend(r, (json_t *)b)) {
			json_decref(r);
			return NULL;
		}
		return r;
	}
	return json_deep_copy(a);
}

/* Every shard's expectations, each naming its shard. */
static json_t *expectations(json_t *const *shard, size_t n)
{
	json_t *all = json_array(), *e;
	size_t i, k;

	for (i = 0; all && i < n; i++)
		json_array_foreach(json_object_get(shard[i], "expectations"), k, e) {
			json_t *c = json_deep_copy(e);

			if (!c || json_object_set(c, "shard", json_object_get(shard[i], "shard")) ||
			    json_array_append_new(all, c)) {
				json_decref(c);
				json_decref(all);
				return NULL;
			}
		}
	return all;
}

/* @o's object @key, made if it is not one. */
static json_t *object_at(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (json_is_object(v))
		return v;
	v = json_object();
	return v && !json_object_set_new(o, key, v) ? v : NULL;
}

/* What the shards' counts cannot give: the records' own counts; one guest's snapshots. */
static int finish(json_t *m, json_t *const *shard, size_t n, const struct merge_recount *rc)
{
	static const char *const snapshots[] = { "slab_bytes_start", "slab_bytes_end",
						 "saved_syn_slab_bytes_start",
						 "saved_syn_slab_bytes_end" };
	json_t *mem = object_at(m, "memory"), *fp = object_at(m, "fingerprints");
	json_t *declared = json_object_get(shard[0], "declared");
	int err = !mem || !fp;

	for (size_t i = 0; !err && i < sizeof(snapshots) / sizeof(snapshots[0]); i++)
		err |= json_object_set_new(mem, snapshots[i], json_null());
	if (err)
		return -1;
	err |= json_object_set_new(m, "expectations", expectations(shard, n));
	err |= json_object_set_new(m, "declared", declared ? json_deep_copy(declared) : json_null());
	err |= json_object_set_new(m, "distinct_syn_shapes", json_integer(rc->distinct_syn_shapes));
	err |= json_object_set(fp, "generators", rc->fp_generators);
	err |= json_object_set_new(m, "shard", json_string(""));
	err |= json_object_set_new(m, "merged_from", json_integer((json_int_t)n));
	return err ? -1 : 0;
}

json_t *summary_merge(json_t *const *shard, size_t n, const struct merge_recount *rc)
{
	json_t *m;

	if (!n || !rc->fp_generators)
		return NULL;
	m = json_deep_copy(shard[0]);
	for (size_t i = 1; m && i < n; i++) {
		json_t *next = merge2(m, shard[i], "");

		json_decref(m);
		m = next;
	}
	if (m && finish(m, shard, n, rc)) {
		json_decref(m);
		return NULL;
	}
	return m;
}
