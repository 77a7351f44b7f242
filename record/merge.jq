# SPDX-License-Identifier: GPL-2.0
# summary.json of a sharded run, from its shards' (jq -s, shard order) and the merged records
# ($records, one array of connections.jsonl lines): the counts the unsharded run of the same
# seed and size has, count for count (tests/shards.sh proves it).
# - counts add up; a null (not known) stays null;
# - what every shard shares (seed, mix, kernel, series hash, the witness's map size) must be
#   equal; a difference is written out, never hidden;
# - booleans: "partial" if any shard was, "agree" only if every one did;
# - snapshots of one guest (slab bytes at start and end) are not counts: null;
# - what is not additive is computed again from the records: distinct_syn_shapes and the
#   fingerprints per generator (distinct, most common).

def same_keys: ["seed", "mix", "kernel", "series_hash", "rerun_of", "counter", "rule",
	"syncookie_proof", "witness_map_bytes"];

def merge2($a; $b; $key):
	if $a == null or $b == null then null
	elif $key == "bpf_last_error" then $a * $b	# each program's last error: the last shard's
	elif ($key | IN(same_keys[])) then
		(if $a == $b then $a else "shards differ: \($a) vs \($b)" end)
	elif ($a | type) == "number" then
		(if $key == "settle_ms" then ([$a, $b] | max) else $a + $b end)
	elif ($a | type) == "boolean" then
		(if $key == "agree" then ($a and $b) else ($a or $b) end)
	elif ($a | type) == "string" then
		(if $a == $b then $a else "shards differ: \($a) vs \($b)" end)
	elif ($a | type) == "object" then
		(($a | keys_unsorted) as $ka | reduce ($ka + (($b | keys_unsorted) - $ka))[] as $k
			({}; .[$k] = if ($a | has($k)) and ($b | has($k)) then merge2($a[$k]; $b[$k]; $k)
				     elif ($a | has($k)) then $a[$k] else $b[$k] end))
	elif ($a | type) == "array" then $a + $b
	else $a end;

# the fingerprint a record is counted under (record/fp_record.c): the witness's copy's, else
# the kernel's
def fingerprint:
	if .ja4t_bpf != "" or .p0f_bpf != "" then [.ja4t_bpf, .p0f_label_bpf]
	else [.ja4t_native, .p0f_label_native] end;

def fp_generators($records):
	[$records | group_by([.gen, .direction])[] |
		(map(fingerprint) | group_by(.) | map({fp: .[0], n: length}) | max_by(.n)) as $top |
		{gen: .[0].gen, direction: .[0].direction, records: length,
		 distinct: (map(fingerprint) | unique | length),
		 distinct_is_lower_bound: false,
		 top_ja4t: $top.fp[0], top_p0f_label: $top.fp[1], top_records: $top.n}];

# each shard's expectations (judge/expect.h) are its own, made inside its run: kept, each
# naming its shard; the series' declaration is every shard's (merge.sh checks they are one)
[.[] | .shard as $sh | (.expectations // [])[] | . + {shard: $sh}] as $expectations
| .[0].declared as $declared
| reduce .[1:][] as $s (.[0]; merge2(.; $s; ""))
| .expectations = $expectations
| .declared = $declared
| .memory.slab_bytes_start = null | .memory.slab_bytes_end = null
| .memory.saved_syn_slab_bytes_start = null | .memory.saved_syn_slab_bytes_end = null
| .distinct_syn_shapes = ([$records[] | .shape // empty] | unique | length)
| .fingerprints.generators = fp_generators($records)
| .shard = ""
| .merged_from = $shards
