// SPDX-License-Identifier: GPL-2.0
/*
 * summary.json of a sharded run (record/summary_merge.c), rule by rule, each beside the case it
 * must not be taken for: counts add, a null stays null, settle_ms is the longest, a shared value
 * that differs is written out (never the first shard's), "agree" only if every shard's,
 * "partial" if any, arrays joined in shard order, a key one shard lacks kept, bpf_last_error the
 * last shard's, expectations each naming its shard, the slab snapshots null, the recounted
 * fields the records', the declaration the first shard's. Then the records' recount
 * (record/merge_recount.c): a generator's fingerprint is the witness's, the kernel's where the
 * witness has none, shapes counted once each.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "check.h"
#include "merge_recount.h"
#include "summary_merge.h"

static const char shard0[] =
	"{\"shard\":\"0/2\",\"seed\":5,\"mix\":\"default\",\"conns\":10,\"unexplained\":0,"
	"\"partial\":false,\"witness_map_bytes\":4096,\"kernel\":\"6.1\","
	"\"memory\":{\"settle_ms\":30,\"slab_bytes_start\":100,\"allocs\":7,\"missing\":null},"
	"\"syncookie_cross_check\":{\"agree\":true,\"counter\":\"TCPSynNotSavedCookie\",\"proven\":2},"
	"\"bpf_last_error\":{\"tc\":-2,\"sockops\":0},"
	"\"notes\":[\"a\"],\"only0\":3,"
	"\"fingerprints\":{\"records_both\":4,\"generators\":[{\"gen\":\"old\"}]},"
	"\"distinct_syn_shapes\":9,"
	"\"declared\":{\"synack_save\":true},"
	"\"capture_points\":{\"xdp\":{\"identical\":4,\"map_entries\":64,\"modes\":\"s0 native\"}},"
	"\"expectations\":[{\"name\":\"x\",\"ok\":true}]}";
static const char shard1[] =
	"{\"shard\":\"1/2\",\"seed\":5,\"mix\":\"default\",\"conns\":15,\"unexplained\":2,"
	"\"partial\":true,\"witness_map_bytes\":8192,\"kernel\":\"6.1\","
	"\"memory\":{\"settle_ms\":20,\"slab_bytes_start\":200,\"allocs\":8,\"missing\":4},"
	"\"syncookie_cross_check\":{\"agree\":false,\"counter\":\"TCPSynNotSavedCookie\",\"proven\":3},"
	"\"bpf_last_error\":{\"tc\":0,\"fentry\":-9},"
	"\"notes\":[\"b\",\"c\"],\"only1\":\"z\","
	"\"fingerprints\":{\"records_both\":6,\"generators\":[{\"gen\":\"old\"}]},"
	"\"distinct_syn_shapes\":9,"
	"\"declared\":{\"synack_save\":true},"
	"\"capture_points\":{\"xdp\":{\"identical\":5,\"map_entries\":64,\"modes\":\"s0 generic\"}},"
	"\"expectations\":[{\"name\":\"y\",\"ok\":false},{\"name\":\"z\",\"ok\":true}]}";

static long long num(const json_t *o, const char *path)
{
	char key[64];
	const char *dot = strchr(path, '.');

	if (!dot)
		return json_integer_value(json_object_get(o, path));
	snprintf(key, sizeof(key), "%.*s", (int)(dot - path), path);
	return num(json_object_get(o, key), dot + 1);
}

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "(none)";
}

static void summary_rules(void)
{
	json_error_t e;
	json_t *s[2] = { json_loads(shard0, 0, &e), json_loads(shard1, 0, &e) };
	json_t *gens = json_loads("[{\"gen\":\"sockets\",\"records\":25}]", 0, &e);
	struct merge_recount rc = { .distinct_syn_shapes = 11, .fp_generators = gens };
	json_t *m = summary_merge(s, 2, &rc), *mem, *ck, *ex, *notes;
	char *before = json_dumps(s[0], JSON_COMPACT), *after;

	CHECK(m != NULL, "merged");
	if (!m)
		return;
	CHECK_EQ_INT(num(m, "conns"), 25);
	CHECK_EQ_INT(num(m, "unexplained"), 2);
	CHECK(json_is_true(json_object_get(m, "partial")), "partial if any shard was");
	CHECK_EQ_INT(num(m, "seed"), 5);
	CHECK(!strcmp(str(m, "mix"), "default"), "a shared value kept: %s", str(m, "mix"));
	CHECK(!strcmp(str(m, "witness_map_bytes"), "shards differ: 4096 vs 8192"),
	      "a shared value that differs is said: %s", str(m, "witness_map_bytes"));
	/* a capture point's counts add; its map's size and XDP's modes are the run's, not counts */
	CHECK_EQ_INT(num(m, "capture_points.xdp.identical"), 9);
	CHECK_EQ_INT(num(m, "capture_points.xdp.map_entries"), 64);
	CHECK(!strcmp(str(json_object_get(json_object_get(m, "capture_points"), "xdp"), "modes"),
		      "shards differ: s0 native vs s0 generic"), "modes: %s",
	      str(json_object_get(json_object_get(m, "capture_points"), "xdp"), "modes"));
	mem = json_object_get(m, "memory");
	CHECK_EQ_INT(num(mem, "settle_ms"), 30);
	CHECK_EQ_INT(num(mem, "allocs"), 15);
	CHECK(json_is_null(json_object_get(mem, "missing")), "a null stays null");
	CHECK(json_is_null(json_object_get(mem, "slab_bytes_start")), "a snapshot is no count");
	CHECK(json_is_null(json_object_get(mem, "saved_syn_slab_bytes_end")), "every snapshot null");
	ck = json_object_get(m, "syncookie_cross_check");
	CHECK(json_is_false(json_object_get(ck, "agree")), "agree only if every shard did");
	CHECK_EQ_INT(num(ck, "proven"), 5);
	CHECK(!strcmp(str(ck, "counter"), "TCPSynNotSavedCookie"), "%s", str(ck, "counter"));
	CHECK_EQ_INT(num(m, "bpf_last_error.tc"), 0);
	CHECK_EQ_INT(num(m, "bpf_last_error.sockops"), 0);
	CHECK_EQ_INT(num(m, "bpf_last_error.fentry"), -9);
	notes = json_object_get(m, "notes");
	CHECK_EQ_INT(json_array_size(notes), 3);
	CHECK(!strcmp(json_string_value(json_array_get(notes, 2)), "c"), "arrays in shard order");
	CHECK_EQ_INT(num(m, "only0"), 3);
	CHECK(!strcmp(str(m, "only1"), "z"), "a key only the second shard has");
	CHECK_EQ_INT(num(m, "fingerprints.records_both"), 10);
	CHECK(json_equal(json_object_get(json_object_get(m, "fingerprints"), "generators"), gens),
	      "the generators are the records' recount");
	CHECK_EQ_INT(num(m, "distinct_syn_shapes"), 11);
	ex = json_object_get(m, "expectations");
	CHECK_EQ_INT(json_array_size(ex), 3);
	CHECK(!strcmp(str(json_array_get(ex, 1), "name"), "y") &&
	      !strcmp(str(json_array_get(ex, 1), "shard"), "1/2"), "each expectation names its shard");
	CHECK(json_is_true(json_object_get(json_object_get(m, "declared"), "synack_save")),
	      "the declaration");
	CHECK(!strcmp(str(m, "shard"), ""), "no shard");
	CHECK_EQ_INT(num(m, "merged_from"), 2);
	after = json_dumps(s[0], JSON_COMPACT);
	CHECK(before && after && !strcmp(after, before), "the shards are not changed");
	free(before);
	free(after);
	CHECK(summary_merge(s, 0, &rc) == NULL, "no shard: nothing merged");
	json_decref(m);
	json_decref(s[0]);
	json_decref(s[1]);
	json_decref(gens);
}

