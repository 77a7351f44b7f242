#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The cache stays bounded (vm/cache.sh, docs/cache.md), on a cache made up here (pure userspace,
# nothing built or booted): exactly the least recently used kernel trees, kernel directories,
# guest images and console logs go, a directory being built stays, other versions are left
# alone; a kernel build with too little free space stops with exit 2 before it extracts or
# copies anything; a base whose tree was pruned is replaced; bad bounds are usage errors.
set -u
. "$(dirname "$0")/lib.sh"
EXPECT=$ROOT/tests/expect.sh
export SYNTWIN_CACHE=$tmp/cache
K=$SYNTWIN_CACHE/kernel

# mkkernel NAME HOURS_AGO [tree] [USED]: a finished kernel directory whose `done` is HOURS_AGO
# old, with a build tree if asked (tree), and a `used` stamp USED hours old if given.
mkkernel() {
	mkdir -p "$K/$1"
	touch -d "$2 hours ago" "$K/$1/done"
	[ "${3:-}" != tree ] || mkdir -p "$K/$1/src/init"
	[ -z "${4:-}" ] || touch -d "$4 hours ago" "$K/$1/used"
}
prune() {
	SYNTWIN_KEEP_TREES=2 SYNTWIN_KEEP_KERNELS=5 sh -c '. "$1/vm/lib.sh"; . "$1/vm/cache.sh"
		cache_bounds; prune_kernels "$2"' prune "$ROOT" "$1"
}
# Oldest to newest by use: a (tree, used 1 h ago: newest of all), b (tree, done 2 h),
# c (tree, done 3 h), d (no tree, 4 h), e (tree, done 9 h but used 5 h ago), f (6 h),
# g (tree, 7 h), h (8 h, being built: its lock held), i (10 h).
mkkernel 6.1-a 30 tree 1
mkkernel 6.1-b 2 tree
mkkernel 6.1-c 3 tree
mkkernel 6.1-d 4
mkkernel 6.1-e 9 tree 5
mkkernel 6.1-f 6
mkkernel 6.1-g 7 tree
mkkernel 6.1-h 8
mkkernel 6.1-i 10
mkkernel 6.12-z 50 tree # another version: not counted, not touched
mkkernel 6.12-y 51 tree
# lock files: one of a kept dir, an orphan older than an hour, an orphan just opened
touch "$K/6.1-a.lock" "$K/6.1-new.lock"
touch -d "2 hours ago" "$K/6.1-gone.lock"
exec 7>"$K/6.1-h.lock" # h's build: this shell holds its lock while the prune runs
flock 7
check prune 6.1
exec 7>&-
listing() { (cd "$K" && find . -maxdepth 2 | LC_ALL=C sort | tr '\n' ' '); }
# trees: a and b kept (the two most recently used), c and e lose theirs; dirs: a b c d e kept
# (five), f g i removed, h kept (its lock held); 6.12 as it was.
want='. ./6.1-a ./6.1-a.lock ./6.1-a/done ./6.1-a/src ./6.1-a/used ./6.1-b ./6.1-b/done ./6.1-b/src ./6.1-c ./6.1-c/done ./6.1-d ./6.1-d/done ./6.1-e ./6.1-e/done ./6.1-e/used ./6.1-f.lock ./6.1-g.lock ./6.1-h ./6.1-h.lock ./6.1-h/done ./6.1-i.lock ./6.1-new.lock ./6.12-y ./6.12-y/done ./6.12-y/src ./6.12-z ./6.12-z/done ./6.12-z/src '
got=$(listing)
check [ "$got" = "$want" ] || printf 'got:  %s\nwant: %s\n' "$got" "$want"

# Images and logs: exactly the N newest stay.
mkdir -p "$SYNTWIN_CACHE/initramfs"
for n in 1 2 3 4 5; do touch -d "$n hours ago" "$SYNTWIN_CACHE/initramfs/img$n.cpio.gz"; done
mkdir "$SYNTWIN_CACHE/initramfs/root.keep"
sh -c '. "$1/vm/lib.sh"; . "$1/vm/cache.sh"; prune_newest 2 "$SYNTWIN_CACHE"/initramfs/*.cpio.gz' x "$ROOT"
check [ "$(ls "$SYNTWIN_CACHE/initramfs" | tr '\n' ' ')" = "img1.cpio.gz img2.cpio.gz root.keep " ]
sh -c '. "$1/vm/lib.sh"; . "$1/vm/cache.sh"; prune_newest 2 "$SYNTWIN_CACHE"/logs/console-*.log' x "$ROOT"
check [ $? = 0 ] # nothing to prune is no error

# Too little free space: exit 2 naming it, before the pristine extract or any copy, and a base
# whose tree was pruned is said to be replaced first.
rm -rf "$K"
mkkernel 6.1-pruned 1
check "$EXPECT" --status 2 --stderr "--base $K/6.1-pruned: its build tree was pruned from the cache; choosing a kept tree instead" \
	--stderr "a kernel build needs 999999999 MB free on the file system of $SYNTWIN_CACHE and it has" \
	--stderr "SYNTWIN_KEEP_TREES=1 keeps one" --max-seconds 60 \
	-- env SYNTWIN_MIN_FREE_MB=999999999 "$ROOT/vm/build-kernel.sh" --base "$K/6.1-pruned"
check [ ! -e "$SYNTWIN_CACHE/src" ]
check [ ! -e "$SYNTWIN_CACHE/build-6.1" ]
# ... and the entry point stops as for any failed build stage.
check "$EXPECT" --status 2 --stderr "MB free on the file system of $SYNTWIN_CACHE" \
	--stderr "kernel build (linux-source-6.1 + 6.1) failed (status 2); stopping" --max-seconds 120 \
	-- env SYNTWIN_MIN_FREE_MB=999999999 SYNTWIN_NO_BUILD=1 SYNTWIN_BUILD="$tmp/nobuild" "$ROOT/syntwin" build

# Bounds that make no sense are usage errors, before anything is built.
for bad in SYNTWIN_KEEP_TREES=0 SYNTWIN_KEEP_TREES=x SYNTWIN_KEEP_IMAGES=0 SYNTWIN_KEEP_LOGS=-1 \
	"SYNTWIN_KEEP_KERNELS=1 SYNTWIN_KEEP_TREES=2"; do
	# shellcheck disable=SC2086 # the assignments as words
	check "$EXPECT" --status 2 --stderr "${bad%%=*}" --max-seconds 10 -- env $bad "$ROOT/syntwin" vm -- true
done
[ $fail = 0 ] && echo "cache_bounds: all checks passed"
exit $fail
