#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `syntwin merge OUT DIR...`: the results of the N shards of one seeded run (`syntwin run
# --shard I/N`) joined into one results directory, as the unsharded run would have written it:
# - connections.jsonl: the shards' records in shard order, numbered again without a gap; each
#   keeps its shard ("I/N") and its number there (shard_n);
# - summary.json: counts added, the rest as record/summary_merge.h says; plan.json: the whole
#   run's (record/merge_main.c, syntwin-merge);
# - mismatches.pcap(ng), syns.pcap: the shards' frames in the same order, stamped again with
#   the new record numbers (syns.pcap: n seconds; editcap -t, mergecap -a: Wireshark's tools);
#   a run that captured the wire (--capture-points wire): wire-syns.pcap the same way, and its
#   raw captures (wire.pcap, wire-RAW.pcap) merged in time order.
# Glue: syntwin-merge and Wireshark's tools do the work. Exit 0; 1 if a shard was partial or
# anything is unexplained; 2 on bad input (not the shards of one run, each once).
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
# the wire's captures: in every shard or in none (one run's shards ran with the same points)
wired=0
for d in "$@"; do
	[ ! -f "$d/wire-syns.pcap" ] || wired=$((wired + 1))
done
[ "$wired" = 0 ] || [ "$wired" = $# ] ||
	usage_die "merge: $wired of $# shards captured the wire (wire-syns.pcap): not the shards of one run"
wires=''
for f in "$1"/wire.pcap "$1"/wire-*.pcap; do
	[ "$wired" = 0 ] || [ ! -f "$f" ] || [ "${f##*/}" = wire-syns.pcap ] || wires="$wires ${f##*/}"
done
results_dir_ok "$out" || usage_die "merge: $out is neither new, empty, nor an earlier syntwin results directory"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the records, summary, plan and declaration (record/merge_main.c: the shards checked to be one
# run's, each once, before OUT is made; their order and first record numbers printed for the
# captures). Its status as it is: 2 bad input, 1 the merge failed (both said).
rc=0
order=$("$build/record/syntwin-merge" --out "$tmp" "$@") || rc=$?
case $rc in
0) ;;
1 | 2) exit "$rc" ;;
*) die "merge: syntwin-merge stopped with status $rc" ;;
esac
mkdir -p "$out" || usage_die "merge: cannot create $out"
mark_results_dir "$out"
syns='' mm='' pcaps='' wsyns='' dirs=''
# shellcheck disable=SC2086 # "K OFFSET DIR" lines; paths without white space (plain_path)
set -- $order
while [ $# -ge 3 ]; do
	k=$1 off=$2 d=$3
	shift 3
	editcap -t "$off" "$d/syns.pcap" "$tmp/syns.$k.pcap" >/dev/null 2>&1 || die "merge: editcap $d/syns.pcap failed"
	editcap -t "$off" "$d/mismatches.pcapng" "$tmp/mm.$k.pcapng" >/dev/null 2>&1 ||
		die "merge: editcap $d/mismatches.pcapng failed"
	syns="$syns $tmp/syns.$k.pcap" mm="$mm $tmp/mm.$k.pcapng" pcaps="$pcaps $d/mismatches.pcap"
	dirs="$dirs $d"
	[ "$wired" = 0 ] || editcap -t "$off" "$d/wire-syns.pcap" "$tmp/wsyns.$k.pcap" >/dev/null 2>&1 ||
		die "merge: editcap $d/wire-syns.pcap failed"
	wsyns="$wsyns $tmp/wsyns.$k.pcap"
done
if [ "$wired" != 0 ]; then
	# shellcheck disable=SC2086 # paths without white space
	mergecap -a -F pcap -w "$tmp/wire-syns.pcap" $wsyns || die "merge: mergecap (wire-syns.pcap) failed"
	for w in $wires; do
		# the raw captures in time order, as one capture of the whole run would hold them
		# shellcheck disable=SC2046 # paths without white space
		mergecap -F pcap -w "$tmp/$w" $(for d in $dirs; do echo "$d/$w"; done) ||
			die "merge: mergecap ($w) failed"
	done
fi
# mergecap -a: one file after the other, in shard order; the classic format for the .pcap files
# shellcheck disable=SC2086 # paths without white space
mergecap -a -F pcap -w "$tmp/syns.pcap" $syns || die "merge: mergecap (syns.pcap) failed"
# shellcheck disable=SC2086
mergecap -a -F pcap -w "$tmp/mismatches.pcap" $pcaps || die "merge: mergecap (mismatches.pcap) failed"
# shellcheck disable=SC2086
mergecap -a -F pcapng -w "$tmp/mismatches.pcapng" $mm || die "merge: mergecap (mismatches.pcapng) failed"
for f in connections.jsonl summary.json plan.json provides syns.pcap mismatches.pcap mismatches.pcapng; do
	mv "$tmp/$f" "$out/$f"
done
[ "$wired" = 0 ] || for f in wire-syns.pcap $wires; do mv "$tmp/$f" "$out/$f"; done
rm -f "$out/timing.json"
# like `syntwin run`: 1 unless every record is identical or explained, every shard's
# expectations held and no shard was partial
"$build/record/syntwin-merge" --verdict "$out"
