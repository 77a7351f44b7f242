#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run a command and assert its exit status, that its stderr contains given texts, and that it
# finished in time. usage: expect.sh --status N [--stderr TEXT]... [--max-seconds S] -- CMD...
set -u
want= max= texts=
while [ $# -gt 0 ]; do
	case $1 in
	--status) want=$2; shift 2 ;;
	--stderr) texts="$texts
$2"; shift 2 ;;
	--max-seconds) max=$2; shift 2 ;;
	--) shift; break ;;
	*) echo "expect.sh: bad argument $1" >&2; exit 2 ;;
	esac
done
err=$(mktemp)
trap 'rm -f "$err"' EXIT
start=$(date +%s)
"$@" 2>"$err"
rc=$?
took=$(($(date +%s) - start))
cat "$err" >&2
fail=0
[ "$rc" = "$want" ] || { echo "FAIL: exit status $rc, expected $want" >&2; fail=1; }
[ -z "$max" ] || [ "$took" -le "$max" ] || { echo "FAIL: took ${took}s, expected <= ${max}s" >&2; fail=1; }
printf '%s\n' "$texts" | while IFS= read -r t; do
	[ -z "$t" ] || grep -qF -- "$t" "$err" || { echo "FAIL: stderr lacks '$t'" >&2; exit 1; }
done || fail=1
[ $fail = 0 ] && echo "ok: exit $rc in ${took}s"
exit $fail
