#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build (or reuse) the guest bzImage from a reviewer's kernel checkout (`syntwin --tree DIR`):
# DIR as it stands (its HEAD and any uncommitted change), built out of tree with the config
# fragment: make -C SRC O=OBJ. DIR itself is never written. With --patches (an mbox or a
# directory of patches, applied with `git am` the way a reviewer applies a series from the
# list) or --extra (a mutant), the source is a scratch worktree of DIR in the cache, at DIR's
# HEAD with DIR's uncommitted change, the patches applied there.
#
# usage: build-tree.sh --tree DIR [--patches MBOX|DIR] [--extra PATCH]... [--config FRAG]
#                      [--debug] [--provides FILE] [--key-only]
# Prints the kernel cache directory (bzImage, config, release, key, describe, applied.txt) as
# the last stdout line; --key-only prints the cache key and builds nothing.
#
# The key is the content built, never a commit id: the git tree object of HEAD with DIR's
# uncommitted change to tracked files and the --patches applied (made in a scratch index: the
# series commits of a tree and the same series applied from an mbox on its base are one key),
# a hash of the untracked files git does not ignore, the fragment, the --extra patches.
# The object directory (O=) is one per source path and fragment, kept in the cache
# (SYNTWIN_KEEP_TREES of them), so the next build of the same checkout is incremental.
set -eu
DIE_STATUS=2
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cache.sh"

tree= patches= extras= frag=$SYNTWIN_ROOT/kernel-series/qemu.config debug= provides= keyonly=
while [ $# -gt 0 ]; do
	case $1 in
	--tree) [ $# -ge 2 ] || usage_die "--tree needs a directory"; tree=$2; shift 2 ;;
	--patches) [ $# -ge 2 ] || usage_die "--patches needs an mbox or a directory"; patches=$2; shift 2 ;;
	--extra) [ $# -ge 2 ] && [ -f "$2" ] || usage_die "--extra needs a patch file"
		extras="$extras $(cd "$(dirname "$2")" && pwd)/$(basename "$2")"; shift 2 ;;
	--config) [ $# -ge 2 ] && [ -f "$2" ] || usage_die "--config needs a file"; frag=$2; shift 2 ;;
	--debug) debug=$SYNTWIN_ROOT/kernel-series/debug.config; shift ;;
	--provides) [ $# -ge 2 ] || usage_die "--provides needs a file"; provides=$2; shift 2 ;;
	--key-only) keyonly=1; shift ;;
	*) usage_die "build-tree: unknown argument '$1'" ;;
	esac
done
cache_bounds
[ -n "$tree" ] || usage_die "build-tree: --tree DIR is required"
[ -d "$tree" ] || usage_die "--tree $tree: no such directory"
tree=$(cd "$tree" && pwd)
top=$(git -C "$tree" rev-parse --show-toplevel 2>/dev/null) ||
	usage_die "--tree $tree: not a git checkout (git rev-parse failed); syntwin builds a kernel tree from git"
[ "$top" = "$tree" ] || usage_die "--tree $tree: give the checkout's top directory ($top)"
[ -f "$tree/Makefile" ] && [ -f "$tree/net/ipv4/tcp_input.c" ] ||
	usage_die "--tree $tree: not a Linux kernel tree (no Makefile or net/ipv4/tcp_input.c)"
head=$(git -C "$tree" rev-parse --verify -q 'HEAD^{commit}') ||
	usage_die "--tree $tree: no commit checked out (HEAD)"
if [ -n "$patches" ]; then
	[ -e "$patches" ] || usage_die "--patches $patches: no such file or directory"
	patches=$(cd "$(dirname "$patches")" && pwd)/$(basename "$patches")
fi
[ -z "$provides" ] || [ -r "$provides" ] || usage_die "--provides $provides: no such file"

# The tree's version (its Makefile's first lines; make would write into DIR) picks the
# version's own fragment lines, as for Debian's trees.
mm=$(sed -n '1,5{s/^VERSION = \([0-9]*\)$/\1/p;s/^PATCHLEVEL = \([0-9]*\)$/.\1/p}' "$tree/Makefile" | tr -d '\n')
case $mm in [0-9]*.[0-9]*) ;; *) usage_die "--tree $tree: its Makefile names no VERSION and PATCHLEVEL" ;; esac
kver=$mm
vfrag=$SYNTWIN_ROOT/kernel-series/$mm/qemu.config
[ -f "$vfrag" ] || vfrag=
mkdir -p "$SYNTWIN_CACHE/config" "$SYNTWIN_CACHE/tree-obj" "$SYNTWIN_CACHE/tree-src"
# shellcheck disable=SC2086 # plain paths
fragtext=$(cat "$frag" $vfrag $debug) || usage_die "cannot read the config fragment"
fraghash=$(printf '%s\n' "$fragtext" | sha256sum | cut -c1-16)
merged=$SYNTWIN_CACHE/config/tree-$fraghash.config
if [ ! -f "$merged" ]; then
	mt=$(mktemp "$merged.XXXXXX") && printf '%s\n' "$fragtext" >"$mt" && mv "$mt" "$merged" ||
		usage_die "cannot write $merged"
