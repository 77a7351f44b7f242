#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `syntwin merge OUT DIR...`: the results of the N shards of one seeded run (`syntwin run
# --shard I/N`) joined into one results directory, as the unsharded run would have written it:
# - connections.jsonl: the shards' records in shard order, numbered again without a gap; each
#   keeps its shard ("I/N") and its number there (shard_n);
# - summary.json: counts added, the rest as record/merge.jq says; plan.json: the whole run's;
# - mismatches.pcap(ng), syns.pcap: the shards' frames in the same order, stamped again with
#   the new record numbers (syns.pcap: n seconds; editcap -t, mergecap -a: Wireshark's tools).
# Glue: jq and Wireshark's tools do the work. Exit 0; 1 if a shard was partial or anything is
# unexplained; 2 on bad input (not the shards of one run, each once).
# usage: merge.sh BUILD_DIR OUT DIR...
set -eu
. "$SYNTWIN_ROOT/vm/lib.sh"
[ $# -ge 3 ] || usage_die "usage: syntwin merge OUT SHARD_DIR..."
build=$1 out=$2
shift 2
# the directories go through word lists below (shard order, mergecap's arguments)
plain_path "merge: OUT" "$out"
for d in "$@"; do
	plain_path "merge: SHARD_DIR" "$d"
done
for d in "$@"; do
	[ ! -d "$out" ] || [ ! -d "$d" ] || [ "$(cd "$out" && pwd)" != "$(cd "$d" && pwd)" ] ||
		usage_die "merge: $out is one of the shards; choose another OUT"
done
for d in "$@"; do
	for f in summary.json connections.jsonl plan.json provides syns.pcap mismatches.pcap mismatches.pcapng; do
		[ -f "$d/$f" ] || usage_die "merge: $d/$f: no such file (a results directory of syntwin run --shard)"
	done
done
# every directory one shard of one run: same N, seed, size, mix; each I once
n_shards=$#
list=$(for d in "$@"; do
	jq -r --arg d "$d" '"\(.shard) \(.seed) \(.mix) \(.kernel) \(.series_hash) \($d)"' "$d/summary.json" ||
		exit 2
done) || usage_die "merge: a summary.json could not be read"
first=$(printf '%s\n' "$list" | head -n 1)
printf '%s\n' "$list" | while read -r shard seed mix kernel shash d; do
	case $shard in */*) ;; *) usage_die "merge: $d is not a shard (its summary names no I/N)" ;; esac
	[ "${shard#*/}" = "$n_shards" ] || usage_die "merge: $d is shard $shard: $n_shards directories given"
	[ "$seed $mix $kernel $shash" = "$(echo "$first" | cut -d' ' -f2-5)" ] ||
		usage_die "merge: $d is not of the same run as the others (seed, mix, kernel or series)"
done
for d in "$@"; do
	cmp -s "$d/provides" "$1/provides" ||
		usage_die "merge: $d ran under another series declaration (provides) than $1"
done
dups=$(printf '%s\n' "$list" | cut -d' ' -f1 | sort | uniq -d)
[ -z "$dups" ] || usage_die "merge: shard $dups given twice"
for d in "$@"; do
	jq -e --slurpfile a "$d/plan.json" --slurpfile b "$1/plan.json" -n \
		'$a[0].connections == $b[0].connections and $a[0].active == $b[0].active' >/dev/null ||
		usage_die "merge: $d is not of the same size as $1"
done
results_dir_ok "$out" || usage_die "merge: $out is neither new, empty, nor an earlier syntwin results directory"
mkdir -p "$out" || usage_die "merge: cannot create $out"
mark_results_dir "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shard order, and each shard's first record number in the merged run
dirs=$(printf '%s\n' "$list" | sort -t/ -k1,1n | awk '{print $6}')
off=0 k=0
: >"$tmp/records.jsonl"
for d in $dirs; do
	shard=$(jq -r .shard "$d/summary.json")
	jq -c --argjson off "$off" --arg shard "$shard" '. + {n: (.n + $off), shard: $shard, shard_n: .n}' \
		"$d/connections.jsonl" >>"$tmp/records.jsonl" || die "merge: $d/connections.jsonl could not be read"
	editcap -t "$off" "$d/syns.pcap" "$tmp/syns.$k.pcap" >/dev/null 2>&1 || die "merge: editcap $d/syns.pcap failed"
	editcap -t "$off" "$d/mismatches.pcapng" "$tmp/mm.$k.pcapng" >/dev/null 2>&1 ||
		die "merge: editcap $d/mismatches.pcapng failed"
	off=$((off + $(grep -c '' "$d/connections.jsonl")))
	k=$((k + 1))
done
# mergecap -a: one file after the other, in shard order; the classic format for the .pcap files
in_order() { i=0; while [ $i -lt "$k" ]; do printf '%s\n' "$tmp/$1.$i.$2"; i=$((i + 1)); done; }
# shellcheck disable=SC2046 # paths without white space (plain_path above)
mergecap -a -F pcap -w "$tmp/syns.pcap" $(in_order syns pcap) || die "merge: mergecap (syns.pcap) failed"
# shellcheck disable=SC2046
mergecap -a -F pcap -w "$tmp/mismatches.pcap" $(for d in $dirs; do echo "$d/mismatches.pcap"; done) ||
	die "merge: mergecap (mismatches.pcap) failed"
# shellcheck disable=SC2046
mergecap -a -F pcapng -w "$tmp/mismatches.pcapng" $(in_order mm pcapng) ||
	die "merge: mergecap (mismatches.pcapng) failed"
# shellcheck disable=SC2046
jq -s --argjson shards "$n_shards" --slurpfile records "$tmp/records.jsonl" \
	-f "$SYNTWIN_ROOT/record/merge.jq" $(for d in $dirs; do echo "$d/summary.json"; done) >"$tmp/summary.json" ||
	die "merge: the summaries could not be merged"
# the whole run's plan
eval "$(jq -r '"pn=\(.connections) pseed=\(.seed) pmix=\(.mix) pactive=\(.active)"' "$1/plan.json")"
# the series' declaration the shards ran under (the same file in each: checked above)
"$build/guest/syntwin-plan" --out "$tmp" --connections "$pn" --seed "$pseed" --mix "$pmix" \
	--provides "$1/provides" $([ "$pactive" = true ] && echo --active) ||
	die "merge: the whole run's plan could not be made"
cp "$1/provides" "$tmp/provides" || die "merge: cannot copy $1/provides"
for f in connections.jsonl summary.json plan.json provides syns.pcap mismatches.pcap mismatches.pcapng; do
	[ "$f" = connections.jsonl ] && src=$tmp/records.jsonl || src=$tmp/$f
	mv "$src" "$out/$f"
done
rm -f "$out/timing.json"
partial=$(jq -r .partial "$out/summary.json") unexplained=$(jq -r .unexplained "$out/summary.json")
failed=$(jq -r '.expectations_failed // 0' "$out/summary.json")
jq -r '.expectations[] | select(.ok | not) |
	"syntwin: expectation failed (shard \(.shard)): \(.name) \(.got), want \(.want) (\(.when))"' \
	"$out/summary.json" >&2
stage "merge: $n_shards shards, $(grep -c '' "$out/connections.jsonl") records, $unexplained unexplained, $failed expectation(s) failed$([ "$partial" = false ] || echo ", PARTIAL"); results in $out"
# like `syntwin run`: 1 unless every record is identical or explained, every shard's
# expectations held and no shard was partial
[ "$partial" = false ] && [ "$unexplained" = 0 ] && [ "$failed" = 0 ]
