#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `syntwin --tree DIR bisect GOOD BAD [--out DIR] [run options]`: the first commit between GOOD
# and BAD whose seeded run fails, by `git bisect run` in a scratch worktree of the checkout (DIR
# is never written; its uncommitted change is not part of any commit, so not of the bisect).
# Each step is one incremental out-of-tree build of that commit (vm/build-tree.sh: the scratch
# worktree's object directory is reused) and one `syntwin run` with the same seed, its results
# kept per commit in OUT/steps/COMMIT/. GOOD must pass and BAD fail first (else there is nothing
# to bisect). A commit that does not build is skipped (git bisect's 125); a setup error stops
# the bisect (exit 2).
# Writes OUT/bisect.log (git bisect log), OUT/steps.txt (commit, verdict, subject, a line each)
# and OUT/report.txt (the first bad commit, its verdicts and first unexplained record decoded).
# usage: bisect.sh BUILD GOOD BAD [--out DIR] [run options]
# Exit 0 with the first bad commit named; 2 on a setup error or endpoints that do not hold.
set -eu
. "$(dirname "$0")/lib.sh"
[ $# -ge 3 ] || usage_die "usage: syntwin --tree DIR bisect GOOD BAD [--out DIR] [run options]"
build=$1 good=$2 bad=$3
shift 3
tree=${SYNTWIN_TREE:?bisect needs --tree DIR}
[ -z "${SYNTWIN_PATCHES:-}" ] || usage_die "bisect: --patches does not go with bisect (bisect the commits)"
out=
if [ "${1:-}" = --out ]; then
	[ $# -ge 2 ] || usage_die "bisect: --out needs a directory"
	out=$2
	shift 2
fi
for a in "$@"; do
	case $a in --out | --shard | --rerun | --replay) usage_die "bisect: run's $a does not go with bisect (--out comes first)" ;; esac
done
gc=$(git -C "$tree" rev-parse --verify -q "$good^{commit}") || usage_die "bisect: GOOD '$good' is no commit of $tree"
bc=$(git -C "$tree" rev-parse --verify -q "$bad^{commit}") || usage_die "bisect: BAD '$bad' is no commit of $tree"
git -C "$tree" merge-base --is-ancestor "$gc" "$bc" || usage_die "bisect: GOOD $good is not an ancestor of BAD $bad"
[ -n "$out" ] || out=$SYNTWIN_ROOT/results/bisect/$(date +%Y%m%d-%H%M%S)
results_dir_ok "$out" || usage_die "bisect: --out $out is neither new, empty, nor an earlier syntwin results directory"
mkdir -p "$out/steps" || usage_die "bisect: cannot create $out"
out=$(cd "$out" && pwd)
mark_results_dir "$out"
plain_path "bisect: --out" "$out"
# an earlier bisect's (or run's) files are removed, never appended to or written through
rm -f "$out/steps.txt" "$out/bisect.log" "$out/bisect-run.log" "$out/report.txt" ||
	usage_die "bisect: cannot clear $out"

# the checkout's scratch worktree (the one --patches and mutants build in: its object directory
# stays incremental from one to the other), held for the whole bisect
wt=$SYNTWIN_CACHE/tree-src/$(printf '%s\n' "$tree" | sha256sum | cut -c1-16)
mkdir -p "$SYNTWIN_CACHE/tree-src" || usage_die "bisect: cannot create $SYNTWIN_CACHE/tree-src"
exec 7>"$wt.lock"
flock -n 7 || usage_die "bisect: another bisect of $tree is running (lock $wt.lock)"
# a worktree of this checkout, or made again (DIR cloned anew at its path, a deleted one)
if [ "$(git -C "$wt" rev-parse --path-format=absolute --git-common-dir 2>/dev/null)" != \
	"$(git -C "$tree" rev-parse --path-format=absolute --git-common-dir)" ]; then
	rm -rf "$wt"
	git -C "$tree" worktree add -f -q --detach "$wt" "$bc" || usage_die "bisect: cannot make the worktree $wt"
fi
git -C "$wt" bisect reset -q >/dev/null 2>&1 || :
git -C "$wt" reset -q --hard && git -C "$wt" clean -q -fdx || usage_die "bisect: cannot clean $wt"

export SYNTWIN_ROOT
# endpoint COMMIT STATUS WHAT [run options]: COMMIT's step (checked out in the scratch worktree)
# must end with STATUS (0 passes, 1 fails), else there is nothing to bisect: "WHAT (status ...)"
endpoint() {
	c=$1 want=$2 what=$3 st=0
	shift 3
	git -C "$wt" checkout -q --detach "$c" || usage_die "bisect: cannot check out $c in $wt"
	"$SYNTWIN_ROOT/vm/bisect-step.sh" "$wt" "$out" "$@" || st=$?
	[ "$st" = "$want" ] || usage_die "bisect: $what (status $st; $out/steps.txt): nothing to bisect"
}
stage "bisect: checking GOOD $good and BAD $bad"
endpoint "$gc" 0 "GOOD $good does not pass its run" "$@"
endpoint "$bc" 1 "BAD $bad does not fail its run" "$@"
stage "bisect: git bisect run ($(git -C "$tree" rev-list --count "$gc..$bc") commits from GOOD to BAD)"
rc=0
git -C "$wt" bisect start "$bc" "$gc" >"$out/bisect-run.log" 2>&1 || rc=$?
# (BAD's parent is GOOD: git bisect start names the first bad commit itself)
[ "$rc" != 0 ] || grep -q 'is the first bad commit' "$out/bisect-run.log" ||
	git -C "$wt" bisect run "$SYNTWIN_ROOT/vm/bisect-step.sh" "$wt" "$out" "$@" >>"$out/bisect-run.log" 2>&1 ||
	rc=$?
git -C "$wt" bisect log >"$out/bisect.log" 2>/dev/null || :
first=$(git -C "$wt" rev-parse -q --verify refs/bisect/bad 2>/dev/null || :)
git -C "$wt" bisect reset -q >/dev/null 2>&1 || :
if [ "$rc" != 0 ] || ! grep -q 'is the first bad commit' "$out/bisect-run.log"; then
	tail -n 15 "$out/bisect-run.log" >&2
	usage_die "bisect: git bisect run stopped without a first bad commit (status $rc; $out/bisect-run.log)"
fi
short=$(git -C "$tree" rev-parse --short=12 "$first")
subject=$(git -C "$tree" log -1 --format=%s "$first")
stage "bisect: first bad commit $short (\"$subject\")"
cat "$out/steps.txt" >&2
sd=$out/steps/$short
"$build/record/syntwin-report" \
	--kernel "$(jq -r .kernel "$sd/summary.json") (git tree $tree at $(git -C "$tree" describe --always --tags "$first"))" \
	--run "$sd" --bisect "$short (\"$subject\"); steps: $(grep -c '' "$out/steps.txt") commits built and run, $out/steps.txt" \
	>"$out/report.txt" || usage_die "bisect: no report.txt could be written"
stage "bisect: report to paste: $out/report.txt"