fi

# What DIR holds beyond HEAD: the tracked files' change and the untracked files git would add
# (no pipe carries a status: each step's is checked).
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# (the user's diff settings -- no prefix, an external diff, textconv, colour -- would change it)
git -C "$tree" -c diff.noprefix=false -c diff.mnemonicPrefix=false -c color.diff=false \
	diff --no-ext-diff --no-textconv --binary HEAD -- >"$scratch/diff" &&
	git -C "$tree" ls-files -z --others --exclude-standard >"$scratch/others" &&
	LC_ALL=C sort -z "$scratch/others" >"$scratch/sorted" &&
	(cd "$tree" && xargs -0 -r sha256sum <"$scratch/sorted") >"$scratch/untracked" ||
	die "--tree $tree: git could not list its uncommitted change"
dirty=$(cat "$scratch/diff" "$scratch/untracked" | sha256sum | cut -c1-16)
clean_hash=$(printf '' | sha256sum | cut -c1-16)
[ -z "$patches" ] || [ "$dirty" = "$clean_hash" ] ||
	usage_die "--patches: $tree has uncommitted changes (git status); commit or stash them first:" \
		"git am applies a series to a clean checkout"
# the patches (mbox or directory), in the order git am takes them
patch_files() {
	if [ -d "$patches" ]; then find "$patches" -maxdepth 1 -type f \( -name '*.patch' -o -name '*.mbox' -o -name '*.eml' \) | LC_ALL=C sort
	else printf '%s\n' "$patches"; fi
}
if [ -n "$patches" ]; then
	# the files go through word lists below
	pf=$(patch_files) || usage_die "--patches $patches: cannot list it"
	[ -n "$pf" ] || usage_die "--patches $patches: no *.patch, *.mbox or *.eml file there"
	for f in $pf; do [ -f "$f" ] || usage_die "--patches: '$f': a patch file's name may not contain white space"; done
fi
# The content: HEAD, the tracked change, each mail of the patches in turn (decoded by git
# mailinfo as git am decodes it), in a scratch index. What was applied, a subject a mail with its
# Message-Id below, goes to $scratch/applied.
ix() { GIT_INDEX_FILE=$scratch/index git -C "$tree" "$@"; }
ix read-tree HEAD || die "--tree $tree: git read-tree HEAD failed"
[ ! -s "$scratch/diff" ] || ix apply --cached --binary "$scratch/diff" ||
	die "--tree $tree: its uncommitted change does not apply to its own HEAD"
: >"$scratch/applied"
if [ -n "$patches" ]; then
	mkdir "$scratch/mail"
	for f in $pf; do
		git mailsplit -o"$scratch/mail" "$f" >/dev/null || usage_die "--patches: $f is not an mbox or patch"
		for m in "$scratch/mail"/*; do
			git mailinfo "$scratch/msg" "$scratch/patch" <"$m" >"$scratch/info" ||
				usage_die "--patches: a mail of $(basename "$f") cannot be read (git mailinfo)"
			subject=$(sed -n 's/^Subject: //p' "$scratch/info")
			if [ -s "$scratch/patch" ]; then
				ix apply --cached "$scratch/patch" 2>"$scratch/err" || {
					cat "$scratch/err" >&2
					usage_die "--patches: '$subject' of $(basename "$f") does not apply"
				}
				printf '%s\n' "$subject" >>"$scratch/applied"
				sed -n 's/^Message-I[Dd]: */  Message-Id: /p' "$m" | head -n 1 >>"$scratch/applied"
			fi
			rm -f "$m"
		done
	done
fi
content=$(ix write-tree) || die "--tree $tree: git write-tree failed"
# shellcheck disable=SC2086
cat /dev/null $extras >"$scratch/extras" || die "cannot read the extra patches"
xhash=$(sha256sum <"$scratch/extras" | cut -c1-16)
# the selftests the declaration names are built into the kernel's directory too
selftests=
[ -z "$provides" ] || selftests=$(sed -n 's/^selftest[[:space:]]\{1,\}\([A-Za-z0-9_-]*\).*/\1/p' "$provides")
key=$(printf 'content %s\nuntracked %s\nfrag %s\nextras %s\nselftests %s\n' "$content" \
	"$(sha256sum <"$scratch/untracked" | cut -c1-16)" "$fraghash" "$xhash" "$selftests" |
	sha256sum | cut -c1-16)
