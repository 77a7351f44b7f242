#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `syntwin run --replay` on a capture written by libpcap (tests/replay_tool.c): the cut packet
# is named and skipped, the run is clean, and every SYN round-trips byte for byte but for
# addresses, ports, checksums and IP length. Bad replay inputs exit 2 naming the problem.
# usage: replay_round_trip.sh REPLAY_TOOL
set -u
. "$(dirname "$0")/lib.sh"
tool=$1
out=$tmp

"$tool" make "$out/in.pcap" "$ROOT/gen/profiles" >"$out/make.log" || exit 1
cat "$out/make.log"
syns=$(sed -n 's/.*: \([0-9]*\) SYNs among.*/\1/p' "$out/make.log")
"$ROOT/syntwin" run --replay "$out/in.pcap" --hex-all --smp 1 --out "$out/run" >"$out/log" 2>&1
rc=$?
tail -n 3 "$out/log"
check [ "$rc" = 0 ]
# the padded SYN is judged when replay gives up on it, not by the server's idle stop
check sh -c "! grep -q 'syntwin-server: nothing for' '$out/log'"
# the padded SYN and the eight drop-rule shapes: each seen dropped by the witness, given up at
# once (no 3 s wait for a SYN-ACK that cannot come)
check grep -q '9 got no SYN-ACK (judged by the server; 9 dropped by the kernel, given up at once)' "$out/log"
# every record names its generator and the packet it came from
check [ "$(jq '.generators.replay' "$out/run/summary.json")" = "$(jq '.connections' "$out/run/summary.json")" ]
check [ "$(jq '.generators.unknown' "$out/run/summary.json")" = 0 ]
check [ "$(jq -s '[.[] | select(.gen != "replay" or (.knobs | test("replay.pcap#[0-9]+$") | not))] | length' "$out/run/connections.jsonl")" = 0 ]
check [ "$(jq '.explained."dropped-by-kernel"' "$out/run/summary.json")" = 9 ]
check [ "$(jq -c '[.gave_up, .gave_up_dropped]' "$out/run/summary.json")" = '[9,9]' ]
check grep -q 'packet [0-9]*: IPv4 header cut' "$out/log"
check [ "$(jq .partial "$out/run/summary.json")" = false ]
check "$tool" check "$out/in.pcap" "$out/run/connections.jsonl"

# Bad inputs: missing file, not a pcap (exit 2 from the host or the guest, with the reason).
check "$ROOT/tests/expect.sh" --status 2 --stderr "no such readable file" -- \
	"$ROOT/syntwin" run --replay "$out/nope.pcap"
echo "not a capture" >"$out/text.pcap"
check "$ROOT/tests/expect.sh" --status 2 --stderr "text.pcap" -- \
	"$ROOT/syntwin" run --replay "$out/text.pcap" --smp 1 --out "$out/run2"
# A truncated file (the capture less its last 300 bytes: the cut packet, the ARP frame, the padded
# SYN and part of an ACK): the SYNs before the cut are counted, the cut is named. An unsupported link
# type: exit 2 naming it, before a guest boots. No SYNs: a run of zero connections, said so.
"$tool" bad "$out" "$ROOT/gen/profiles" || exit 1
crafted=${SYNTWIN_BUILD:-$ROOT/build}/guest/syntwin-crafted
n=$("$crafted" --replay "$out/truncated.pcap" --count 2>"$out/err")
check [ $? = 0 ]
# the cut falls after the last good SYN's SYN-ACK: every SYN but the padded last one is counted
check [ "$n" = $((syns - 1)) ]
check grep -q 'unreadable' "$out/err"
check "$ROOT/tests/expect.sh" --status 2 --stderr "link type" --stderr "usb.pcap" --max-seconds 30 -- \
	"$ROOT/syntwin" run --replay "$out/usb.pcap" --smp 1 --out "$out/run3"
"$ROOT/syntwin" run --replay "$out/nosyn.pcap" --smp 1 --out "$out/run4" >"$out/log4" 2>&1
check [ $? = 0 ]
check grep -q 'no SYNs in this file' "$out/log4"
check [ "$(jq -c '[.connections, .partial]' "$out/run4/summary.json")" = '[0,false]' ]
[ $fail = 0 ] && echo "replay_round_trip: all checks passed"
exit $fail
