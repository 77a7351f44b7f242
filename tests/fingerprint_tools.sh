#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# syntwin's fingerprints against the tools people read SYNs with, on unit.fingerprint's
# packets (every edge case it has a golden value for):
# - JA4T: assembled from tshark's own dissection (tcp.option_kind, the last
#   tcp.options.mss_val and tcp.options.wscale.shift, as FoxIO's reference ja4 reads them);
# - p0f: Debian's p0f -r logs, for every SYN, the raw_sig and label syntwin computes, and
#   nothing for the packets syntwin says p0f does not fingerprint;
# - `syntwin fingerprints` on a results directory made of those packets exits 0, and 1 when
#   one record's label is wrong or a record is missing; p0f and tshark read the wire's capture
#   (wire-syns.pcap) where there is one, and a wrong JA4T there fails too.
# usage: fingerprint_tools.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib.sh"
build=$1
fp=$build/guest/syntwin-fingerprints
"$build/tests/test_fingerprint" --write-pcap "$tmp/f.pcap"
check [ $? = 0 ]
"$fp" --pcap "$tmp/f.pcap" >"$tmp/ours.tsv"
check [ $? = 0 ]
n=$(grep -c '' "$tmp/ours.tsv")
check [ "$n" -ge 20 ]

# JA4T from tshark's fields
tshark -r "$tmp/f.pcap" -T fields -E separator=/t -E aggregator=, -e frame.number \
	-e tcp.window_size_value -e tcp.option_kind -e tcp.options.mss_val \
	-e tcp.options.wscale.shift >"$tmp/tshark.tsv" 2>"$tmp/tshark.err"
check [ $? = 0 ]
awk -F'\t' '{
	kinds = $3; gsub(",", "-", kinds); if (kinds == "") kinds = "00"
	m = split($4, mss, ","); ms = m ? sprintf("%02d", mss[m]) : "00"
	w = split($5, ws, ","); s = (w && ws[w] > 0) ? ws[w] : "00"
	printf "%d\t%s_%s_%s_%s\n", $1 - 1, $2, kinds, ms, s
}' "$tmp/tshark.tsv" >"$tmp/tshark.ja4t"
cut -f1,2 "$tmp/ours.tsv" >"$tmp/ours.ja4t"
check [ "$(grep -c '' "$tmp/tshark.ja4t")" = "$n" ]
check cmp "$tmp/ours.ja4t" "$tmp/tshark.ja4t"

# p0f's log: the date is the packet's index (stamped as seconds)
TZ=UTC p0f -r "$tmp/f.pcap" -o "$tmp/p0f.log" >"$tmp/p0f.out" 2>&1
check [ $? = 0 ]
grep 'mod=syn|' "$tmp/p0f.log" | sed -n 's/^\[1970\/01\/01 \([0-9:]*\)\].*|\(os\|app\)=\([^|]*\)|.*|raw_sig=\(.*\)$/\1\t\4\t\2=\3/p' |
	awk -F'\t' '{ split($1, t, ":"); printf "%d\t%s\t%s\n", t[1] * 3600 + t[2] * 60 + t[3], $2, $3 }' \
	>"$tmp/p0f.tsv"
# every SYN syntwin fingerprints, p0f fingerprints alike; SYN-ACKs p0f only reads after their
# SYN, so the lone one here is left out of both
awk -F'\t' '$3 != "" && $4 != "os=Linux 3.x" { print $1 "\t" $3 "\t" $4 }' "$tmp/ours.tsv" >"$tmp/ours.p0f"
check [ "$(grep -c '' "$tmp/p0f.tsv")" -ge 18 ]
check cmp "$tmp/ours.p0f" "$tmp/p0f.tsv"

# the run view on a results directory of these packets (records passive, the SYN-ACK active)
res=$tmp/results
mkdir -p "$res"
cp "$tmp/f.pcap" "$res/syns.pcap"
echo '{"fingerprints": {}}' >"$res/summary.json"
jq -R -c 'split("\t") | {n: (.[0] | tonumber), direction: (if .[3] == "os=Linux 3.x" then "active" else "passive" end),
	gen: "crafted", knobs: "unit/fixture", ja4t_native: .[1], ja4t_bpf: .[1],
	p0f_native: .[2], p0f_bpf: .[2], p0f_label_native: .[3], p0f_label_bpf: .[3]}' \
	"$tmp/ours.tsv" >"$res/connections.jsonl"
