#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The kernel matrix (`syntwin matrix`): the kill matrix (vm/mutants.sh: the reference series'
# comparator run, conformance suite and selftest, then every mutant) on each supported kernel
# (kernel-series/KERNELS) with its own reference series, and one table of the results:
#
#   kernel  comparator  conformance  selftest  mutants killed
#
# usage: matrix.sh [--kernels V,V...] [--connections N] [--out DIR] [NAME...]
# Each kernel's matrix is kept in DIR/<kernel>/ (matrix.txt, matrix.json, logs); the table in
# DIR/matrix.txt and DIR/matrix.json. Exit 0 only if every kernel's matrix is clean (reference
# passes, every mutant killed, no ERROR), 2 on a usage error or a reference that could not run.
set -eu
. "$(dirname "$0")/lib.sh"
kernels=$(supported_kernels | tr '\n' ' ')
n=2000 out=
while [ $# -gt 0 ]; do
	case $1 in
	--kernels) [ $# -ge 2 ] || usage_die "matrix: --kernels needs a list (e.g. 6.1,6.12)"
		kernels=$(printf '%s' "$2" | tr ',' ' '); shift 2 ;;
	--connections) [ $# -ge 2 ] || usage_die "matrix: --connections needs a value"
		num_arg "matrix: --connections" "$2" 1 100000000; n=$2; shift 2 ;;
	--out) [ $# -ge 2 ] || usage_die "matrix: --out needs a directory"; out=$2; shift 2 ;;
	-*) usage_die "matrix: unknown option '$1'" ;;
	*) break ;;
	esac
done
[ -n "$kernels" ] || usage_die "matrix: --kernels: no kernel named"
for k in $kernels; do
	supported_kernels | grep -qxF "$k" ||
		usage_die "matrix: kernel '$k' is not supported (kernel-series/KERNELS: $(supported_kernels | tr '\n' ' '))"
done
[ -n "$out" ] || out=$SYNTWIN_ROOT/results/matrix/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out" || usage_die "matrix: cannot create $out"
out=$(cd "$out" && pwd)

status=0
for k in $kernels; do
	stage "matrix: kernel $k (kill matrix in $out/$k)"
	rc=0
	SYNTWIN_KERNEL=$k SYNTWIN_SERIES=$(reference_series "$k") \
		"$SYNTWIN_ROOT/vm/mutants.sh" --connections "$n" --out "$out/$k" "$@" || rc=$?
	[ "$rc" = 0 ] || { [ "$status" = 2 ] || status=$rc; }
done

# One row per kernel from its matrix.json: the reference's three checks, and the mutants killed.
{
	printf '%-8s %-12s %-12s %-12s %s\n' kernel comparator conformance selftest "mutants killed"
	for k in $kernels; do
		j=$out/$k/matrix.json
		if [ ! -f "$j" ]; then
			printf '%-8s %s\n' "$k" "no matrix (see $out/$k)"
			continue
		fi
		jq -r --arg k "$k" '
			(.kernels[0]) as $r |
			[.kernels[1:][] | select([.comparator, .conformance, .selftest] | any(startswith("KILLED")))] as $killed |
			[$k, ($r.comparator | split(":")[0]), ($r.conformance | split(":")[0]),
			 ($r.selftest | split(":")[0]),
			 "\($killed | length)/\(.kernels | length - 1)" +
			 (if .survivors != "" then " (survived: \(.survivors))" else "" end) +
			 (if .errors != "" then " (ERROR: \(.errors))" else "" end)] |
			"\(.[0] | . + " " * (8 - length)) \(.[1] | . + " " * (12 - length)) \(.[2] | . + " " * (12 - length)) \(.[3] | . + " " * (12 - length)) \(.[4])"' "$j"
	done
} >"$out/matrix.txt"
cat "$out/matrix.txt"
{
	printf '{\n  "connections": %s,\n  "kernels": [' "$n"
	sep=
	for k in $kernels; do
		if [ -f "$out/$k/matrix.json" ]; then
			printf '%s\n    {"kernel": "%s", "matrix": %s}' "$sep" "$k" "$(jq -c . "$out/$k/matrix.json")"
		else
			printf '%s\n    {"kernel": "%s", "matrix": null}' "$sep" "$k"
		fi
		sep=,
	done
	printf '\n  ],\n  "ok": %s\n}\n' "$([ "$status" = 0 ] && echo true || echo false)"
} >"$out/matrix.json"
jq -e . "$out/matrix.json" >/dev/null || die "matrix: $out/matrix.json is not valid JSON"
[ "$status" = 0 ] && stage "matrix: every kernel clean, every mutant killed; $out/matrix.txt"
[ "$status" = 0 ] || say "matrix: not clean (status $status); per-kernel logs in $out/<kernel>/"
exit "$status"
