#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build (or reuse) the guest bzImage: Debian linux-source-VER + a patch series + our config fragment.
#
# usage: build-kernel.sh [--kernel VER] [--series DIR|none] [--config FRAG] [--debug] [--coverage]
#                        [--extra PATCH]... [--base KDIR]
# Prints the kernel cache directory (holding bzImage, config, release) as the last stdout line.
# --extra layers patches (mutants) over the series; --base starts from an already built tree so
# only what the patches touch is recompiled. --debug adds kernel-series/debug.config (KASAN,
# kmemleak, lockdep) after the fragment: another fragment, so another cache key and kept tree.
# --coverage adds kernel-series/coverage.config (gcov) the same way, and profiles the files it
# names and every kernel C file the patches touch. Without --base, a kept tree of the same
# version and config fragment is used as the base if there is one (so a new series builds
# incrementally).
# On a base, patches the base has beyond the common prefix with the new list are reversed first.
set -eu
DIE_STATUS=2 # every failure here is a failed build stage: a setup error for the caller
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cache.sh"

ver=6.1
sdir=
frag=$SYNTWIN_ROOT/kernel-series/qemu.config
base=
extras=
debug=
coverage=
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) [ $# -ge 2 ] || usage_die "--kernel needs a version (e.g. 6.1)"; ver=$2; shift 2 ;;
	--series) [ $# -ge 2 ] || usage_die "--series needs a directory or 'none'"; sdir=$2; shift 2 ;;
	--config) [ $# -ge 2 ] || usage_die "--config needs a file"; frag=$2; shift 2 ;;
	--extra) [ $# -ge 2 ] || usage_die "--extra needs a patch file"
		[ -f "$2" ] || usage_die "--extra $2: no such file"
		extras="$extras $(cd "$(dirname "$2")" && pwd)/$(basename "$2")"; shift 2 ;;
	--base) [ $# -ge 2 ] || usage_die "--base needs a kernel directory"; base=$2; shift 2 ;;
	--debug) debug=$SYNTWIN_ROOT/kernel-series/debug.config; shift ;;
	--coverage) coverage=$SYNTWIN_ROOT/kernel-series/coverage.config; shift ;;
	*) usage_die "build-kernel: unknown argument '$1'" ;;
	esac
done
cache_bounds
case $ver in
[0-9]*.[0-9]*) ;;
*) usage_die "--kernel '$ver': expected a version like 6.1" ;;
esac
[ -n "$sdir" ] || sdir=$(reference_series "$ver")
tarball=$(kernel_tarball "$ver")
[ -f "$tarball" ] || usage_die "--kernel $ver: $tarball not found (apt-get install $(kernel_pkg "$ver"))"
[ -f "$frag" ] || usage_die "--config $frag: no such file"
frag=$(cd "$(dirname "$frag")" && pwd)/$(basename "$frag")
# A kernel version's own lines (kernel-series/VER/qemu.config: options it renamed, split or
# defaults differently) go after the fragment, the debug lines (--debug) and the coverage lines
# (--coverage) after those; the
# parts are one file in the cache, so the key and the base-tree match cover them all. A plain
# build of a version without its own lines uses the fragment as it is.
vfrag=$SYNTWIN_ROOT/kernel-series/$ver/qemu.config
[ -f "$vfrag" ] || vfrag=
if [ -n "$vfrag$debug$coverage" ]; then
	mkdir -p "$SYNTWIN_CACHE/config"
	# shellcheck disable=SC2086 # plain paths (the checkout's, checked by syntwin)
	both=$SYNTWIN_CACHE/config/$ver-$(cat "$frag" $vfrag $debug $coverage | sha256sum | cut -c1-16).config
	# shellcheck disable=SC2086
	[ -f "$both" ] || { cat "$frag" $vfrag $debug $coverage >"$both.tmp" && mv "$both.tmp" "$both"; } ||
		usage_die "cannot write $both"
	frag=$both
fi
sdir=$(series_dir "$sdir")
series_check "$sdir"

# shellcheck disable=SC2086 # $extras is a list of paths without spaces
key=$(kernel_key "$ver" "$sdir" "$frag" $extras)
kdir=$(kernel_dir "$ver" "$key")
# a gcov kernel built before its report's sources were kept beside it is built again
if [ -f "$kdir/done" ] && grep -q '^# gcov-profile: ' "$frag" && [ ! -d "$kdir/gcov-src" ]; then
	say "coverage kernel $kdir keeps no gcov-src/ (an older build): building it again"
	rm -f "$kdir/done"