if [ -n "$keyonly" ]; then
	printf '%s\n' "$key"
	exit 0
fi
kdir=$SYNTWIN_CACHE/kernel/tree-$key
# (not `git describe --dirty`: it refreshes DIR's index, a write)
describe=$(git -C "$tree" describe --always --tags 2>/dev/null || echo "$head")
[ "$dirty" = "$clean_hash" ] || describe="$describe-dirty"
# What this invocation built from, whether or not the kernel was built now: one content is
# one kernel, reached from any history (report.txt names this one: syntwin reads these files).
provenance() {
	printf '%s\n' "$describe" >"$kdir/describe" && printf '%s\n' "$head" >"$kdir/commit" &&
		printf '%s\n' "$tree" >"$kdir/tree-dir" && cp "$scratch/applied" "$kdir/applied.txt" &&
		{ [ "$dirty" = "$clean_hash" ] && rm -f "$kdir/dirty" ||
			printf 'uncommitted change %s\n' "$dirty" >"$kdir/dirty"; } ||
		die "cannot write into $kdir"
	for x in $extras; do printf '%s (extra)\n' "$(basename "$x" .patch)" >>"$kdir/applied.txt"; done
}
cached() {
	kernel_used "$kdir"
	provenance
	stage "kernel $describe ($key): $1 $kdir"
	printf '%s\n' "$kdir"
	exit 0
}
[ ! -f "$kdir/done" ] || cached "cached in"
mkdir -p "$kdir" "$SYNTWIN_CACHE/tree-src"
# The scratch worktree's lock before the kernel's: a bisect holds the first while its steps
# take the second (vm/bisect.sh), so never the other order.
src=$tree
if [ -n "$patches$extras" ]; then
	src=$SYNTWIN_CACHE/tree-src/$(printf '%s\n' "$tree" | sha256sum | cut -c1-16)
	exec 8>"$src.lock"
	flock 8
fi
exec 9>"$kdir.lock"
flock 9
[ ! -f "$kdir/done" ] || cached "built meanwhile by another job:"
log=$kdir/build.log
: >"$log"
need_free_space "a kernel build"
# Every failure from here is this tree's: it does not build (as a bisect step, skipped).
nobuild() { DIE_STATUS=2 die "$* (this tree does not build)"; }

# The source: DIR itself, or the scratch worktree of it (one per checkout, kept: its O=
# directory stays incremental) when patches must be applied, DIR's own change carried over.
if [ "$src" != "$tree" ]; then
	# a worktree of this checkout, or made again (DIR cloned anew at its path, a deleted one)
	if [ "$(git -C "$src" rev-parse --path-format=absolute --git-common-dir 2>/dev/null)" != \
		"$(git -C "$tree" rev-parse --path-format=absolute --git-common-dir)" ]; then
		rm -rf "$src"
		git -C "$tree" worktree add -f -q --detach "$src" "$head" >>"$log" 2>&1 ||
			die "--tree $tree: could not make a scratch worktree in $src; see $log"
	fi
	stage "scratch worktree $src at $describe"
	# never a leftover of an earlier build (an interrupted git am among them): the commit only
	git -C "$src" am --abort >/dev/null 2>&1 || :
	git -C "$src" reset -q --hard "$head" && git -C "$src" clean -q -fdx ||
		die "could not reset the scratch worktree $src"
	if [ "$dirty" != "$clean_hash" ]; then
		git -C "$src" apply --index "$scratch/diff" >>"$log" 2>&1 ||
			die "--tree $tree: its uncommitted change does not apply to its own HEAD in $src"
		(cd "$tree" && xargs -0 -r cp --parents -t "$src" <"$scratch/sorted") ||
			die "--tree $tree: could not copy its untracked files"
		say "DIR's uncommitted change carried over"
	fi
	if [ -n "$patches" ]; then
		# git am's result is the content the key names (git apply made it): checked below
		for f in $pf; do
			git -C "$src" -c user.name=syntwin -c user.email=syntwin@localhost am -q --3way \
				"$f" >>"$log" 2>&1 || {
				grep -E '^(error|Patch failed|CONFLICT)' "$log" | head -n 5 >&2
				git -C "$src" am --abort >/dev/null 2>&1 || :
				nobuild "--patches: $(basename "$f") does not apply to $describe (git am; log: $log)"
			}
		done
		say "applied $(grep -vc '^  ' "$scratch/applied") patch(es) with git am"
		[ "$(git -C "$src" rev-parse 'HEAD^{tree}')" = "$content" ] ||
			die "--patches: git am made other content than git apply did for the key (fuzz?); see $log"
	fi
	for x in $extras; do
		patch -d "$src" -p1 --batch --forward --no-backup-if-mismatch -s <"$x" >>"$log" 2>&1 ||
			nobuild "$(basename "$x") does not apply to $describe; see $log"
	done
