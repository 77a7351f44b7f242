#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A kernel that does not build stops every command with exit 2 and the stage named, and never
# boots a stale or missing bzImage; a kernel QEMU cannot read is a setup error (2). (In the kill
# matrix such a mutant is an ERROR row, never KILLED: host.mutants.)
set -u
. "$(dirname "$0")/lib.sh"
EXPECT=$ROOT/tests/expect.sh
SYNTWIN=$ROOT/syntwin

# A series that does not apply: the reference series plus the test mutant whose removed line is
# not in the tree. Every command stops before anything boots.
mkdir "$tmp/noapply" "$tmp/nocompile"
cp "$ROOT"/kernel-series/6.1/*.patch "$tmp/noapply/"
cp "$ROOT/tests/mutants/does-not-apply.patch" "$tmp/noapply/0099-does-not-apply.patch"
{ cat "$ROOT/kernel-series/6.1/series"; echo 0099-does-not-apply.patch; } >"$tmp/noapply/series"
for cmd in build "run --connections 10 --out $tmp/run" "vm -- true" test bench \
	"mutants --out $tmp/mut-noapply"; do
	# shellcheck disable=SC2086 # the command and its arguments
	check "$EXPECT" --status 2 --stderr "patch 0099-does-not-apply.patch does not apply" \
		--stderr "kernel build (linux-source-6.1 + noapply) failed" --max-seconds 300 \
		-- "$SYNTWIN" --series "$tmp/noapply" $cmd
done
check [ ! -e "$tmp/run/summary.json" ]
check jq -e '.kernels[0].comparator |
	startswith("ERROR: does not build: patch 0099-does-not-apply.patch does not apply")' \
	"$tmp/mut-noapply/matrix.json"
check [ "$(jq -c '[.errors, .ok]' "$tmp/mut-noapply/matrix.json")" = '["reference",false]' ]

# A series that applies but does not compile.
cp "$ROOT"/kernel-series/6.1/*.patch "$tmp/nocompile/"
cp "$ROOT/tests/mutants/does-not-compile.patch" "$tmp/nocompile/0099-does-not-compile.patch"
{ cat "$ROOT/kernel-series/6.1/series"; echo 0099-does-not-compile.patch; } >"$tmp/nocompile/series"
check "$EXPECT" --status 2 --stderr "kernel build failed" \
	--stderr "kernel build (linux-source-6.1 + nocompile) failed (status 2); stopping" \
	-- "$SYNTWIN" --series "$tmp/nocompile" build
check "$EXPECT" --status 2 --stderr "kernel build (linux-source-6.1 + nocompile) failed" \
	-- "$SYNTWIN" --series "$tmp/nocompile" run --connections 10 --out "$tmp/run2"
check [ ! -e "$tmp/run2/summary.json" ]

# A kernel or image QEMU cannot read: syntwin-vm says so with exit 2, a setup error, never a
# guest's failure (124, 125) that a matrix could count as a kill.
BUILD=${SYNTWIN_BUILD:-$ROOT/build}
printf 'not a kernel\n' >"$tmp/bzImage"
printf 'not an archive\n' >"$tmp/initrd"
check "$EXPECT" --status 2 --stderr "QEMU failed to start the guest" --max-seconds 120 \
	-- "$BUILD/syntwin-vm" --accel tcg --timeout 60 --kernel "$tmp/bzImage" --initrd "$tmp/initrd" -- true
check "$EXPECT" --status 2 --stderr "cannot read $tmp/no-such-bzImage" --max-seconds 120 \
	-- "$BUILD/syntwin-vm" --accel tcg --timeout 60 --kernel "$tmp/no-such-bzImage" --initrd "$tmp/initrd" -- true
# (The kill matrix's rows for both, ERROR and never KILLED beside a clean reference, are in
# host.mutants's one matrix: tests/suite_mutants.sh NAME:ERROR=GLOB.)
[ $fail = 0 ] && echo "build_failures: all checks passed"
exit $fail
