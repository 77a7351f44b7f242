#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of a coverage kernel's command (`syntwin --coverage run|vm`): the command, then
# with --drive the conformance suite and the series' selftests (the roads of the saved copy's
# life that the run's generators do not take: docs/saved-copy-life.md's first table), then
# gcov's counts copied out of debugfs into
# OUT/coverage/gcda/ (each file under the path the kernel names it by: its build directory).
# The host turns them into the report (coverage/report.sh).
# usage: guest.sh [--drive] OUT -- CMD [ARGS...]
# Exit: the command's status if it failed, else 1 if the conformance suite or a selftest failed,
# else 2 if the counts could not be copied (a setup error: no report can be made).
set -u
drive=0
[ "${1:-}" != --drive ] || { drive=1; shift; }
[ $# -ge 3 ] && [ "$2" = -- ] || { echo "usage: guest.sh [--drive] OUT -- CMD [ARGS...]" >&2; exit 2; }
out=$1
shift 2
gcov=/sys/kernel/debug/gcov
[ -d "$gcov" ] || { echo "syntwin: coverage: no $gcov (not a gcov kernel, or no debugfs): a setup error" >&2; exit 2; }
cov=$out/coverage
rm -rf "$cov/gcda"
mkdir -p "$cov/gcda" || exit 2
rc=0
"$@" || rc=$?
if [ "$drive" = 1 ]; then
	# with the copy's allocation failed on purpose (a road only this kernel opens), and the
	# series' declaration (the run's copy of it) for the counters that failure moves
	[ -f "$out/provides" ] || { echo "syntwin: coverage: no $out/provides: the suite needs the series' declaration (a setup error)" >&2; exit 2; }
	set -- --fault-injection --provides "$out/provides"
	if ! sh /src/tests/guest/conformance.sh "$@" >"$cov/conformance.log" 2>&1; then
		echo "syntwin: coverage: the conformance suite FAILED on this kernel (coverage/conformance.log)" >&2
		[ "$rc" != 0 ] || rc=1
	fi
	# the selftests the series declares must run without a skip (4: it adds and declares none)
	names=
	if [ -f "$out/provides" ] && ! names=$(syntwin-plan --provides "$out/provides" --list selftests); then
		echo "syntwin: coverage: $out/provides is not a valid declaration (a setup error)" >&2
		exit 2
	fi
	src=0
	# shellcheck disable=SC2086 # selftest names: letters, digits, '_' and '-' (provides.c)
	sh /src/tests/guest/selftests.sh $names >"$cov/selftests.log" 2>&1 || src=$?
	if [ "$src" != 0 ] && [ "$src" != 4 ]; then
		echo "syntwin: coverage: a selftest of the series FAILED (coverage/selftests.log)" >&2
		[ "$rc" != 0 ] || rc=1
	fi
fi
# The counts as they are now (gcov's debugfs files are made on open); paths are plain (syntwin
# refuses a cache path with spaces), one per line.
n=0
for f in $(find "$gcov" -name '*.gcda'); do
	d=$cov/gcda${f#"$gcov"}
	if ! mkdir -p "${d%/*}" || ! cat "$f" >"$d"; then
		echo "syntwin: coverage: could not copy $f (a setup error)" >&2
		[ "$rc" != 0 ] || rc=2
		exit "$rc"
	fi
	n=$((n + 1))
done
if [ "$n" = 0 ]; then
	echo "syntwin: coverage: no counts under $gcov: no file was profiled" >&2
	[ "$rc" != 0 ] || rc=2
fi
echo "syntwin: coverage: $n files' counts copied to coverage/gcda" >&2
exit "$rc"
