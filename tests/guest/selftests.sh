#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest: every C selftest the kernel series adds (built by vm/build-kernel.sh, listed in
# selftests.list). usage: selftests.sh [DECLARED...]
# DECLARED: the selftests the series declares (its provides file, `syntwin selftest`): each
# must be built and must pass without a skip, since the series that declares it brings
# everything it tests. Exit 0 if all pass, 1 if one fails (or a declared one is missing or
# skipped), 4 if the series has none and declares none (kselftest's KSFT_SKIP, so runners that
# speak kselftest read a skip, not a failure).
set -u
list=/syntwin/bin/selftests.list
fail=0
for d in "$@"; do
	[ -s "$list" ] && grep -qx "$d" "$list" && continue
	echo "selftests: FAILED: the series declares selftest $d, and this kernel's build has none of that name"
	fail=1
done
if [ ! -s "$list" ]; then
	[ "$fail" = 1 ] && exit 1
	echo "selftests: this kernel's series adds no selftest (skip)"
	exit 4
fi
while read -r t; do
	echo "selftests: running $t"
	out=/tmp/selftest-$t.tap
	rc=0
	"$t" >"$out" 2>&1 || rc=$?
	cat "$out"
	if [ "$rc" != 0 ]; then
		echo "selftests: $t FAILED (status $rc)"
		fail=1
		continue
	fi
	for d in "$@"; do
		[ "$d" = "$t" ] || continue
		# a declared selftest tests what its series brings: a skip is a check not made
		if grep -q '# SKIP' "$out"; then
			echo "selftests: $t FAILED: declared by the series, yet it skipped: $(grep -m1 '# SKIP' "$out")"
			fail=1
		fi
	done
done <"$list"
exit $fail