fi
if [ -f "$kdir/done" ]; then
	kernel_used "$kdir"
	stage "kernel $ver ($key): cached in $kdir"
	printf '%s\n' "$kdir"
	exit 0
fi

mkdir -p "$kdir"
# Two test jobs may ask for the same kernel at once: the second waits for the first.
exec 9>"$kdir.lock"
flock 9
if [ -f "$kdir/done" ]; then
	kernel_used "$kdir"
	stage "kernel $ver ($key): built meanwhile by another job"
	printf '%s\n' "$kdir"
	exit 0
fi
log=$kdir/build.log
: >"$log"
stage "kernel $ver ($key): building in $kdir (log: $log)"

pkgver=$(kernel_pkg_version "$ver")
pristine=$SYNTWIN_CACHE/src/$ver-$pkgver
# Every build runs in one fixed work path per version: the kernel's host tools (objtool,
# resolve_btfids) record absolute paths, and a tree built elsewhere would rebuild them and then
# every object. A base tree was built at this same path, so restoring it there keeps make
# incremental. The restore is a real copy: object files hard-linked to the base would be
# overwritten in place by the compiler.
src=$SYNTWIN_CACHE/build-$ver
exec 8>"$src.lock"
flock 8
rm -rf "$src"
fraghash=$(sha256sum <"$frag" | cut -c1-64)
wanted=$(for p in $(series_patches "$sdir") $extras; do printf '%s\n' "$p"; done)
# Patch $1 failed its dry run with output $2: name it and the hunk, leave nothing half-built.
does_not_apply() {
	printf '%s\n' "$2" >>"$log"
	printf 'syntwin: error: patch %s does not apply to linux-source-%s (%s):\n' \
		"$(basename "$1")" "$ver" "$pkgver" >&2
	printf '%s\n' "$2" | grep -E 'patching file|FAILED|malformed|Only garbage|can.t find file|Reversed|already exists' >&2 ||
		printf '%s\n' "$2" | tail -n 5 >&2
	rm -rf "$kdir" "$src"
	exit 2
}
# How many of the wanted patches (in order, by content) kernel dir $1's tree already has.
common_prefix() {
	_i=0
	for _h in $(find "$1/applied" -type f 2>/dev/null | LC_ALL=C sort); do
		_w=$(printf '%s\n' "$wanted" | sed -n "$((_i + 1))p")
		[ -n "$_w" ] && cmp -s "$_h" "$_w" || break
		_i=$((_i + 1))
	done
	echo "$_i"
}
# A kept tree of another config fragment is a base too: its .config is made again from
# tinyconfig + this fragment (step 3), and Kbuild recompiles exactly the objects whose options
# changed, so a new option costs minutes, not a cold build. A tree of the same fragment is
# preferred over any other; then the longest common prefix; then nothing to reverse; then the
# most recently used (the reference, which every command uses, before a test's series).
# A base whose tree the cache pruned (cache.sh) is replaced by the best kept tree, as if none
# had been given: a base only saves compile time, the result is the series and extras alone.
if [ -n "$base" ] && [ -f "$base/done" ] && [ ! -d "$base/src" ]; then
	say "--base $base: its build tree was pruned from the cache; choosing a kept tree instead"
	base=
fi
if [ -z "$base" ]; then
	best=-1
	for d in $(kernels_by_use "$ver"); do
		[ -f "$d/done" ] && [ -d "$d/src" ] && [ -d "$d/applied" ] &&
			[ "$(cat "$d/pkgver" 2>/dev/null)" = "$pkgver" ] || continue
		same=$([ "$(cat "$d/frag_hash" 2>/dev/null)" = "$fraghash" ] && echo 1 || echo 0)
		c=$(common_prefix "$d")
		score=$((1000 * same + 2 * c + ($(find "$d/applied" -type f | wc -l) == c)))
		[ "$score" -gt "$best" ] || continue
		best=$score base=$d common=$c
	done
	[ -z "$base" ] || say "incremental build on the kept tree $base ($common patch(es) in common$(
		[ "$best" -ge 1000 ] || echo ", another config fragment"))"
