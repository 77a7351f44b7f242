#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# One step of `syntwin bisect` (vm/bisect.sh runs it on the endpoints; git bisect run on the
# commits between): the scratch worktree's HEAD built out of tree (incremental) and run with
# the bisect's run options, its results in OUT/steps/COMMIT/ and a line in OUT/steps.txt.
# usage: bisect-step.sh WORKTREE OUT [run options]
# Exit (git bisect run's contract): 0 the run passed, 1 it failed, 125 the commit does not build
# (skipped), 255 a setup error (the bisect stops).
set -u
. "$(dirname "$0")/lib.sh"
wt=$1 out=$2
shift 2
c=$(git -C "$wt" rev-parse --short=12 HEAD) || exit 255
subject=$(git -C "$wt" log -1 --format=%s HEAD) || exit 255
d=$out/steps/$c
rm -rf "$d" "$d.build.log" "$d.log"
tree_opts="--tree $wt${SYNTWIN_PROVIDES:+ --provides $SYNTWIN_PROVIDES}"
rc=0
# shellcheck disable=SC2086 # plain paths (checked by syntwin)
"$SYNTWIN_ROOT/syntwin" $tree_opts build >"$d.build.log" 2>&1 || rc=$?
if [ "$rc" != 0 ]; then
	# vm/build-tree.sh marks every failure of the commit's own build (configure, compile, a
	# patch, a selftest); anything else (a full disk, a lock, a missing tool) is no skip
	if grep -q '(this tree does not build)' "$d.build.log"; then
		verdict="skipped: does not build ($d.build.log)" code=125
	else
		verdict="setup error in the build ($d.build.log)" code=255
	fi
else
	# shellcheck disable=SC2086
	"$SYNTWIN_ROOT/syntwin" $tree_opts run --out "$d" "$@" >"$d.log" 2>&1 || rc=$?
	case $rc in
	0) verdict=good code=0 ;;
	1) verdict="bad: $(jq -r '"\(.unexplained) unexplained, \(.expectations_failed) expectation(s) failed\(if .partial then ", partial" else "" end)"' \
		"$d/summary.json" 2>/dev/null || echo 'the run failed')" code=1 ;;
	*) verdict="setup error in the run (status $rc; $d.log)" code=255 ;;
	esac
fi
printf '%s %s; %s\n' "$c" "$verdict" "$subject" >>"$out/steps.txt"
stage "bisect: $c $verdict ($subject)"
exit "$code"
