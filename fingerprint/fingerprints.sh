#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `syntwin fingerprints RESULTS_DIR`: the fingerprints a run's records show (JA4T/JA4TS and p0f,
# computed in the guest), and the real p0f run on the witness's SYNs (syns.pcap) to check that
# its raw_sig and label equal syntwin's for every record. Glue only: jq reads the JSON,
# syntwin-fingerprints (fingerprint/fp_table.c) does the join and the table.
# usage: fingerprints.sh BUILD_DIR RESULTS_DIR      exit 0, 1 on a disagreement, 2 on bad input
set -eu
. "$SYNTWIN_ROOT/vm/lib.sh"

[ $# -eq 2 ] || usage_die "usage: syntwin fingerprints RESULTS_DIR"
tool=$1/guest/syntwin-fingerprints
dir=$2
for f in connections.jsonl syns.pcap; do
	[ -f "$dir/$f" ] || usage_die "fingerprints: $dir/$f: no such file (a results directory of ./syntwin run)"
done
jq -e 'has("fingerprints")' "$dir/summary.json" >/dev/null 2>&1 ||
	usage_die "fingerprints: $dir/summary.json has no fingerprints block (made before fingerprints were added?)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# p0f stamps its log with each packet's time: record n is n seconds (record/report.c).
TZ=UTC p0f -r "$dir/syns.pcap" -o "$tmp/p0f.log" >"$tmp/p0f.out" 2>&1 || {
	cat "$tmp/p0f.out" >&2
	die "fingerprints: p0f -r $dir/syns.pcap failed"
}
[ -f "$tmp/p0f.log" ] || : >"$tmp/p0f.log"
jq -r '[.n, .direction, .gen, .knobs, .ja4t_native, .ja4t_bpf, .p0f_native, .p0f_bpf,
	.p0f_label_native, .p0f_label_bpf] | map(. // "") | @tsv' "$dir/connections.jsonl" >"$tmp/records.tsv" ||
	die "fingerprints: $dir/connections.jsonl could not be read"
"$tool" --table "$tmp/records.tsv" --p0f-log "$tmp/p0f.log"
