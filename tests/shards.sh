#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A sharded run merges to exactly the unsharded one: 2,000 connections (seed 5) once whole and
# once as 4 shards (`run --shard I/4`), `syntwin merge`d. The merged summary equals the whole
# run's count for count (all but what is no count: the guest's slab snapshots, null in a merge;
# durations, keys in _ms, such as the memory follower's settle_ms; its missed_runs, the kernel
# skipping its program under interrupt nesting, which no two runs repeat; and the name of a
# generator's most common fingerprint where two tie); the
# records are the same connections
# with the same verdicts, numbered without a gap; the captures hold the same number of frames.
# Then merge refuses what is not the shards of one run.
# usage: shards.sh
set -u
. "$(dirname "$0")/lib.sh"
S=$ROOT/syntwin
# (every capture point on: their counts and the wire's captures merge as the rest does)
run() { "$S" run --connections 2000 --seed 5 --capture-points all "$@" >"$tmp/log" 2>&1 || { tail -n 5 "$tmp/log"; return 1; }; }
check run --out "$tmp/whole"
for i in 0 1 2 3; do
	check run --shard "$i/4" --out "$tmp/s$i"
	check [ "$(jq -r .shard "$tmp/s$i/summary.json")" = "$i/4" ]
	check [ "$(jq -r '[.shard, .shards] | map(tostring) | join("/")' "$tmp/s$i/plan.json")" = "$i/4" ]
done
# the planned handshakes all in shard 0; every generator's share split four ways
check [ "$(jq -r '.generators."held-back"' "$tmp/s0/plan.json")" = 16 ]
check [ "$(jq -r '.generators."held-back"' "$tmp/s2/plan.json")" = 0 ]
check [ "$(jq -s 'map(.expect) | add' "$tmp"/s?/plan.json)" = "$(jq .expect "$tmp/whole/plan.json")" ]
"$S" merge "$tmp/merged" "$tmp/s2" "$tmp/s0" "$tmp/s3" "$tmp/s1" >"$tmp/merge.log" 2>&1
check [ $? = 0 ]
norm() {
	# (expectations: each shard's own, made in its run; tests/shards.sh checks none failed)
	jq -S 'del(.merged_from, .shard, .expectations) |
		.memory |= with_entries(select(.key | test("slab_bytes") | not)) |
		del(.memory_follower.missed_runs) | del(.memory_follower.ctx_missed_runs) |
		walk(if type == "object" then with_entries(select(.key | endswith("_ms") | not)) else . end) |
		.fingerprints.generators |= (map(del(.top_ja4t, .top_p0f_label)) | sort_by(.gen, .direction))' "$1"
}
norm "$tmp/whole/summary.json" >"$tmp/whole.norm"
norm "$tmp/merged/summary.json" >"$tmp/merged.norm"
check cmp "$tmp/whole.norm" "$tmp/merged.norm"
cmp -s "$tmp/whole.norm" "$tmp/merged.norm" || diff "$tmp/whole.norm" "$tmp/merged.norm" | head -n 20
check [ "$(jq -r .merged_from "$tmp/merged/summary.json")" = 4 ]
check cmp "$tmp/whole/plan.json" "$tmp/merged/plan.json"
# the same connections, verdicts and reasons; numbered 0.. without a gap, each naming its shard
key='[.direction, .gen, .gen_index, .knobs, .verdict, .reason, .copies] | @json'
jq -r "$key" "$tmp/whole/connections.jsonl" | LC_ALL=C sort >"$tmp/whole.keys"
jq -r "$key" "$tmp/merged/connections.jsonl" | LC_ALL=C sort >"$tmp/merged.keys"
check cmp "$tmp/whole.keys" "$tmp/merged.keys"
check [ "$(jq -s '[.[].n] == [range(length)]' "$tmp/merged/connections.jsonl")" = true ]
check [ "$(jq -s '[.[] | select(.shard | test("^[0-3]/4$"))] | length' "$tmp/merged/connections.jsonl")" = \
	"$(grep -c '' "$tmp/merged/connections.jsonl")" ]
# the captures: as many frames as the whole run's; syns.pcap's stamps are the new numbers
frames() { capinfos -c -M "$1" | awk '/Number of packets/ { print $NF }'; }
for f in syns.pcap mismatches.pcap mismatches.pcapng wire-syns.pcap wire.pcap wire-RAW.pcap; do
	check [ "$(frames "$tmp/merged/$f")" = "$(frames "$tmp/whole/$f")" ]
done
check [ "$(tshark -r "$tmp/merged/wire-syns.pcap" -T fields -e frame.time_epoch | cut -d. -f1 | LC_ALL=C sort -n | tr '\n' ' ')" = \
	"$(jq -r 'select(.ja4t_wire != null and .ja4t_wire != "") | .n' "$tmp/merged/connections.jsonl" | LC_ALL=C sort -n | tr '\n' ' ')" ]
check [ "$(tshark -r "$tmp/merged/syns.pcap" -T fields -e frame.time_epoch | cut -d. -f1 | LC_ALL=C sort -n | tr '\n' ' ')" = \
	"$(jq -r 'select(.direction == "passive" and .bpf_len > 0) | .n' "$tmp/merged/connections.jsonl" | LC_ALL=C sort -n | tr '\n' ' ')" ]
check [ "$(tshark -r "$tmp/merged/mismatches.pcapng" -T fields -e frame.comment | grep -c 'of shard [0-3]/4, ')" = \
	"$(frames "$tmp/merged/mismatches.pcapng")" ]
# the merged syns.pcap maps back to the merged records: p0f agrees on every one, as whole
for r in whole merged; do
	"$S" fingerprints "$tmp/$r" >"$tmp/fp.$r" 2>/dev/null
	check [ $? = 0 ]
done
check grep -q "equal syntwin's for [1-9][0-9]* of" "$tmp/fp.merged"
check [ "$(tail -n 1 "$tmp/fp.whole")" = "$(tail -n 1 "$tmp/fp.merged")" ]
# merge refuses: a shard missing, one twice, a run that is not a shard
"$S" merge "$tmp/m2" "$tmp/s0" "$tmp/s1" "$tmp/s2" >"$tmp/out" 2>&1
check [ $? = 2 ]
check grep -q "is shard [0-3]/4: 3 directories given" "$tmp/out"
"$S" merge "$tmp/m2" "$tmp/s0" "$tmp/s1" "$tmp/s2" "$tmp/s2" >"$tmp/out" 2>&1
check [ $? = 2 ]
check grep -q "shard 2/4 given twice" "$tmp/out"
"$S" merge "$tmp/m2" "$tmp/whole" >"$tmp/out" 2>&1
check [ $? = 2 ]
check grep -q "is not a shard" "$tmp/out"
cp -r "$tmp/s3" "$tmp/s3x" && rm "$tmp/s3x/wire-syns.pcap"
"$S" merge "$tmp/m2" "$tmp/s0" "$tmp/s1" "$tmp/s2" "$tmp/s3x" >"$tmp/out" 2>&1
check [ $? = 2 ]
check grep -q "3 of 4 shards captured the wire" "$tmp/out"
[ "$fail" = 0 ] && echo "shards: all checks passed"
exit "$fail"
