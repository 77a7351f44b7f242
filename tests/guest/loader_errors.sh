#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest test: syntwin-loader's error paths each exit nonzero, say what is wrong, and leave no
# pins behind.
set -u
fail=0
expect() { # STATUS TEXT -- CMD...
	want=$1 text=$2
	shift 3
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" != "$want" ] || ! printf '%s' "$out" | grep -qF -- "$text"; then
		echo "FAIL: '$*' -> exit $rc, output: $out (want exit $want and '$text')"
		fail=1
	else
		echo "ok: $* -> exit $rc: $text"
	fi
	if [ "$want" != 0 ] && { [ -e /sys/fs/bpf/syntwin/syn_by_flow ] || [ -e /sys/fs/bpf/syntwin/prog_syn_capture ]; }; then
		echo "FAIL: pins left after '$*'"
		fail=1
	fi
}
expect 1 "no such device 'nope0'" -- syntwin-loader attach --dev nope0 --cgroup /sys/fs/cgroup
expect 1 "no network namespace 'nope'" -- syntwin-loader attach --netns nope --dev lo --cgroup /sys/fs/cgroup
expect 1 "cgroup /nonexistent" -- syntwin-loader attach --dev lo --cgroup /nonexistent
expect 2 "--entries: 1 is out of range" -- syntwin-loader attach --dev lo --cgroup /sys/fs/cgroup --entries 1
expect 1 "is the witness attached?" -- syntwin-loader stats
umount /sys/fs/bpf
expect 1 "bpffs is not mounted" -- syntwin-loader attach --dev lo --cgroup /sys/fs/cgroup
mount -t bpf bpf /sys/fs/bpf
# And the loopback device works as a capture point (ARPHRD_LOOPBACK: 14-byte MAC header).
expect 0 "attached: tc ingress on 1 device(s)" -- syntwin-loader attach --dev lo --cgroup /sys/fs/cgroup
syntwin-loader detach >/dev/null || { echo "FAIL: detach"; fail=1; }
[ $fail = 0 ] && echo "loader_errors: all checks passed"
exit $fail
