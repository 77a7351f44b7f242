#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `syntwin fingerprints RESULTS_DIR`: the fingerprints a run's records show (JA4T/JA4TS and p0f,
# computed in the guest), and the real p0f and tshark run on each passive record's SYN to check
# that p0f's raw_sig and label and the JA4T of tshark's dissection equal syntwin's for every
# record: on the wire's capture of it (wire-syns.pcap, the whole frames an AF_PACKET capture
# took: a run with --capture-points wire), else on the witness's copies (syns.pcap, headers
# only). Glue only: jq reads the JSON, syntwin-fingerprints (fingerprint/fp_table.c) does the
# join, the JA4T and the table.
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

# the copy the tools read: the wire's frames where the run captured them
pcap=$dir/syns.pcap copy="the witness's copies (syns.pcap)" c=bpf
if [ -f "$dir/wire-syns.pcap" ]; then
	pcap=$dir/wire-syns.pcap copy="the wire's capture (wire-syns.pcap)" c=wire
fi
# p0f stamps its log with each packet's time: record n is n seconds (record/report.c).
TZ=UTC p0f -r "$pcap" -o "$tmp/p0f.log" >"$tmp/p0f.out" 2>&1 || {
	cat "$tmp/p0f.out" >&2
	die "fingerprints: p0f -r $pcap failed"
}
[ -f "$tmp/p0f.log" ] || : >"$tmp/p0f.log"
tshark -r "$pcap" -T fields -E separator=/t -E aggregator=, -e frame.time_epoch \
	-e tcp.window_size_value -e tcp.option_kind -e tcp.options.mss_val \
	-e tcp.options.wscale.shift -e _ws.malformed >"$tmp/tshark.tsv" 2>"$tmp/tshark.err" || {
	cat "$tmp/tshark.err" >&2
	die "fingerprints: tshark -r $pcap failed"
}
jq -r --arg c "$c" '[.n, .direction, .gen, .knobs, .ja4t_native, .ja4t_bpf, .p0f_native, .p0f_bpf,
	.p0f_label_native, .p0f_label_bpf, .["ja4t_" + $c], .["p0f_" + $c], .["p0f_label_" + $c]] |
	map(. // "") | @tsv' "$dir/connections.jsonl" >"$tmp/records.tsv" ||
	die "fingerprints: $dir/connections.jsonl could not be read"
"$tool" --table "$tmp/records.tsv" --p0f-log "$tmp/p0f.log" --tshark "$tmp/tshark.tsv" --copy "$copy"