static void add(struct recount *rc, const char *gen, const char *ja4t_n, const char *label_n,
		const char *ja4t_b, const char *label_b, const char *shape)
{
	const char *f[RF_MAX] = { [RF_JA4T_NATIVE] = ja4t_n, [RF_P0F_NATIVE] = "",
				  [RF_LABEL_NATIVE] = label_n, [RF_JA4T_BPF] = ja4t_b,
				  [RF_P0F_BPF] = "", [RF_LABEL_BPF] = label_b };

	recount_add(rc, gen, "passive", f, shape);
}

static void recount(void)
{
	struct recount *rc = recount_new();
	json_error_t e;
	json_t *doc, *g, *row;
	char *text;

	CHECK(rc != NULL, "recount");
	if (!rc)
		return;
	/* the witness's fingerprint where it has one (twice: the top), the kernel's where not */
	add(rc, "crafted", "n1", "Linux", "b1", "Windows", "00000000000000aa");
	add(rc, "crafted", "n1", "Linux", "b1", "Windows", "00000000000000aa");
	add(rc, "crafted", "n2", "FreeBSD", "", "", "00000000000000bb");
	add(rc, "sockets", "n3", "Linux", "n3", "Linux", NULL);
	CHECK_EQ_INT(recount_shapes(rc), 2);
	text = recount_fp_generators(rc);
	doc = text ? json_loads(text, 0, &e) : NULL;
	g = json_object_get(doc, "generators");
	CHECK_EQ_INT(json_array_size(g), 2);
	row = json_array_get(g, 0);
	CHECK(!strcmp(str(row, "gen"), "crafted"), "%s", str(row, "gen"));
	CHECK_EQ_INT(num(row, "records"), 3);
	CHECK_EQ_INT(num(row, "distinct"), 2);
	CHECK(!strcmp(str(row, "top_ja4t"), "b1") && !strcmp(str(row, "top_p0f_label"), "Windows"),
	      "the witness's fingerprint counted: %s %s", str(row, "top_ja4t"),
	      str(row, "top_p0f_label"));
	CHECK_EQ_INT(num(row, "top_records"), 2);
	json_decref(doc);
	free(text);
	recount_free(rc);
}

int main(void)
{
	summary_rules();
	recount();
	return check_report("merge");
}