SYNTWIN_ROOT=$ROOT "$ROOT/fingerprint/fingerprints.sh" "$build" "$res" >"$tmp/view.out" 2>&1
check [ $? = 0 ]
agree=$(grep -c '' "$tmp/p0f.tsv")
check grep -q "equal syntwin's for $agree of $agree passive records ($agree p0f log lines, $agree of them" "$tmp/view.out"
check grep -q '^crafted  *unit/fixture  *passive .* 64240_2-4-8-1-3_1460_7 .*os=Linux 2.2.x-3.x$' "$tmp/view.out"
syns=$(jq -s '[.[] | select(.direction == "passive")] | length' "$res/connections.jsonl")
# (every frame is a record's: the active one's SYN-ACK accounted for, not compared)
check grep -q "on the witness's copies (syns.pcap): tshark's JA4T equals syntwin's for $syns of $syns passive records ($n frames dissected, $n of them matched to a record; 0 tshark calls malformed" "$tmp/view.out"
# the same packets as the wire's capture (wire-syns.pcap, a run with --capture-points wire):
# the tools read it, and the records' wire fingerprints are what they are checked against
wres=$tmp/wire-results
mkdir -p "$wres"
cp "$res/summary.json" "$res/syns.pcap" "$wres/"
cp "$tmp/f.pcap" "$wres/wire-syns.pcap"
jq -c '. + {ja4t_wire: .ja4t_bpf, p0f_wire: .p0f_bpf, p0f_label_wire: .p0f_label_bpf, ja4t_bpf: "x", p0f_bpf: "x"}' \
	"$res/connections.jsonl" >"$wres/connections.jsonl"
SYNTWIN_ROOT=$ROOT "$ROOT/fingerprint/fingerprints.sh" "$build" "$wres" >"$tmp/view.out" 2>&1
check [ $? = 0 ]
check grep -q "on the wire's capture (wire-syns.pcap): p0f's own raw_sig and label equal syntwin's for $agree of $agree passive" "$tmp/view.out"
check grep -q "on the wire's capture (wire-syns.pcap): tshark's JA4T equals syntwin's for $syns of $syns passive records ($n frames" "$tmp/view.out"
# one wrong JA4T on the wire: exit 1, naming the record
jq -c 'if .n == 1 then .ja4t_wire = "1_2_3_4" else . end' "$wres/connections.jsonl" >"$tmp/c" &&
	mv "$tmp/c" "$wres/connections.jsonl"
SYNTWIN_ROOT=$ROOT "$ROOT/fingerprint/fingerprints.sh" "$build" "$wres" >"$tmp/view.out" 2>&1
check [ $? = 1 ]
check grep -q "record 1: tshark's fields make JA4T .*, syntwin says 1_2_3_4" "$tmp/view.out"
# one wrong label: exit 1, naming the record
jq -c 'if .n == 0 then .p0f_label_bpf = "os=Solaris" else . end' "$res/connections.jsonl" >"$tmp/c" &&
	mv "$tmp/c" "$res/connections.jsonl"
SYNTWIN_ROOT=$ROOT "$ROOT/fingerprint/fingerprints.sh" "$build" "$res" >"$tmp/view.out" 2>&1
check [ $? = 1 ]
check grep -q 'record 0: p0f says .* os=Linux 2.2.x-3.x, syntwin .* os=Solaris' "$tmp/view.out"
# a record p0f saw but the results lack: exit 1
jq -c 'select(.n != 0)' "$res/connections.jsonl" >"$tmp/c" && mv "$tmp/c" "$res/connections.jsonl"
SYNTWIN_ROOT=$ROOT "$ROOT/fingerprint/fingerprints.sh" "$build" "$res" >"$tmp/view.out" 2>&1
check [ $? = 1 ]
check grep -q "$((agree - 1)) of them matched" "$tmp/view.out"
# not a results directory: exit 2
SYNTWIN_ROOT=$ROOT "$ROOT/fingerprint/fingerprints.sh" "$build" "$tmp/nowhere" >"$tmp/view.out" 2>&1
check [ $? = 2 ]
check grep -q 'no such file' "$tmp/view.out"
[ "$fail" = 0 ] && echo "fingerprint_tools: 1 passed, 0 failed" || echo "fingerprint_tools: 0 passed, 1 failed"
exit "$fail"
