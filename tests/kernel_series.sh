#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Host test of the series mechanism: a trivial patch changes the cache key, is built incrementally
# on the reference tree, and shows in the booted kernel; the pristine source stays pristine; bad
# series (missing dir, no series file, missing patch, patch that does not apply, unknown config
# option) stop with exit 2 and a message naming the problem.
set -eu
. "$(dirname "$0")/lib.sh"
. "$ROOT/vm/lib.sh"
BK=$ROOT/vm/build-kernel.sh
EXPECT=$ROOT/tests/expect.sh

ref=$("$BK") || { echo "FAIL: the reference kernel does not build"; exit 1; }
ref=${ref##*"$NL"}
refkey=$(cat "$ref/key")
marker="syntwin-series-test-$(date +%s)"

# A one-line patch to init/main.c, made against the tree (the series does not touch that file:
# the reference's kept tree, or the pristine extract if the cache pruned that tree), in -p1 form.
pristine=$SYNTWIN_CACHE/src/6.1-$(kernel_pkg_version 6.1)
mkdir -p "$tmp/a/init" "$tmp/b/init" "$tmp/series"
main_c=$ref/src/init/main.c
[ -f "$main_c" ] || main_c=$pristine/init/main.c
cp "$main_c" "$tmp/a/init/main.c" || { echo "FAIL: neither the reference tree nor the pristine source is in the cache"; exit 1; }
sed 's|^\tpr_notice("%s", linux_banner);|&\n\tpr_notice("SYNTWIN_MARKER\\n");|' "$tmp/a/init/main.c" |
	sed "s|SYNTWIN_MARKER|syntwin-series-test|" >"$tmp/b/init/main.c"
(cd "$tmp" && diff -u a/init/main.c b/init/main.c >series/0099-trivial.patch) || true
grep -q syntwin-series-test "$tmp/series/0099-trivial.patch" || { echo "FAIL: could not make the test patch"; exit 1; }
# The reviewer's case: the reference series plus one patch of theirs.
cp "$ROOT"/kernel-series/6.1/*.patch "$tmp/series/"
{ cat "$ROOT/kernel-series/6.1/series"; echo 0099-trivial.patch; } >"$tmp/series/series"

key=$(kernel_key 6.1 "$tmp/series" "$ROOT/kernel-series/qemu.config")
check [ "$key" != "$refkey" ]
echo "ok: reference key $refkey, patched key $key"

start=$(date +%s)
k=$("$BK" --series "$tmp/series" --base "$ref") || { echo "FAIL: the patched kernel does not build"; exit 1; }
k=${k##*"$NL"}
echo "ok: patched kernel built incrementally in $(($(date +%s) - start))s"
check [ "$(cat "$k/key")" = "$key" ]
# The pristine tree (hard-linked into every cold-built tree) must not have been patched through
# a link.
check [ -f "$pristine/init/main.c" ]
check sh -c "! grep -q syntwin-series-test '$pristine/init/main.c'"
# Cached: a second call does no work and says so.
check sh -c "'$BK' --series '$tmp/series' 2>&1 | grep -q cached"
# The booted kernel carries the patch.
check "$ROOT/syntwin" --series "$tmp/series" vm --smp 1 -- sh /src/tests/guest/kernel_is_ours.sh syntwin-series-test

# Bad series, each exit 2 with a message naming the problem.
check "$EXPECT" --status 2 --stderr "no such directory" -- "$BK" --series "$tmp/nope"
mkdir "$tmp/empty"
check "$EXPECT" --status 2 --stderr "no 'series' file" -- "$BK" --series "$tmp/empty"
mkdir "$tmp/missing" && echo "0001-gone.patch" >"$tmp/missing/series"
check "$EXPECT" --status 2 --stderr "names '0001-gone.patch', which does not exist" -- "$BK" --series "$tmp/missing"
mkdir "$tmp/broken"
sed 's/linux_banner);$/linux_banner_NOT_THERE);/' "$tmp/series/0099-trivial.patch" >"$tmp/broken/0001-broken.patch"
echo 0001-broken.patch >"$tmp/broken/series"
check "$EXPECT" --status 2 --stderr "patch 0001-broken.patch does not apply" --stderr "Hunk #1 FAILED" \
	-- "$BK" --series "$tmp/broken" --base "$ref"
sed 's/^CONFIG_VETH=y$/&\nCONFIG_SYNTWIN_NO_SUCH_OPTION=y/' "$ROOT/kernel-series/qemu.config" >"$tmp/bad.config"
check "$EXPECT" --status 2 --stderr "CONFIG_SYNTWIN_NO_SUCH_OPTION=y" --stderr "not set after olddefconfig" \
	-- "$BK" --config "$tmp/bad.config" --base "$ref"
[ $fail = 0 ] && echo "kernel_series: all checks passed"
exit $fail
