#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run one libFuzzer target for SECONDS from its seed corpus (never written to). Exit 0 only if it
# ran the whole time without a crash, leak or sanitizer report; otherwise the reproducer is kept
# in OUT (default: a temp dir, kept on failure) and shown in hex.
# usage: run_fuzz.sh FUZZER SEED_DIR SECONDS [OUT]
set -u
fuzzer=$1 seeds=$2 secs=$3 out=${4:-}
[ -x "$fuzzer" ] || { echo "run_fuzz: $fuzzer: not built" >&2; exit 2; }
[ -d "$seeds" ] || { echo "run_fuzz: $seeds: no seed corpus" >&2; exit 2; }
keep=1
[ -n "$out" ] || { out=$(mktemp -d); keep=0; }
mkdir -p "$out/corpus"
name=$(basename "$fuzzer")
# the crafted inputs make the code under test complain on stderr by design: keep it in a log
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
	"$fuzzer" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$out/" "$out/corpus" "$seeds" >"$out/$name.log" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$name.log")
cov=$(grep -o 'cov: [0-9]*' "$out/$name.log" | tail -n 1)
if [ "$rc" != 0 ] || [ -z "$runs" ]; then
	echo "FAIL: $name exited $rc after ${runs:-?} inputs; log $out/$name.log" >&2
	grep -E 'ERROR|SUMMARY|runtime error|==[0-9]+==' "$out/$name.log" | head -n 20 >&2
	for a in "$out"/crash-* "$out"/leak-* "$out"/timeout-* "$out"/oom-*; do
		[ -e "$a" ] && { echo "reproducer $a:" >&2; od -An -tx1 "$a" | head -n 8 >&2; }
	done
	exit 1
fi
echo "$name: $runs inputs in ${secs}s, $cov, $(ls "$out/corpus" | wc -l) corpus entries, no report"
[ "$keep" = 1 ] || rm -rf "$out"
exit 0
