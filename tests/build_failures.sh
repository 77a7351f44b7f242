#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A kernel that does not build stops every command with exit 2 and the stage named, and never
# boots a stale or missing bzImage; in the kill matrix a mutant that does not apply or does not
# compile is an ERROR row ("does not build"), never KILLED, and the matrix exits nonzero.
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

# The kill matrix with both as mutants: the reference is checked and clean, each test mutant
# is an ERROR row, and the matrix fails.
"$SYNTWIN" mutants --connections 200 --out "$tmp/m" "$ROOT/tests/mutants/does-not-compile.patch" \
	"$ROOT/tests/mutants/does-not-apply.patch" >"$tmp/m.log" 2>&1
rc=$?
cat "$tmp/m/matrix.txt"
check [ "$rc" = 1 ]
check grep -Eq '^reference +[0-9a-z]+ +pass +pass +pass' "$tmp/m/matrix.txt"
check grep -Eq '^does-not-compile +[0-9]+s +ERROR: does not build: ' "$tmp/m/matrix.txt"
check grep -Eq '^does-not-apply +[0-9]+s +ERROR: does not build: ' "$tmp/m/matrix.txt"
cell() { jq -r --arg k "$1" '.kernels[] | select(.kernel == $k) | .comparator' "$tmp/m/matrix.json"; }
c=$(cell does-not-compile)
check sh -c 'printf "%s\n" "$1" |
	grep -Eqx "ERROR: does not build: net/ipv4/tcp_input.c:[0-9]+:[0-9]+: error.*"' _ "$c"
check sh -c 'case $1 in "ERROR: does not build: patch does-not-apply.patch does not apply"*) ;; *) exit 1 ;; esac' _ \
	"$(cell does-not-apply)"
check sh -c "! grep -q KILLED '$tmp/m/matrix.txt'"
check jq -e '(.errors | test("does-not-compile.patch .*does-not-apply.patch")) and .ok == false and
	.survivors == "" and (.kernels | length) == 3' "$tmp/m/matrix.json"
check grep -q 'ERROR (not built or not checked, so not killed)' "$tmp/m.log"
[ $fail = 0 ] && echo "build_failures: all checks passed"
exit $fail
