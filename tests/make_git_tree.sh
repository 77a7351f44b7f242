#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A reviewer's git tree made from Debian's source, for the --tree tests (tests/tree.sh) and the
# workflow's `tree` job: linux-source-VER as one commit ("base"), the reference series on top as
# commits made by `git am` from an mbox (`git format-patch`'s form, as a reviewer receives a
# series), then one mutant as a commit ("mutant"). Kept in the cache: making it takes minutes.
# usage: make_git_tree.sh VER MUTANT DIR
#   prints three lines: the base commit, the series' last commit, the mutant commit
# Also writes DIR.mbox (the series, for --patches). Exit 2 on a setup error.
set -eu
SYNTWIN_ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$SYNTWIN_ROOT/vm/lib.sh"
[ $# = 3 ] || usage_die "usage: make_git_tree.sh VER MUTANT DIR"
ver=$1 mutant=$2 dir=$3
tarball=$(kernel_tarball "$ver")
[ -f "$tarball" ] || usage_die "no $tarball (apt-get install $(kernel_pkg "$ver"))"
mpatch=$SYNTWIN_ROOT/kernel-series/mutants/$ver/$mutant.patch
[ -f "$mpatch" ] || mpatch=$SYNTWIN_ROOT/kernel-series/mutants/$mutant.patch
[ -f "$mpatch" ] || usage_die "no mutant $mutant"
g() { git -C "$dir" -c user.name="syntwin test" -c user.email="syntwin@example.org" \
	-c commit.gpgsign=false "$@"; }
if [ ! -f "$dir/.syntwin-tree-done" ]; then
	rm -rf "$dir" "$dir.mbox"
	mkdir -p "$dir"
	stage "test tree: extracting $tarball into $dir"
	tar -xJf "$tarball" -C "$dir" --strip-components=1
	# the commits' dates are fixed, so the same inputs make the same commits everywhere
	export GIT_AUTHOR_DATE="2026-12-01T00:00:00Z" GIT_COMMITTER_DATE="2026-12-01T00:00:00Z"
	g init -q -b main
	# Debian's packaging ignores everything at the top level (its .gitignore's "/*"): a
	# reviewer's tree does not, so those two lines go (the tree is then upstream's layout)
	sed -i -e '/^\/\*$/d' -e '/^!\/debian\/$/d' "$dir/.gitignore"
	stage "test tree: git add (about 80,000 files)"
	g add -A
	g commit -q -m "linux-source-$ver $(kernel_pkg_version "$ver")"
	g tag base
	# the series as a reviewer gets it: an mbox, applied with git am
	for p in $(series_patches "$(reference_series "$ver")"); do cat "$p"; done >"$dir.mbox"
	g am -q "$dir.mbox"
	g tag series
	patch -d "$dir" -p1 --batch --forward --no-backup-if-mismatch -s <"$mpatch"
	g add -A
	g commit -q -m "mutant: $mutant" -m "$(sed -n '/^Subject:/,/^---/p' "$mpatch" | sed '1d;$d')"
	g tag mutant
	touch "$dir/.syntwin-tree-done"
	printf '.syntwin-tree-done\n' >>"$dir/.git/info/exclude"
fi
g rev-parse base series mutant
