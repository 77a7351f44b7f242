#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `--tree`'s cache key and its refusals, on a small git tree shaped like a kernel's (pure
# userspace, no build): the key is the content built, so a series applied from an mbox
# (--patches) on its base is the series' own commit; an uncommitted change is keyed by its
# content (committed, the same key); an untracked file counts, an ignored one does not; a dirty
# checkout with --patches, a directory that is no checkout, no kernel or not its top are
# refused, naming why. The real tree (a build, O=, bisect): tests/tree.sh, the workflow's job.
set -u
. "$(dirname "$0")/lib.sh"
bt=$ROOT/vm/build-tree.sh
t=$tmp/linux
mkdir -p "$t/net/ipv4"
printf 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 0\n' >"$t/Makefile"
printf 'int tcp_input;\n' >"$t/net/ipv4/tcp_input.c"
printf '*.o\n' >"$t/.gitignore"
g() { git -C "$t" -c user.name=t -c user.email=t@example.org -c commit.gpgsign=false "$@"; }
g init -q -b main && g add -A && g commit -q -m base && g tag base
printf 'int tcp_input = 1;\n' >"$t/net/ipv4/tcp_input.c"
g commit -q -am "tcp: one" -m "Message-Id: <one@example.org>"
printf 'int saved_syn;\n' >"$t/net/ipv4/tcp_minisocks.c"
g add -A && g commit -q -m "tcp: two" && g tag series
g format-patch -q --stdout base..series >"$tmp/series.mbox"
key() { "$bt" --key-only "$@"; }

series=$(key --tree "$t")
g checkout -q base
base=$(key --tree "$t")
check [ "$(key --tree "$t" --patches "$tmp/series.mbox")" = "$series" ]
check [ "$base" != "$series" ]
# a directory of patches is the same series
mkdir "$tmp/dir" && g format-patch -q -o "$tmp/dir" base..series
check [ "$(key --tree "$t" --patches "$tmp/dir")" = "$series" ]
# the fragment is part of the key
printf 'CONFIG_NET=y\n' >"$tmp/frag"
check [ "$(key --tree "$t" --config "$tmp/frag")" != "$base" ]

# an uncommitted change: keyed by its content; the same change committed is the same kernel
# (whatever the user's diff settings: no prefixes, colour)
printf 'int tcp_input = 2;\n' >"$t/net/ipv4/tcp_input.c"
dirty=$(key --tree "$t")
check [ "$dirty" != "$base" ]
g config diff.noprefix true && g config color.diff always
check [ "$(key --tree "$t")" = "$dirty" ]
g config --unset diff.noprefix && g config --unset color.diff
g commit -q -am "tcp: dirty, committed"
check [ "$(key --tree "$t")" = "$dirty" ]
g checkout -q base
# an untracked file counts; an ignored one does not
printf 'x\n' >"$t/net/ipv4/new.c"
check [ "$(key --tree "$t")" != "$base" ]
rm "$t/net/ipv4/new.c"
printf 'x\n' >"$t/net/ipv4/tcp_input.o"
check [ "$(key --tree "$t")" = "$base" ]

# refusals, each naming why (status 2)
refused() { # TEXT ARGS...: refused with TEXT on stderr
	_want=$1
	shift
	_rc=0
	"$bt" --key-only "$@" >/dev/null 2>"$tmp/err" || _rc=$?
	[ "$_rc" = 2 ] && grep -qF "$_want" "$tmp/err" || { echo "status $_rc: $(cat "$tmp/err")"; return 1; }
}
printf 'int tcp_input = 3;\n' >"$t/net/ipv4/tcp_input.c"
check refused "has uncommitted changes (git status); commit or stash them first" --tree "$t" --patches "$tmp/series.mbox"
g checkout -q -- net/ipv4/tcp_input.c
check refused "does not apply" --tree "$t" --patches "$ROOT/kernel-series/6.1/0001-tcp-add-SNMP-counters-for-saved-SYN-headers.patch"
mkdir "$tmp/spaced" && cp "$tmp/dir"/0001-*.patch "$tmp/spaced/a b.patch"
check refused "a patch file's name may not contain white space" --tree "$t" --patches "$tmp/spaced"
mkdir "$tmp/plain"
check refused "not a git checkout" --tree "$tmp/plain"
check refused "give the checkout's top directory" --tree "$t/net"
g rm -q net/ipv4/tcp_input.c && g commit -q -m "no tcp"
check refused "not a Linux kernel tree" --tree "$t"
# and the options of syntwin itself
check "$ROOT/tests/expect.sh" --status 2 --stderr "--tree and --series do not go together" -- \
	"$ROOT/syntwin" --tree "$t" --series none build
check "$ROOT/tests/expect.sh" --status 2 --stderr "--patches goes with --tree" -- \
	"$ROOT/syntwin" --patches "$tmp/series.mbox" build
check "$ROOT/tests/expect.sh" --status 2 --stderr "bisect needs --tree DIR" -- "$ROOT/syntwin" bisect a b
check "$ROOT/tests/expect.sh" --status 2 --stderr "--tree goes with run, vm, build" -- \
	"$ROOT/syntwin" --tree "$t" test
exit "$fail"
