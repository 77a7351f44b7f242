#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Host side of a coverage run: gcov's counts from the guest (OUT/coverage/gcda, coverage/guest.sh)
# and the coverage kernel's build tree → lcov's tracefile, genhtml's pages, and syntwin's two
# headline numbers (syntwin-coverage: the series' hunks, the saved copy's lines).
# usage: report.sh BUILD KDIR OUT PATCH...
#   BUILD the userspace build (coverage/syntwin-coverage), KDIR the coverage kernel's cache directory
#   (gcov-src/, what it keeps of its tree; gcov-profiled, gcov-build-dir, release), OUT the run's
#   results, PATCH the series' patches.
# Writes OUT/coverage/{kernel.info,coverage.txt,coverage.json,html/,lcov.log}; prints the
# headline. Exit 0, or 2 (no counts, no tree: a setup error, named).
set -eu
. "$SYNTWIN_ROOT/vm/lib.sh"
[ $# -ge 3 ] || usage_die "usage: report.sh BUILD KDIR OUT PATCH..."
build=$1 kdir=$2 out=$3
shift 3
cov=$out/coverage
tree=$kdir/gcov-src
[ -f "$kdir/gcov-profiled" ] && [ -f "$kdir/gcov-build-dir" ] && [ -d "$tree" ] ||
	usage_die "coverage: $kdir is not a coverage kernel's build (no gcov-profiled list or gcov-src/);" \
		"remove it and run again to rebuild it"
bdir=$(cat "$kdir/gcov-build-dir") && release=$(cat "$kdir/release") ||
	usage_die "coverage: $kdir lacks its build directory's name or its release"

# lcov wants each object's counts (.gcda, from the guest) beside its notes (.gcno, from the
# build): both go into a scratch directory, as the tree names them.
ws=$(mktemp -d "${TMPDIR:-/tmp}/syntwin-gcov.XXXXXX")
trap 'rm -rf "$ws"' EXIT
while read -r f; do
	o=${f%.c}
	[ -f "$cov/gcda$bdir/$o.gcda" ] ||
		usage_die "coverage: no counts for $f in $cov/gcda (the guest's copy failed?)"
	mkdir -p "$ws/$(dirname "$o")"
	cp "$cov/gcda$bdir/$o.gcda" "$tree/$o.gcno" "$ws/$(dirname "$o")/" ||
		usage_die "coverage: cannot gather $f's counts and notes"
done <"$kdir/gcov-profiled"
# gcov reads each source file by the path its notes hold (the build directory, gone since the
# tree moved to the cache): --base-directory points lcov at the tree that is there.
stage "coverage: lcov --capture ($(grep -c '' "$kdir/gcov-profiled") profiled files)"
(cd "$tree" && lcov --capture --directory "$ws" --base-directory "$tree" \
	--output-file "$cov/kernel.info") >"$cov/lcov.log" 2>&1 ||
	{ tail -n 20 "$cov/lcov.log" >&2; usage_die "coverage: lcov failed (log: $cov/lcov.log)"; }
n=$#
for p in "$@"; do
	set -- "$@" --patch "$p"
done
shift "$n"
"$build/coverage/syntwin-coverage" --info "$cov/kernel.info" --tree "$tree" --root "$bdir" --root "$ws" \
	--names "$SYNTWIN_ROOT/coverage/saved-copy.names" \
	--reasons "$SYNTWIN_ROOT/coverage/unreached.reasons" --profiled "$kdir/gcov-profiled" \
	--release "$release" --out "$cov" "$@"
rm -rf "$cov/html"
genhtml --quiet --prefix "$tree" --prefix "$bdir" --output-directory "$cov/html" \
	--title "syntwin: $release" "$cov/kernel.info" >>"$cov/lcov.log" 2>&1 ||
	{ tail -n 20 "$cov/lcov.log" >&2; usage_die "coverage: genhtml failed (log: $cov/lcov.log)"; }
stage "coverage: report in $cov/coverage.txt, pages in $cov/html/index.html"
