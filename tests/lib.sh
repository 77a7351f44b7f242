# SPDX-License-Identifier: GPL-2.0
# Sourced by the host test scripts: ROOT (the repository), a temp dir $tmp removed on exit
# (kept when a check failed), and check CMD..., which records a failure (fail=1) without
# stopping the script.
ROOT=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
fail=0
# a failed test keeps what it ran on (results, logs) for a look; a passed one leaves nothing
trap 'if [ "$fail" = 0 ]; then rm -rf "$tmp"; else echo "kept for inspection: $tmp"; fi' EXIT
check() { if "$@"; then :; else echo "FAIL: $*"; fail=1; fi; }
