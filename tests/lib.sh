# SPDX-License-Identifier: GPL-2.0
# Sourced by the host test scripts: ROOT (the repository), a temp dir $tmp removed on exit,
# and check CMD..., which records a failure (fail=1) without stopping the script.
ROOT=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { if "$@"; then :; else echo "FAIL: $*"; fail=1; fi; }
