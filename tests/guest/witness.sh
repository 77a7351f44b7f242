#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest test of the BPF witness: attach in the server netns, run guest_witness (captures vs
# TCP_SAVED_SYN over veth and tun), then detach and check nothing is left behind.
set -eu
/src/compare/topology.sh up
fail=0
syntwin-loader attach --netns server --dev s0 --dev tun0 --cgroup /sys/fs/cgroup --entries 4096
# Idempotent: a second attach changes nothing and succeeds.
syntwin-loader attach --netns server --dev s0 --dev tun0 --cgroup /sys/fs/cgroup
guest_witness ${WITNESS_ARGS:-} || fail=1
syntwin-loader stats
# By hand: a connection no consumer takes stays in the flow map, bound to its socket's cookie;
# dump shows it (and only it: guest_witness took every other) and lookup finds it by that cookie.
ip netns exec server nc -l -p 7999 -e true &
sleep 1
ip netns exec client nc -w 5 "$(syntwin-topology | sed -n 's/^TOPO_SERVER4=//p')" 7999 </dev/null || true
wait
dump=$(syntwin-loader dump --json)
echo "$dump"
cookie=$(printf '%s\n' "$dump" | jq -r 'select(.bound) | .cookie')
[ "$(printf '%s\n' "$dump" | jq -s 'map(select(.bound)) | length')" = 1 ] && [ "$cookie" -gt 0 ] ||
	{ echo "FAIL: dump shows no single bound capture"; fail=1; cookie=1; }
[ "$(syntwin-loader lookup --cookie "$cookie" --json | jq -r '.cookie')" = "$cookie" ] ||
	{ echo "FAIL: lookup --cookie $cookie"; fail=1; }
syntwin-loader detach || fail=1
left=$(ip netns exec server tc filter show dev s0 ingress; ip netns exec server tc filter show dev tun0 ingress;
	ip netns exec server tc qdisc show dev s0 | grep clsact || true)
[ -z "$left" ] || { echo "FAIL: tc state left after detach: $left"; fail=1; }
# A tracing program goes when its trampoline is updated, after an RCU tasks grace period
# (later than detach returns): each must be gone within 10 s.
programs_left() { bpftool prog show | grep -E 'syn_capture|syn_sockops|syn_drop|made_'; }
i=0
while programs_left >/dev/null && [ $i -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
if programs_left; then echo "FAIL: programs left after detach"; fail=1; fi
[ ! -e /sys/fs/bpf/syntwin ] || { echo "FAIL: /sys/fs/bpf/syntwin left after detach"; fail=1; }
[ $fail = 0 ] && echo "witness: detach left no trace"
exit $fail
