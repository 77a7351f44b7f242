#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# report.txt (record/report_text.c), line by line: a failing run's report equals the expected
# text (tests/fixtures/report/: the kernel, what was applied with its Message-Id, the counts,
# the failed expectation, the unexplained record decoded, the report to send), every line at
# most 72 columns; a passing run ends with the reviewer's Tested-by: line; a kill matrix is
# listed cell by cell; bad input is a status 2.
# usage: report_text.sh SYNTWIN-REPORT
set -u
. "$(dirname "$0")/lib.sh"
rep=$1 fx=$ROOT/tests/fixtures/report
kernel="6.12.118-syntwin (git tree /src/linux at v6.12-3-g39725c25de47, commit 39725c25de47)"
who="A Reviewer <reviewer@example.org>"
check "$rep" --kernel "$kernel" --applied "$fx/applied.txt" --run "$fx" --tested-by "$who" >"$tmp/fail.txt"
check diff -u "$fx/report.expected" "$tmp/fail.txt"
check sh -c "! awk 'length > 72' '$tmp/fail.txt' | grep -q ."
# the same run, passing: every expectation held, nothing unexplained
mkdir "$tmp/pass"
jq -c '.unexplained = 0 | .expectations_failed = 0 | .expectations[1].ok = true | .identical = 3' \
	"$fx/summary.json" >"$tmp/pass/summary.json"
grep -v '"verdict":"differ"' "$fx/connections.jsonl" >"$tmp/pass/connections.jsonl"
check "$rep" --kernel "$kernel" --run "$tmp/pass" --tested-by "$who" >"$tmp/pass.txt"
check [ "$(tail -n 1 "$tmp/pass.txt")" = "Tested-by: $who" ]
check sh -c "! grep -q -e 'First unexplained' -e FAILED -e Reported '$tmp/pass.txt'"
check grep -qx 'Expected:   2 checked, 0 failed' "$tmp/pass.txt"
# the witness's features of the kernel, where summary.json has them (the fixture has none)
check sh -c "! grep -q '^Witness:' '$tmp/fail.txt'"
jq -c '.witness_features = {"ring_buffer": true, "drop_reasons": false, "trampolines": true}' \
	"$tmp/pass/summary.json" >"$tmp/pass/s.json" && mv "$tmp/pass/s.json" "$tmp/pass/summary.json"
check "$rep" --kernel "$kernel" --run "$tmp/pass" --tested-by "$who" >"$tmp/pass.txt"
check grep -qx 'Witness:    ring buffer, no kfree_skb drop reasons, BPF trampolines' "$tmp/pass.txt"
# a kill matrix: every cell, and Tested-by when every mutant was killed
check "$rep" --kernel "$kernel" --matrix "$fx/matrix.json" >"$tmp/matrix.txt"
check grep -qx '    comparator: KILLED: abandon-rst proven 0, want 8' "$tmp/matrix.txt"
check grep -qx '  leak-reset-request' "$tmp/matrix.txt"
check [ "$(tail -n 1 "$tmp/matrix.txt")" = "Tested-by: syntwin" ]
# the run's verdicts as KTAP, read by the kernel's own KTAP parser (kunit.py parse, from a
# Debian kernel source: the cache's extract, else the tarball's): 4 tests, 2 of them failed,
# each by name; the parser's status 1 for a failed run, 0 for the passing one
kunit=$(ls "${SYNTWIN_CACHE:-${HOME:-/root}/.cache/syntwin}"/src/*/tools/testing/kunit/kunit.py 2>/dev/null | head -n 1)
if [ -z "$kunit" ]; then
	tar -xJf "$(ls /usr/src/linux-source-*.tar.xz | head -n 1)" -C "$tmp" --wildcards '*/tools/testing/kunit/*'
	kunit=$(ls "$tmp"/*/tools/testing/kunit/kunit.py | head -n 1)
fi
check [ -f "$kunit" ]
check "$rep" --ktap --kernel "$kernel" --run "$fx" >"$tmp/fail.ktap"
check [ "$(head -n 1 "$tmp/fail.ktap")" = "KTAP version 1" ]
rc=0
python3 "$kunit" parse --json="$tmp/fail.json" "$tmp/fail.ktap" >"$tmp/kunit.log" 2>&1 || rc=$?
check [ "$rc" = 1 ]
check [ "$(jq -c '[.test_cases[] | [.name, .status]]' "$tmp/fail.json")" = \
	'[["every record identical or explained","FAIL"],["the run complete (not partial)","PASS"],["the run'"'"'s exit status 0","PASS"],["expectation counter TCPSynSaved present","PASS"],["expectation abandon-rst proven","FAIL"]]' ]
check "$rep" --ktap --kernel "$kernel" --run "$tmp/pass" >"$tmp/pass.ktap"
check python3 "$kunit" parse --json="$tmp/pass.json" "$tmp/pass.ktap"
check [ "$(jq '[.test_cases[] | select(.status == "PASS")] | length' "$tmp/pass.json")" = 5 ]
# the same records with the run's status 1 (a kernel splat the host saw: summary.json cannot
# say): no Tested-by, and the KTAP's third test fails
check "$rep" --kernel "$kernel" --run "$tmp/pass" --status 1 --tested-by "$who" >"$tmp/splat.txt"
check grep -q '^Status:     syntwin.s status 1: the run failed beyond its records' "$tmp/splat.txt"
check sh -c "! grep -q Tested-by '$tmp/splat.txt'"
check "$rep" --ktap --kernel "$kernel" --run "$tmp/pass" --status 1 >"$tmp/splat.ktap"
check grep -qx "not ok 3 the run's exit status 0" "$tmp/splat.ktap"
check "$ROOT/tests/expect.sh" --status 2 --stderr "--status: not a number" -- \
	"$rep" --kernel x --run "$tmp/pass" --status 1x
# bad input
check "$ROOT/tests/expect.sh" --status 2 --stderr "nothing-here/summary.json: unable to open" -- \
	"$rep" --kernel x --run "$tmp/pass/nothing-here"
rm "$tmp/pass/connections.jsonl"
jq -c '.unexplained = 1' "$tmp/pass/summary.json" >"$tmp/pass/s" && mv "$tmp/pass/s" "$tmp/pass/summary.json"
check "$ROOT/tests/expect.sh" --status 2 --stderr "cannot read the run's records" -- \
	"$rep" --kernel x --run "$tmp/pass"
check "$ROOT/tests/expect.sh" --status 2 --stderr "usage: syntwin-report" -- "$rep" --run "$fx"
exit "$fail"
