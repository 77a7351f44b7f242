#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest fault tests through `syntwin run`: each fault ends the run nonzero, says what happened,
# and leaves the results so far on disk with a summary marked partial that counts them; except
# client-reset, a failure the wire explains, which ends the run clean.
# usage: faults.sh evict|kill-server|panic|timeout|splat|client-fails|client-reset
set -u
. "$(dirname "$0")/lib.sh"
field() { jq -r --arg f "$1" '.[$f]' "$tmp/out/summary.json"; }
run() { # expected status, then run arguments
	want=$1
	shift
	start=$(date +%s)
	"$ROOT/syntwin" run --out "$tmp/out" "$@" >"$tmp/log" 2>&1
	rc=$? took=$(($(date +%s) - start))
	tail -n 12 "$tmp/log"
	echo "exit $rc after ${took}s"
	check [ "$rc" = "$want" ]
}
# The kept results: whole records only, numbered 0.. without a gap, the summary partial. @1 is
# how many records were on disk when the fault struck (exact: with a fault armed the server
# ends a batch at the fault's record), or "checkpoint" where the guest is stopped from outside at an
# instant no one chose: then at least the last checkpoint's records are there.
kept_and_partial() {
	j=$tmp/out/connections.jsonl
	lines=$(grep -c '' "$j")
	check [ -f "$tmp/out/summary.json" ]
	check [ "$(field partial)" = true ]
	# every line a whole JSON object, their "n" 0, 1, ... in order
	check [ "$(jq -nR '[inputs | fromjson? | objects] | length' "$j")" = "$lines" ]
	check [ "$(jq -nR '[inputs | fromjson? | .n] | to_entries | map(select(.key != .value)) | length' "$j")" = 0 ]
	if [ "$1" = checkpoint ]; then
		check [ "$(field records_written)" -gt 0 ]
		check [ "$(field records_written)" -le "$lines" ]
	else
		check [ "$lines" = "$1" ]
	fi
	echo "kept: $lines records; summary: $(field connections) connections, $(field records_written) written, partial $(field partial)"
}

case $1 in
splat)
	# a clean run whose guest kernel logs a WARN: red, the splat named, the results complete
	run 1 --connections 300 --mix plain --test-fault splat
	check grep -q "kernel splat (WARNING): WARNING: CPU: 0 PID: 1 at syntwin-test" "$tmp/log"
	check grep -q "console log kept: " "$tmp/log"
	check [ -s "$(sed -n 's/.*console log kept: //p' "$tmp/log")" ]
	check [ "$(field partial)" = false ]
	check [ "$(field unexplained)" = 0 ]
	check [ "$(field connections)" = 300 ]
	;;
evict)
	# 16 flow entries and 16 clients at once: the LRU flow map overflows (one client at a time
	# never holds more than a few records in them).
	run 1 --connections 1000 --entries 16 --parallel 16 --mix plain
	# The map evicts, always (16 entries, 2,000 records): the run is partial. Whether a record
	# is lost depends on the race: an entry evicted after its socket was bound lost nothing
	# (its record went through the ring), only fates noted later; one evicted before is a
	# connection without a capture. Each of those, however many, is judged
	# witness-map-eviction and counted in records_lost, never unexplained.
	check [ "$(field partial)" = true ]
	check [ "$(field witness_evictions)" -gt 0 ]
	check [ "$(field records_lost)" -le "$(field witness_evictions)" ]
	check [ "$(field unexplained)" = 0 ]
	check [ "$(jq -s '[.[] | select(.verdict == "bpf-missing" and .reason == "witness-map-eviction")] | length' "$tmp/out/connections.jsonl")" = "$(field records_lost)" ]
	check grep -q "evicted .* record(s); .* connection(s) have no capture: results are partial (raise --entries)" "$tmp/log"
	check grep -q "FAILED" "$tmp/log"
	echo "evictions $(field witness_evictions), connections lost $(field records_lost)"
	;;
