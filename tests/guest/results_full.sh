#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest test: the results directory is read-only, then full (a 96 KiB tmpfs). Each time the run
# stops with exit 2 and names the problem, and what is on disk is never passed off as complete:
# connections.jsonl holds whole records only, and the full disk still gets a summary.json (the
# server holds room for it) that says partial and counts the records exactly.
set -u
fail=0
check() { if "$@"; then :; else echo "FAIL: $*"; fail=1; fi; }
run() { # DIR CONNECTIONS: the guest side of `syntwin run`, writing into DIR (the host would
	# have copied the series' declaration there: here a series that declares nothing)
	SYNTWIN_OUT=$1 SYNTWIN_PROVIDES=/dev/null sh /src/compare/run-guest.sh "$2" 1 test 65536 plain 1 0 - \
		>/tmp/run.out 2>&1
	rc=$?
	tail -n 5 /tmp/run.out
}

mkdir -p /tmp/ro /tmp/full
mount -t tmpfs -o ro,size=96k tmpfs /tmp/ro
run /tmp/ro 100
check [ "$rc" = 2 ]
# the first file written is the plan: the run stops there, before anything runs
check grep -q "cannot write /tmp/ro/.plan.json.tmp: Read-only file system" /tmp/run.out
check [ ! -e /tmp/ro/summary.json ]
check [ ! -e /tmp/ro/plan.json ]

mount -t tmpfs -o size=96k tmpfs /tmp/full
run /tmp/full 3000
check [ "$rc" = 2 ]
check grep -q "cannot write results in /tmp/full: No space left on device" /tmp/run.out
j=/tmp/full/connections.jsonl
check [ -s $j ]
# whole records only: the file ends in a newline and every line is one JSON object
check [ "$(tail -c 1 $j | od -An -c | tr -d ' ')" = '\n' ]
check [ "$(jq -nR '[inputs | fromjson? | objects] | length' $j)" = "$(grep -c '' $j)" ]
# the server held 16 KiB back for it: the final summary is always there, partial, and counts
# exactly the records on disk
check [ -e /tmp/full/summary.json ]
check [ "$(jq -c '[.partial, .records_written]' /tmp/full/summary.json)" = "[true,$(grep -c '' $j)]" ]
check [ ! -e /tmp/full/.syntwin-reserve ]
check [ -z "$(ls -A /tmp/full | grep '^\.summary')" ] # no temp file left behind
echo "records kept whole: $(grep -c '' $j)"
[ $fail = 0 ] && echo "results_full: all checks passed"
exit $fail
