#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A reviewer's path, on a real git tree (tests/make_git_tree.sh: Debian's 6.12 source as one
# commit, the reference series applied with git am from an mbox, one mutant commit on top):
# - `--tree` on the series commit builds out of tree (DIR untouched: `git status` stays clean)
#   and its run passes, with report.txt ending in a Tested-by: line;
# - a tree with in-tree build files is refused with the kernel's own reason;
# - `--patches` of the mbox on the base commit is the same kernel: the same cache key, so no
#   build at all;
# - `bisect base mutant` names the mutant commit, its report.txt too;
# - `mutants` on the tree kills the mutant from kernel-series/mutants/.
# Not in the suite (a cold out-of-tree build and a bisect: about 30 minutes here); the
# workflow's `tree` job runs it. usage: tree.sh [WORK_DIR] (default: a temp dir)
set -u
. "$(dirname "$0")/lib.sh"
[ $# -le 1 ] || { echo "usage: tree.sh [WORK_DIR]" >&2; exit 2; }
w=${1:-$tmp}
mkdir -p "$w"
cache=${SYNTWIN_CACHE:-${HOME:-/root}/.cache/syntwin}
t=$cache/trees/linux-6.12
mutant=leak-reset-request
commits=$("$ROOT/tests/make_git_tree.sh" 6.12 "$mutant" "$t") || { echo "FAIL: no test tree"; exit 1; }
base=$(echo "$commits" | sed -n 1p) series=$(echo "$commits" | sed -n 2p) mut=$(echo "$commits" | sed -n 3p)
decl=$ROOT/kernel-series/6.12/provides
g() { git -C "$t" "$@"; }
g checkout -q --detach "$series"
# what DIR holds, every file git knows of and every other (ignored ones too), before anything
g status --porcelain --ignored --untracked-files=all >"$w/status.before"

# 1. the series commit, as it stands: built out of tree, run, reported; DIR left as it was
"$ROOT/syntwin" --tree "$t" --provides "$decl" run --connections 2000 --out "$w/series" >"$w/series.log" 2>&1
check [ $? = 0 ]
key=$("$ROOT/vm/build-tree.sh" --tree "$t" --provides "$decl" --key-only)
# built out of tree (make's own words in the kernel's build log), DIR as it was
check grep -q "Entering directory '$cache/tree-obj/" "$cache/kernel/tree-$key/build.log"
g status --porcelain --ignored --untracked-files=all >"$w/status.after"
check cmp "$w/status.before" "$w/status.after"
# the report, its lines joined again (it is wrapped at 72 columns)
tr -s '\n ' '  ' <"$w/series/report.txt" >"$w/report.flat"
check grep -q "Kernel: 6.12.[0-9]*-syntwin (git tree $t at series, commit $(g rev-parse --short=12 HEAD); tree-$key)" "$w/report.flat"
check [ "$(tail -n 1 "$w/series/report.txt" | cut -c1-11)" = "Tested-by: " ]
check [ "$(head -n 1 "$w/series/verdicts.ktap")" = "KTAP version 1" ]

# 2. in-tree build files: Kbuild refuses O=, and so does syntwin, with its words
: >"$t/.config"
"$ROOT/syntwin" --tree "$t" build >"$w/unclean.log" 2>&1
check [ $? = 2 ]
check grep -q "source tree is not clean" "$w/unclean.log"
check grep -q "is not clean for an out-of-tree build (O=).*mrproper" "$w/unclean.log"
rm -f "$t/.config"

# 3. the same series from the mbox on the base commit: the same key, the kernel already built
g checkout -q --detach "$base"
check [ "$("$ROOT/vm/build-tree.sh" --tree "$t" --patches "$t.mbox" --provides "$decl" --key-only)" = "$key" ]
"$ROOT/syntwin" --tree "$t" --patches "$t.mbox" --provides "$decl" build >"$w/patches.log" 2>&1
check [ $? = 0 ]
check grep -q "($key): cached in $cache/kernel/tree-$key" "$w/patches.log"
# what this build applied, from the mbox: each patch's subject, as report.txt names them
check [ "$(grep -vc '^  ' "$cache/kernel/tree-$key/applied.txt")" = 3 ]
check grep -qx 'tcp: add SNMP counters for saved SYN headers' "$cache/kernel/tree-$key/applied.txt"

# 4. bisect from the stock base to the mutant (the stock API declared: every commit before the
#    mutant passes) names the mutant commit
"$ROOT/syntwin" --tree "$t" bisect "$base" "$mut" --out "$w/bisect" --connections 2000 >"$w/bisect.log" 2>&1
check [ $? = 0 ]
short=$(g rev-parse --short=12 "$mut")
check grep -q "bisect: first bad commit $short (\"mutant: $mutant\")" "$w/bisect.log"
check grep -q "^First bad:  $short (\"mutant: $mutant\")" "$w/bisect/report.txt"
# the endpoints checked first (base good, the mutant bad), then git's midpoints over the three
# series commits: the second and the third, both good (the history fixes the steps exactly)
check [ "$(grep -c ' good; ' "$w/bisect/steps.txt")" = 3 ]
check [ "$(grep -c ' bad: ' "$w/bisect/steps.txt")" = 1 ]
check grep -q "^$short bad: " "$w/bisect/steps.txt"
cat "$w/bisect/steps.txt"

# 5. the kill matrix on the tree: the reference (the series commit) passes, the mutant is killed
g checkout -q --detach "$series"
"$ROOT/syntwin" --tree "$t" --provides "$decl" mutants --connections 2000 --out "$w/mutants" "$mutant" \
	>"$w/mutants.log" 2>&1
check [ $? = 0 ]
check grep -q "^$mutant .*KILLED" "$w/mutants/matrix.txt"
g checkout -q --detach "$mut"
exit "$fail"