fi
[ -z "$base" ] || kernel_used "$base"
prune_kernels "$ver"
need_free_space "a kernel build"
# 1. A pristine extract per package version, shared by every build (those of another package
#    version are left from before an upgrade: trees hold their files by hard links, so they go).
if [ ! -f "$pristine/.syntwin-extracted" ]; then
	stage "extracting $tarball"
	rm -rf "$pristine.tmp"
	mkdir -p "$pristine.tmp"
	tar -xJf "$tarball" -C "$pristine.tmp" --strip-components=1
	touch "$pristine.tmp/.syntwin-extracted"
	rm -rf "$pristine"
	mv "$pristine.tmp" "$pristine"
fi
for old in "$SYNTWIN_CACHE/src/$ver"-*; do
	[ "$old" = "$pristine" ] || [ ! -d "$old" ] || rm -rf "$old"
done
if [ -n "$base" ]; then
	[ -f "$base/done" ] && [ -d "$base/src" ] || die "--base $base: not a kept kernel build tree"
	# Before copying 1.5 GB: when the base has exactly the common prefix, the first new patch
	# must apply to its tree as it is, and one that does not is named now.
	nbase=$(find "$base/applied" -type f | wc -l)
	keep0=$(common_prefix "$base")
	first=$(printf '%s\n' "$wanted" | sed -n "$((keep0 + 1))p")
	if [ "$nbase" = "$keep0" ] && [ -n "$first" ] &&
		! out=$(patch -d "$base/src" -p1 --dry-run --batch --forward <"$first" 2>&1); then
		does_not_apply "$first" "$out"
	fi
	stage "restoring built tree $base"
	cp -a "$base/src" "$src"
else
	cp -al "$pristine" "$src"
fi
# Source files may be hard links to the pristine extract: patch(1) replaces files rather than
# writing through the link (tests/kernel_series.sh checks that the pristine tree stays clean).

# 2. The series, then any extra patches, in order. Dry-run first so a failing patch leaves no
#    half-applied tree, and name the patch and hunk that failed.
apply() {
	if ! out=$(patch -d "$src" -p1 --dry-run --batch --forward <"$1" 2>&1); then
		does_not_apply "$1" "$out"
	fi
	patch -d "$src" -p1 --batch --forward --no-backup-if-mismatch -s <"$1" >>"$log" 2>&1
	say "applied $(basename "$1")"
}
# A base's applied/ lists what its tree already has. Keep the common prefix (same content, same
# order); reverse the rest of the base's patches, newest first, then apply the rest.
have= keep=0
if [ -n "$base" ]; then
	have=$(find "$base/applied" -type f 2>/dev/null | LC_ALL=C sort)
	keep=$(common_prefix "$base")
fi
for h in $(printf '%s\n' "$have" | sed -n "$((keep + 1)),\$p" | sort -r); do
	patch -d "$src" -p1 -R --batch --no-backup-if-mismatch -s <"$h" >>"$log" 2>&1 ||
		die "could not reverse $(basename "$h") of base $base"
	say "reversed $(basename "$h" | cut -c5-) (in the base, not wanted)"
done
rm -rf "$kdir/applied"
mkdir -p "$kdir/applied"
npatch=0
for p in $wanted; do
	npatch=$((npatch + 1))
	cp "$p" "$kdir/applied/$(printf '%03d' "$npatch")-$(basename "$p")"
	[ "$npatch" -le "$keep" ] || apply "$p"
done
stage "applied $npatch patch(es) ($keep already in the base tree)"

# 3. Configure: tinyconfig + fragment + olddefconfig, then prove every requested option survived.
# A gcov kernel (a fragment with `# gcov-profile:` lines: kernel-series/coverage.config)
# profiles those files and every kernel C file the patches touch: Kbuild's GCOV_PROFILE_<obj>
# on make's command line reaches every directory's make (the object's base name: a file of the
# same name elsewhere is profiled too, and only the listed files are reported).
profiled=$(gcov_profiled_files "$frag" $wanted)
gcov_args=
for f in $profiled; do
	gcov_args="$gcov_args GCOV_PROFILE_$(basename "$f" .c).o=y"
done
# shellcheck disable=SC2086 # $gcov_args: NAME=y words
mk() { make -C "$src" -j"$(nproc)" LOCALVERSION=-syntwin $gcov_args "$@" >>"$log" 2>&1; }
if [ -z "$base" ] || [ "$(cat "$base/frag_hash" 2>/dev/null)" != "$fraghash" ]; then
	stage "configuring: tinyconfig + $(basename "$frag")"
	mk tinyconfig || die "make tinyconfig failed; see $log"
fi
(cd "$src" && scripts/kconfig/merge_config.sh -m -O . .config "$frag") >>"$log" 2>&1 ||
	die "merging $frag failed; see $log"
