#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# syntwin-merge (record/merge_main.c), the JSON half of `syntwin merge`, on two hand-made shards
# (no guest: tests/shards.sh merges real ones): records renumbered in shard order whatever order
# the shards are given in, byte for byte but for n and the shard and shard_n added (a socket
# cookie above 2^63 kept exactly), the shards' first record numbers printed; the shards' checks
# each refusing with exit 2 and its reason, OUT never made; --verdict's exit status and lines.
# usage: merge_tool.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib.sh"
M=$1/record/syntwin-merge
EXPECT=$ROOT/tests/expect.sh

# shard I of 2: summary, plan, declaration, records numbered from 0
shard() { # DIR I RECORDS [SUMMARY-EXTRA]
	mkdir -p "$1"
	printf '{"shard":"%s/2","seed":5,"mix":"default","kernel":"6.1.192","series_hash":"ab",
"conns":%s,"unexplained":0,"partial":false,"expectations":[]%s}\n' "$2" "$3" "${4:-}" >"$1/summary.json"
	printf '{"connections":20,"seed":5,"mix":"default","active":false,"shard":%s,"shards":2}\n' \
		"$2" >"$1/plan.json"
	cp "$ROOT/kernel-series/6.1/provides" "$1/provides"
	: >"$1/connections.jsonl"
	i=0
	while [ "$i" -lt "$3" ]; do
		printf '{"n":%s,"direction":"passive","cookie":18446744073709551615,"gen":"sockets","verdict":"identical","shape":"00000000000000%02x"}\n' \
			"$i" "$((i + 16 * $2 + 1))" >>"$1/connections.jsonl"
		i=$((i + 1))
	done
}
shard "$tmp/s0" 0 3
shard "$tmp/s1" 1 2
mkdir "$tmp/out"
"$M" --out "$tmp/out" "$tmp/s1" "$tmp/s0" >"$tmp/order"
check [ $? = 0 ]
check [ "$(cat "$tmp/order")" = "0 0 $tmp/s0
1 3 $tmp/s1" ]
check [ "$(sed -n 4p "$tmp/out/connections.jsonl")" = \
	'{"n":3,"direction":"passive","cookie":18446744073709551615,"gen":"sockets","verdict":"identical","shape":"0000000000000011","shard":"1/2","shard_n":0}' ]
check [ "$(jq -s -c 'map([.n, .shard, .shard_n])' "$tmp/out/connections.jsonl")" = \
	'[[0,"0/2",0],[1,"0/2",1],[2,"0/2",2],[3,"1/2",0],[4,"1/2",1]]' ]
check [ "$(jq -c '[.conns, .shard, .merged_from, .distinct_syn_shapes, .fingerprints.generators[0].records]' \
	"$tmp/out/summary.json")" = '[5,"",2,5,5]' ]
check [ "$(tail -c 1 "$tmp/out/summary.json" | od -An -c | tr -d ' ')" = '\n' ]
check [ "$(jq -c '[.connections, .seed, .mix]' "$tmp/out/plan.json")" = '[20,5,"default"]' ]
check cmp "$tmp/out/provides" "$ROOT/kernel-series/6.1/provides"

# each check, exit 2 naming the reason (OUT is merge.sh's, made only after these pass)
refuse() { # REASON DIR...
	r=$1
	shift
	rm -rf "$tmp/o2" && mkdir "$tmp/o2"
	check "$EXPECT" --status 2 --stderr "$r" -- "$M" --out "$tmp/o2" "$@"
}
refuse "$tmp/s0 is shard 0/2: 1 directories given" "$tmp/s0"
refuse "shard 0/2 given twice" "$tmp/s0" "$tmp/s0"
shard "$tmp/other" 1 2 ',"seed":6'
sed -i 's/"seed":5,//' "$tmp/other/summary.json"
refuse "$tmp/other is not of the same run as the others (seed, mix, kernel or series)" "$tmp/s0" "$tmp/other"
shard "$tmp/notshard" 1 2
sed -i 's|"shard":"1/2"|"shard":"-1/2"|' "$tmp/notshard/summary.json"
refuse "$tmp/notshard is not a shard (its summary names no I/N)" "$tmp/s0" "$tmp/notshard"
shard "$tmp/decl" 1 2
echo "counter TCPExtra" >>"$tmp/decl/provides"
refuse "$tmp/decl ran under another series declaration (provides) than $tmp/s0" "$tmp/s0" "$tmp/decl"
shard "$tmp/size" 1 2
sed -i 's/"connections":20/"connections":21/' "$tmp/size/plan.json"
refuse "$tmp/size is not of the same size as $tmp/s0" "$tmp/s0" "$tmp/size"
shard "$tmp/torn" 1 2
printf '{"n":2,"direction":' >>"$tmp/torn/connections.jsonl"
refuse "$tmp/torn/connections.jsonl line 3: not a record" "$tmp/s0" "$tmp/torn"
shard "$tmp/merged" 1 2
sed -i 's/}$/,"shard":"1\/2"}/' "$tmp/merged/connections.jsonl"
refuse "$tmp/merged/connections.jsonl line 1: a merged record (it names a shard)" "$tmp/s0" "$tmp/merged"
# a key both shards lack is no difference
shard "$tmp/n0" 0 1 && shard "$tmp/n1" 1 1
sed -i 's/"series_hash":"ab",//' "$tmp/n0/summary.json" "$tmp/n1/summary.json"
rm -rf "$tmp/o3" && mkdir "$tmp/o3"
check "$EXPECT" --status 0 -- "$M" --out "$tmp/o3" "$tmp/n0" "$tmp/n1"

# --verdict: 0 when complete and clean; 1 naming a failed expectation, or partial
check "$EXPECT" --status 0 --stderr "==> merge: 2 shards, 5 records, 0 unexplained, 0 expectation(s) failed; results in $tmp/out" \
	-- "$M" --verdict "$tmp/out"
jq '.expectations = [{"name":"syncookie connections","got":3,"want":4,"when":"at the end","ok":false,"shard":"1/2"}] |
	.expectations_failed = 1' "$tmp/out/summary.json" >"$tmp/s.json" && mv "$tmp/s.json" "$tmp/out/summary.json"
check "$EXPECT" --status 1 --stderr "syntwin: expectation failed (shard 1/2): syncookie connections 3, want 4 (at the end)" \
	--stderr "0 unexplained, 1 expectation(s) failed; results" -- "$M" --verdict "$tmp/out"
jq '.expectations_failed = 0 | .expectations = [] | .partial = true' "$tmp/out/summary.json" >"$tmp/s.json" &&
	mv "$tmp/s.json" "$tmp/out/summary.json"
check "$EXPECT" --status 1 --stderr "0 expectation(s) failed, PARTIAL; results" -- "$M" --verdict "$tmp/out"
check "$EXPECT" --status 2 --stderr "usage: syntwin-merge" -- "$M" --out "$tmp/out"
[ "$fail" = 0 ] && echo "merge_tool: all checks passed"
exit "$fail"