fi

# The object directory: one per source path and fragment, locked while it is built in (two
# builds of one checkout, or the pruning below, never meet in it).
obj=$SYNTWIN_CACHE/tree-obj/$(printf '%s %s\n' "$src" "$fraghash" | sha256sum | cut -c1-16)
mkdir -p "$obj"
exec 7>"$obj.lock"
flock 7
touch "$obj"
mk() { make -C "$src" O="$obj" -j"$(nproc)" LOCALVERSION=-syntwin "$@" >>"$log" 2>&1; }
# make $1 failed: Kbuild refuses O= on a source tree with in-tree build files (every make
# checks), and its own words are the reason; anything else: this tree does not build.
kbuild_failed() {
	if grep -q 'source tree is not clean' "$log"; then
		grep -E '\*\*\*' "$log" | head -n 6 >&2
		rm -rf "$kdir"
		usage_die "--tree $tree is not clean for an out-of-tree build (O=): the kernel says so" \
			"above; 'make -C $tree mrproper' removes its in-tree build files (syntwin never writes DIR)"
	fi
	[ "$1" != bzImage ] || tail -n 30 "$log" >&2
	nobuild "make $1 failed; full log: $log"
}
# tinyconfig every time, so the .config is this tree's and fragment's alone, never what an
# earlier build in the directory left (Kconfig rewrites only the symbols that changed, so make
# stays incremental); merge_config.sh's scratch files go in the object directory, not DIR.
stage "configuring in $obj: tinyconfig + $(basename "$frag")${vfrag:+ + $mm/qemu.config}${debug:+ + debug.config}"
mk tinyconfig || kbuild_failed tinyconfig
(cd "$obj" && "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$merged") >>"$log" 2>&1 ||
	nobuild "merging the fragment failed; see $log"
mk olddefconfig || kbuild_failed olddefconfig
# An option this tree does not have is said, not fatal: a check that needs it fails by name
# (the witness's attach says which feature is missing).
missing=$(sed -n 's/^\(CONFIG_[A-Za-z0-9_]*=.*\)$/\1/p' "$merged" | while read -r want; do
	grep -qxF "$want" "$obj/.config" || printf ' %s' "$want"
done)
printf '%s\n' "$missing" | tr ' ' '\n' | sed '/^$/d' >"$kdir/config-missing"
[ -z "$missing" ] || say "this tree ($kver) does not take these options of the fragment:$missing"

stage "make -j$(nproc) bzImage (O=$obj)"
start=$(date +%s)
mk bzImage &
heartbeat $! "$log" "$start"
wait $! || kbuild_failed bzImage
# The C selftests the declaration names (provides: `selftest NAME`), from the tree's own
# tools/testing/selftests (the first in path order), built for the guest.
rm -rf "$kdir/selftests"
mkdir -p "$kdir/selftests"
for name in $selftests; do
	t=$(cd "$src" && find tools/testing/selftests -name "$name.c" | LC_ALL=C sort | head -n 1)
	[ -n "$t" ] || { say "selftest $name: no tools/testing/selftests/*/$name.c in this tree"; continue; }
	gcc -O2 -Wall -iquote "$src/$(dirname "$t")" -o "$kdir/selftests/$name" "$src/$t" -lpthread \
		>>"$log" 2>&1 || nobuild "selftest $t does not compile; see $log"
	printf '%s\n' "$name" >>"$kdir/selftests/selftests.list"
	say "selftest $name built"
done
cp "$obj/arch/x86/boot/bzImage" "$kdir/bzImage" && cp "$obj/.config" "$kdir/config" &&
	make -s -C "$src" O="$obj" LOCALVERSION=-syntwin kernelrelease >"$kdir/release" &&
	printf '%s\n' "$key" >"$kdir/key" || die "cannot keep the kernel in $kdir"
provenance
touch "$kdir/done"
kernel_used "$kdir"
exec 7>&-
prune_kernels tree
# the object directories beyond SYNTWIN_KEEP_TREES, least recently used first; one being built
# in (its lock held) stays
# shellcheck disable=SC2012 # hex names
ls -dt "$SYNTWIN_CACHE"/tree-obj/*/ 2>/dev/null | tail -n +"$((SYNTWIN_KEEP_TREES + 1))" |
	while read -r d; do
		d=${d%/}
		flock -n "$d.lock" rm -rf "$d" && say "cache: removed the object directory $d (least recently used)"
	done
stage "kernel $(cat "$kdir/release") ($describe) built in $(($(date +%s) - start))s"
printf '%s\n' "$kdir"