mk olddefconfig || die "make olddefconfig failed; see $log"
missing=$(sed -n 's/^\(CONFIG_[A-Za-z0-9_]*=.*\)$/\1/p' "$frag" | while read -r want; do
	grep -qxF "$want" "$src/.config" || printf ' %s' "$want"
done)
if [ -n "$missing" ]; then
	rm -rf "$kdir" "$src"
	DIE_STATUS=2 die "config options requested by $(basename "$frag") are not set after olddefconfig" \
		"(unknown symbol or unmet dependency):$missing"
fi

# 4. Build, with a heartbeat: the build's own output goes to the log.
stage "make -j$(nproc) bzImage"
start=$(date +%s)
mk bzImage &
heartbeat $! "$log" "$start"
wait $! || {
	tail -n 30 "$log" >&2
	die "kernel build failed; full log: $log"
}
# 5. C selftests the patches add (tools/testing/selftests/*/NAME.c), built for the guest; the
#    initramfs ships them on PATH, so a series brings its own tests.
rm -rf "$kdir/selftests"
mkdir -p "$kdir/selftests"
for p in $(series_patches "$sdir") $extras; do
	sed -n 's|^+++ b/\(tools/testing/selftests/[^ 	]*\.c\)\([ 	].*\)\{0,1\}$|\1|p' "$p"
done | sort -u | while read -r t; do
	[ -f "$src/$t" ] || continue
	name=$(basename "$t" .c)
	gcc -O2 -Wall -iquote "$src/$(dirname "$t")" -o "$kdir/selftests/$name" "$src/$t" -lpthread \
		>>"$log" 2>&1 || die "selftest $t does not compile; see $log"
	printf '%s\n' "$name" >>"$kdir/selftests/selftests.list"
	say "selftest $name built"
done
# A gcov kernel: each profiled file compiled with profiling (its .gcno), and the list kept for
# the report (coverage/report.sh), with what the report reads of the tree (the sources it scans
# and shows, the objects and notes of the profiled files) hard-linked into gcov-src/: the tree
# itself may be pruned from the cache before a report is made.
rm -rf "$kdir/gcov-profiled" "$kdir/gcov-build-dir" "$kdir/gcov-src"
[ -z "$profiled" ] || printf '%s\n' "$src" >"$kdir/gcov-build-dir" # where gcov's counts name the files
for f in $profiled; do
	if [ ! -f "$src/${f%.c}.o" ]; then
		# a file the patches touch that this config does not build has nothing to count
		grep -qx "# gcov-profile: $f" "$frag" &&
			die "coverage kernel: $f, which $(basename "$frag") profiles, is not built in this config"
		say "coverage kernel: $f (touched by the patches) is not built in this config"
		continue
	fi
	[ -f "$src/${f%.c}.gcno" ] ||
		die "coverage kernel: $f was compiled without gcov profiling (no ${f%.c}.gcno)"
	printf '%s\n' "$f" >>"$kdir/gcov-profiled"
done
if [ -n "$profiled" ]; then
	mkdir -p "$kdir/gcov-src/arch/x86"
	cp -al "$src/net" "$src/include" "$kdir/gcov-src/" &&
		cp -al "$src/arch/x86/include" "$kdir/gcov-src/arch/x86/" ||
		die "coverage kernel: cannot keep the sources the report reads in $kdir/gcov-src"
fi
cp "$src/arch/x86/boot/bzImage" "$kdir/bzImage"
cp "$src/.config" "$kdir/config"
make -s -C "$src" LOCALVERSION=-syntwin kernelrelease >"$kdir/release"
printf '%s\n' "$key" >"$kdir/key"
printf '%s\n' "$fraghash" >"$kdir/frag_hash"
printf '%s\n' "$pkgver" >"$kdir/pkgver"
printf '%s\n' "$(series_hash "$sdir")" >"$kdir/series_hash"
# Trees of series builds are kept (as bases for incremental builds: mutants, other series);
# trees with --extra patches (mutants) are thrown away (about 1.5 GB each).
if [ -z "$extras" ]; then
	rm -rf "$kdir/src"
	mv "$src" "$kdir/src"
else
	rm -rf "$src"
fi
touch "$kdir/done"
kernel_used "$kdir"
prune_kernels "$ver"
stage "kernel $(cat "$kdir/release") built in $(($(date +%s) - start))s"
printf '%s\n' "$kdir"