kill-server)
	run 1 --connections 20000 --mix plain --test-fault kill-server
	check grep -q "TEST FAULT: kill-server with 1500 records on disk" "$tmp/log"
	check grep -q "summary is marked partial" "$tmp/log"
	kept_and_partial 1500
	;;
panic)
	run 1 --connections 20000 --mix plain --test-fault panic
	check grep -q "guest kernel panic" "$tmp/log"
	check grep -q "sysrq" "$tmp/log"
	check grep -q "summary is marked partial" "$tmp/log"
	check [ "$took" -le 90 ]
	check grep -q "TEST FAULT: panic with 1500 records on disk" "$tmp/log"
	kept_and_partial 1500
	;;
timeout)
	# far more connections than 25 s allow: the guest is killed at --timeout
	run 1 --connections 1000000 --mix plain --timeout 25
	check grep -q "timed out after 25 s" "$tmp/log"
	check grep -q "summary is marked partial" "$tmp/log"
	check [ "$took" -le 60 ]
	# the kill can fall inside a write: a torn last line is set aside, said, and not kept
	if [ -e "$tmp/out/.connections.jsonl.torn" ]; then
		check grep -q "connections.jsonl: its last .* byte(s) were cut short mid-write" "$tmp/log"
		echo "a torn last record was set aside: $(wc -c <"$tmp/out/.connections.jsonl.torn") bytes"
	fi
	kept_and_partial checkpoint
	;;
client-fails)
	# every SYN-ACK lost on the way back (and the server's neighbour replies: the client's
	# connect() fails, EHOSTUNREACH or ETIMEDOUT): each failure reaches the server, which sets
	# the connection's label aside (a later connection reusing the port cannot take it) and
	# counts it; the run fails, saying so
	run 1 --connections 12 --mix sockets --parallel 4 --netem-back 'loss 100%'
	check grep -q "client: 0 connections made, 12 failed" "$tmp/log"
	check grep -q "12 connection(s) failed in the client: 0 proven by the wire" "$tmp/log"
	check [ "$(field client_failed)" = 12 ]
	check [ "$(field client_failed_proven)" = 0 ]
	# no SYN-ACK was saved for any: nothing but the client's word, so each is a failure
	check [ "$(field connection_failed)" = 12 ]
	check [ "$(field connections)" = 0 ]
	check [ "$(field partial)" = true ]
	;;
client-reset)
	# the server resets socket connection #5 after it has judged its child, and the client
	# checks that connection only once the reset is in: its connect() succeeded, its socket
	# reports ECONNRESET, and its kernel still holds the saved SYN-ACK. The record is compared
	# like any other, and the failure is explained by the wire alone: the witness saw the
	# server's RST (seq = the SYN-ACK's ISN + 1) reach the client. Exactly one, and only it.
	run 0 --connections 300 --test-fault reset
	check grep -q "TEST RESET: sockets #5 reset by the server" "$tmp/log"
	check grep -q "1 connection(s) failed in the client: 1 proven by the wire" "$tmp/log"
	check [ "$(field client_failed)" = 1 ]
	check [ "$(field client_failed_proven)" = 1 ]
	check [ "$(field connection_failed)" = 0 ]
	check [ "$(field unexplained)" = 0 ]
	check [ "$(field partial)" = false ]
	check [ "$(jq '.bpf_counters.synack_rst' "$tmp/out/summary.json")" = 1 ]
	check [ "$(jq -c 'select(.client_error != "") | [.direction, .gen, .gen_index, .verdict,
		.client_error, (.detail | test("then reset by the server"))]' \
		"$tmp/out/connections.jsonl")" = '["active","sockets",5,"identical","ECONNRESET",true]' ]
	;;
*) echo "usage: faults.sh evict|kill-server|panic|timeout|splat|client-fails|client-reset" >&2; exit 2 ;;
esac
[ $fail = 0 ] && echo "faults $1: all checks passed"
exit $fail
