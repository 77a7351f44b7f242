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
# The name of the program the witness's drop link holds (bpftool names it by its BTF, whole).
drop_prog() {
	id=$(bpftool link show pinned /sys/fs/bpf/syntwin/link_syn_drops | sed -n 's/.* prog \([0-9]*\).*/\1/p')
	bpftool -j prog show id "$id" | jq -r .name
}
expect 1 "no such device 'nope0'" -- syntwin-loader attach --dev nope0 --cgroup /sys/fs/cgroup
expect 1 "no network namespace 'nope'" -- syntwin-loader attach --netns nope --dev lo --cgroup /sys/fs/cgroup
expect 1 "cgroup /nonexistent" -- syntwin-loader attach --dev lo --cgroup /nonexistent
expect 2 "--entries: 1 is out of range" -- syntwin-loader attach --dev lo --cgroup /sys/fs/cgroup --entries 1
# Every flag with a missing, malformed or out-of-range value: exit 2, named.
expect 2 "no command" -- syntwin-loader
expect 2 "unknown command 'attack'" -- syntwin-loader attack
expect 2 "--dev: missing value" -- syntwin-loader attach --cgroup /sys/fs/cgroup --dev
expect 2 "is longer than an interface name" -- syntwin-loader attach --dev abcdefghijklmnopq --cgroup /sys/fs/cgroup
expect 2 "is not an interface name" -- syntwin-loader attach --dev @server --cgroup /sys/fs/cgroup
expect 2 "no network namespace after '@'" -- syntwin-loader attach --dev s0@ --cgroup /sys/fs/cgroup
expect 2 "--netns: missing value" -- syntwin-loader attach --dev lo --cgroup /sys/fs/cgroup --netns
expect 2 "--cgroup: missing value" -- syntwin-loader attach --dev lo --cgroup
expect 2 "needs at least one --dev and a --cgroup" -- syntwin-loader attach --dev lo
expect 2 "needs at least one --dev and a --cgroup" -- syntwin-loader attach --cgroup /sys/fs/cgroup
expect 2 "--entries: missing value" -- syntwin-loader attach --dev lo --cgroup /sys/fs/cgroup --entries
expect 2 "--entries" -- syntwin-loader attach --dev lo --cgroup /sys/fs/cgroup --entries 12k
expect 2 "--entries: 16777217 is out of range" -- syntwin-loader attach --dev lo --cgroup /sys/fs/cgroup --entries 16777217
expect 2 "attach: unknown option '--json'" -- syntwin-loader attach --dev lo --cgroup /sys/fs/cgroup --json
expect 2 "detach: unknown option '--dev'" -- syntwin-loader detach --dev lo
expect 2 "lookup: needs --cookie" -- syntwin-loader lookup
expect 2 "--cookie" -- syntwin-loader lookup --cookie abc
expect 2 "--cookie: 0 is out of range" -- syntwin-loader lookup --cookie 0
expect 2 "stats: unknown option '--cookie'" -- syntwin-loader stats --cookie 5
expect 1 "is the witness attached?" -- syntwin-loader stats
umount /sys/fs/bpf
expect 1 "bpffs is not mounted" -- syntwin-loader attach --dev lo --cgroup /sys/fs/cgroup
mount -t bpf bpf /sys/fs/bpf
# A witness feature the kernel lacks (withheld by SYNTWIN_WITNESS_WITHOUT on a kernel that has
# it): named with the proofs it carries, nothing attached; trampolines too without the memory
# follower (the drop rule's programs need them). Without drop reasons the witness attaches, and
# says what it does not prove (guest.run_no_drop_reasons: those verdicts unexplained).
expect 0 "witness without kfree_skb drop reasons: it does not prove why the kernel dropped a copy" -- \
	env SYNTWIN_WITNESS_WITHOUT=drop_reasons syntwin-loader attach --dev lo --cgroup /sys/fs/cgroup
# ... with the program that reads no reason
[ "$(drop_prog)" = syn_drop_no_reason ] ||
	{ echo "FAIL: drop reasons withheld, yet not syn_drop_no_reason attached"; fail=1; }
# ... and a second attach, with every feature, changes nothing and says so
expect 0 "already attached" -- syntwin-loader attach --dev lo --cgroup /sys/fs/cgroup
syntwin-loader detach >/dev/null || { echo "FAIL: detach"; fail=1; }
expect 1 "SYNTWIN_WITNESS_WITHOUT: 'drop-reasons' is no witness feature" -- \
	env SYNTWIN_WITNESS_WITHOUT=drop-reasons syntwin-loader attach --dev lo --cgroup /sys/fs/cgroup
expect 1 "this kernel has no hash map lookup-and-delete, by which the witness proves each connection's capture" -- \
	env SYNTWIN_WITNESS_WITHOUT=lookup_and_delete syntwin-loader attach --dev lo --cgroup /sys/fs/cgroup
expect 1 "this kernel has no ring buffer" -- \
	env SYNTWIN_WITNESS_WITHOUT=ring_buffer syntwin-loader attach --dev lo --cgroup /sys/fs/cgroup
expect 1 "this kernel has no BPF trampolines, by which the witness proves the packet each saved copy was made from" -- \
	env SYNTWIN_WITNESS_WITHOUT=trampolines syntwin-loader attach --dev lo --cgroup /sys/fs/cgroup
expect 1 "and which drops are a copy's own, not a clone's (the end of each copy's sk_buff record)" -- \
	env SYNTWIN_WITNESS_WITHOUT=trampolines syntwin-loader attach --dev lo --cgroup /sys/fs/cgroup \
	--no-memory-follower
# And the loopback device works as a capture point (ARPHRD_LOOPBACK: 14-byte MAC header), on a
# kernel with every feature the witness needs.
expect 0 "witness features: ring buffer, kfree_skb drop reasons, BPF trampolines, hash map lookup-and-delete" -- syntwin-loader attach --dev lo --cgroup /sys/fs/cgroup
[ "$(drop_prog)" = syn_drop ] ||
	{ echo "FAIL: the kernel's drop reasons, yet not syn_drop attached"; fail=1; }
syntwin-loader detach >/dev/null || { echo "FAIL: detach"; fail=1; }
expect 0 "attached: tc ingress and egress on 1 device(s)" -- syntwin-loader attach --dev lo --cgroup /sys/fs/cgroup
syntwin-loader detach >/dev/null || { echo "FAIL: detach"; fail=1; }
[ $fail = 0 ] && echo "loader_errors: all checks passed"
exit $fail
