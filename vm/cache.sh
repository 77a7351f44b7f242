# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The cache's bounds. Sourced after lib.sh, never run. POSIX sh.
#
# A kept kernel build tree is 2.3-2.9 GB and every new series, config fragment or test series
# makes one; a guest image is 7 MB and every change to a guest binary makes one. Unbounded, a
# cache that a developer and CI share filled its disk (72 GB of trees, 577 images) and a test's
# copy of a base tree stopped with ENOSPC. So the least recently used go, newest kept:
#   SYNTWIN_KEEP_TREES   (2)   built trees per kernel version: the bases of incremental builds
#                              (a kernel whose tree went stays usable: bzImage, config, selftests);
#   SYNTWIN_KEEP_KERNELS (60)  kernel directories per version, about 5 MB each (a test suite
#                              uses 6 of 6.1, the whole kill matrix 25 per version);
#   SYNTWIN_KEEP_IMAGES  (20)  guest images;  SYNTWIN_KEEP_LOGS (200) console logs.
# A kernel build needs SYNTWIN_MIN_FREE_MB (4096) free where the cache is, checked after the
# pruning: a full disk is said before 2 GB are copied, not found by cp or the compiler.
# "Used" is the time of a kernel directory's `used` stamp (touched when a build returns it, or
# uses it as a base), else of its `done`; an image's own mtime (touched when reused).

cache_bounds() {
	num_arg "SYNTWIN_KEEP_TREES" "${SYNTWIN_KEEP_TREES:=2}" 1 1000
	num_arg "SYNTWIN_KEEP_KERNELS" "${SYNTWIN_KEEP_KERNELS:=60}" "$SYNTWIN_KEEP_TREES" 100000
	num_arg "SYNTWIN_KEEP_IMAGES" "${SYNTWIN_KEEP_IMAGES:=20}" 1 100000
	num_arg "SYNTWIN_KEEP_LOGS" "${SYNTWIN_KEEP_LOGS:=200}" 1 1000000
	num_arg "SYNTWIN_MIN_FREE_MB" "${SYNTWIN_MIN_FREE_MB:=4096}" 0 1000000000
}

# kernel_used KDIR: KDIR was used now.
kernel_used() { touch "$1/used" || die "cannot write $1/used"; }

# kernels_by_use VER: VER's kernel directories, most recently used first (ties by name).
kernels_by_use() {
	for _d in "$SYNTWIN_CACHE/kernel/$1"-*; do
		[ -d "$_d" ] || continue
		_s=$_d/used
		[ -e "$_s" ] || _s=$_d/done
		[ -e "$_s" ] || _s=$_d
		printf '%s %s\n' "$(stat -c %Y "$_s")" "$_d"
	done | LC_ALL=C sort -k1,1nr -k2,2 | cut -d' ' -f2-
}

# prune_kernels VER: drop the built trees beyond SYNTWIN_KEEP_TREES and the kernel directories
# beyond SYNTWIN_KEEP_KERNELS. The caller holds VER's build lock, so no build copies a tree
# meanwhile; a directory whose own lock is held (a build of it) is left alone.
prune_kernels() {
	_trees=0 _dirs=0
	for _d in $(kernels_by_use "$1"); do
		_dirs=$((_dirs + 1))
		if [ "$_dirs" -gt "$SYNTWIN_KEEP_KERNELS" ]; then
			flock -n "$_d.lock" rm -rf "$_d" && say "cache: removed kernel $(basename "$_d") (least recently used)"
			continue
		fi
		[ -d "$_d/src" ] && [ -f "$_d/done" ] || continue
		_trees=$((_trees + 1))
		[ "$_trees" -gt "$SYNTWIN_KEEP_TREES" ] || continue
		rm -rf "$_d/src"
		say "cache: removed the build tree of kernel $(basename "$_d") (least recently used; SYNTWIN_KEEP_TREES=$SYNTWIN_KEEP_TREES)"
	done
	# A lock file is opened (and so its mtime set) just after its directory is made: one
	# without a directory, untouched for an hour, belongs to nobody.
	find "$SYNTWIN_CACHE/kernel" -maxdepth 1 -name "$1-*.lock" -mmin +60 2>/dev/null |
		while read -r _l; do [ -d "${_l%.lock}" ] || rm -f "$_l"; done
}

# prune_newest KEEP FILE...: remove all but the KEEP newest (by mtime) of FILE...
prune_newest() {
	_keep=$1
	shift
	[ -e "$1" ] || return 0
	# shellcheck disable=SC2012 # cache file names: hex keys and dates, no odd characters
	ls -t "$@" | tail -n +"$((_keep + 1))" | while read -r _f; do rm -f "$_f"; done
}

# free_mb DIR: megabytes free on DIR's file system.
free_mb() { df -Pm "$1" | awk 'NR == 2 { print $4 }'; }

# need_free_space WHAT: at least SYNTWIN_MIN_FREE_MB free in the cache, else exit 2 naming what
# holds the space and how to give it back.
need_free_space() {
	_free=$(free_mb "$SYNTWIN_CACHE") || die "df $SYNTWIN_CACHE failed"
	[ "$_free" -lt "$SYNTWIN_MIN_FREE_MB" ] || return 0
	_held=$(du -sm "$SYNTWIN_CACHE" 2>/dev/null | cut -f1)
	DIE_STATUS=2 die "$1 needs ${SYNTWIN_MIN_FREE_MB} MB free on the file system of $SYNTWIN_CACHE" \
		"and it has ${_free} MB (the cache holds ${_held:-?} MB; SYNTWIN_KEEP_TREES=1 keeps one" \
		"built tree per kernel version, and removing $SYNTWIN_CACHE/kernel frees every kernel)"
}
