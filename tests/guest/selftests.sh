#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest: every C selftest the kernel series adds (built by vm/build-kernel.sh, listed in
# selftests.list). Exit 0 if all pass, 1 if one fails, 4 if the series has none (kselftest's
# KSFT_SKIP, so runners that speak kselftest read a skip, not a failure).
set -u
list=/syntwin/bin/selftests.list
if [ ! -s "$list" ]; then
	echo "selftests: this kernel's series adds no selftest (skip)"
	exit 4
fi
fail=0
while read -r t; do
	echo "selftests: running $t"
	"$t" || { echo "selftests: $t FAILED"; fail=1; }
done <"$list"
exit $fail
