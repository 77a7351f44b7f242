#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of `syntwin run`, the glue only: topology, the wire's faults, the witness, the
# server netns's sysctls, then syntwin-server, the run's driver (gen/driver.c), which plans
# the run, makes the connections and judges them. Results go to /mnt/share (the host's --out
# directory). Where the series declares the SYN-ACK save for active
# opens (its provides file: synack-save, patch 0002), every socket connection also checks the
# active direction: the witness watches c0 too.
# usage: run-guest.sh CONNECTIONS SEED SERIES_HASH ENTRIES MIX PARALLEL RERUN SHARD
#                     [--netem SPEC] [--netem-back SPEC] [--capture-points LIST]
#                     [--xdp-mode auto|generic] [SERVER ARGS...]
# RERUN 1: rerun.jsonl in the share is an earlier run's records (same CONNECTIONS, SEED, MIX);
# only the connections that were not identical there are made again.
# SHARD I/N (or -): each generator makes only the indexes i % N == I of the whole run's sequence
# (gen/rerun.h), the planned handshakes only in shard 0; `syntwin merge` joins the N results.
# --test-fault panic|kill-server (TEST ONLY, first of the server args): the server does it right
# after its 1,500th record reached the disk (tests/faults.sh knows that number); splat: the
# guest kernel logs a WARN at the end; reset: the server resets socket connection #5 once it has
# judged it, and the client waits for that reset before it checks the connection.
# --capture-points: the points beside tc (xdp, tcp, wire; docs/capture-points.md), the BPF ones
# attached with the witness, all compared with the kernel's copy by the server; --xdp-mode
# generic: XDP in generic mode even where the driver has its own.
# Environment: SYNTWIN_OUT (default /mnt/share), where results go; SYNTWIN_PROVIDES (default
# $SYNTWIN_OUT/provides, which `syntwin run` copies there), the series' declaration. The kernel
# tree's facts (compare/tree_facts.h) come from the host's build in the ctl share (/mnt/ctl/tree).
set -eu
out=${SYNTWIN_OUT:-/mnt/share}
provides=${SYNTWIN_PROVIDES:-$out/provides}
tree=/mnt/ctl/tree
# Where the time goes (timing.json; the bench and `syntwin run` report it): guest uptime now is
# the boot, then topology + attach, connections, collect + report.
up() { cut -d ' ' -f 1 /proc/uptime; }
since() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
t_start=$(up)
n=$1 seed=$2 shash=$3 entries=$4 mix=$5 parallel=$6 rerun=$7 shard=$8
shift 8
splat='' netem='' netem_back='' points='' xdp_mode=auto
# this script's own options first (netem's), then the server's
while [ $# -ge 2 ]; do
	case $1 in
	--netem) netem=$2 ;;
	--netem-back) netem_back=$2 ;;
	--capture-points) points=$2 ;;
	--xdp-mode) xdp_mode=$2 ;;
	*) break ;;
	esac
	shift 2
done
if [ "${1:-}" = --test-fault ]; then
	case $2 in
	panic | kill-server) set -- "$@" --test-fault-after 1500 ;;
	splat) splat=1; shift 2 ;; # the guest kernel logs a WARN once the run is done
	reset) shift 2; set -- "$@" --test-reset 5 ;;
	*) echo "syntwin: --test-fault '$2' is not panic, kill-server, splat or reset" >&2; exit 2 ;;
	esac
fi
# an earlier run's records: only the connections that were not identical there (gen/rerun.h)
rerun_file=
[ "$rerun" = 0 ] || rerun_file=$out/rerun.jsonl
/src/compare/topology.sh up
# Faults on the wire: tc's netem as the root qdisc of c0 (client -> server) and of s0 (server ->
# client). The witness's tc ingress on s0 sees what netem let through; a SPEC tc refuses is a
# setup error, named by tc itself.
# shellcheck disable=SC2086 # SPEC is netem's own words (the host allowed [A-Za-z0-9.% ] only)
[ -z "$netem" ] || tc -n client qdisc add dev c0 root netem $netem ||
	{ echo "syntwin: --netem '$netem': tc refused it (a setup error)" >&2; exit 2; }
# shellcheck disable=SC2086
[ -z "$netem_back" ] || tc -n server qdisc add dev s0 root netem $netem_back ||
	{ echo "syntwin: --netem-back '$netem_back': tc refused it (a setup error)" >&2; exit 2; }
# However this ends, the guest is left as it was (so a test can run it twice in one boot).
trap 'syntwin-loader detach >/dev/null 2>&1; /src/compare/topology.sh down >/dev/null 2>&1' EXIT
# What the series declares (the host copied its provides file here, common/provides.h), never
# what the kernel says of itself: a declared SYN-ACK save is checked (the witness on c0 too).
cdev='' rc=0
syntwin-plan --provides "$provides" --declares synack-save || rc=$?
case $rc in
0) cdev="--dev c0@client" ;;
1) ;;
*) echo "syntwin: $provides: the series' declaration is not valid (a setup error)" >&2; exit 2 ;;
esac
# the capture points beside tc: the BPF ones attached with the witness, on the server's devices
pdevs=s0,tun0,tap0 pattach='' pserver=''
if [ -n "$points" ]; then
	pattach="--points $points"
	[ "$xdp_mode" = auto ] || pattach="$pattach --xdp-generic"
	pserver="--capture-points $points --point-devs $pdevs"
fi
# shellcheck disable=SC2086
syntwin-loader attach --netns server --dev s0 --dev tun0 --dev tap0 $cdev --cgroup /sys/fs/cgroup --entries "$entries" $pattach ||
	{ echo "syntwin: the witness did not attach (a setup error, not a verdict)" >&2; exit 2; }
# The server netns's sysctls, in one process (each `ip netns exec` costs a fraction of a second
# under TCG):
# - tcp_max_tw_buckets: room for every TIME_WAIT socket (the netns default here is 4096). An
#   overflowing TIME_WAIT socket is destroyed at once, and a late segment of its flow then
#   reaches the listener; while syncookies are forced its cookie is still valid and the kernel
#   accepts a second connection that never had a SYN (seen: the same 4-tuple accepted twice,
#   no BPF capture, no saved SYN).
# - tcp_synack_retries 1: a request whose handshake is abandoned expires after one SYN-ACK
#   retransmission (3 s), well inside the run: its saved copy must be freed by the end (the
#   memory follower checks).
# - tcp_fastopen 514: Fast Open SYNs carry data without a cookie; the server takes it without
#   one (TFO 0x202).
ip netns exec server sh -c "echo $((4 * n + 4096)) > /proc/sys/net/ipv4/tcp_max_tw_buckets &&
	echo 1 > /proc/sys/net/ipv4/tcp_synack_retries && echo 514 > /proc/sys/net/ipv4/tcp_fastopen"
# The server is the run's driver (gen/driver.c): it writes the plan (gen/plan.c,
# plan.json, before anything runs: how many connections each generator makes with which seed,
# and what it waits for), and makes every connection itself, in its own event loop: the
# planned handshakes (gen/planned.c), the crafted phase (gen/crafted_gen.c: tun0, fuzzed
# shapes, tap0; or a capture's SYNs replayed), then the socket-knob connections
# (gen/sock_gen.c), whose syncookie phase sits in the middle. The mix: default = 5% crafted
# SYNs on tun0 (every profile shape, plus the must-drop ones), 2% fuzzed ones, 1% profile
# shapes as Ethernet frames on tap0, the rest from the socket-knob generator, 1% of it with
# syncookies forced; plus the planned handshakes: 16 whose first SYN-ACK is held back, 24
# abandoned, and where the kernel saves SYN-ACKs 16 active connections that get their SYN-ACK
# twice. sockets / plain = the socket generator only; crafted = profile shapes only; fuzz =
# fuzzed shapes only; replay = every SYN of the capture. A rerun makes again only what was
# not identical.
t_attached=$(up)
rm -f /tmp/server-generated
src=0
syntwin-server --out "$out" --seed "$seed" --series-hash "$shash" --shard "$shard" \
	--run-connections "$n" --run-mix "$mix" --run-parallel "$parallel" --provides "$provides" \
	--tree "$tree" \
	${rerun_file:+--run-rerun "$rerun_file"} --generated-file /tmp/server-generated \
	--netem "$netem" --netem-back "$netem_back" $pserver "$@" || src=$?
t_end=$(up)
# the server wrote the uptime its last generator finished at (none if it stopped before)
t_generated=$(cat /tmp/server-generated 2>/dev/null) || t_generated=$t_end
printf '{"boot_s": %s, "topology_attach_s": %s, "connections_s": %s, "collect_report_s": %s, "guest_total_s": %s}\n' \
	"$t_start" "$(since "$t_start" "$t_attached")" "$(since "$t_attached" "$t_generated")" \
	"$(since "$t_generated" "$t_end")" "$t_end" >"$out/timing.json" || true
# TEST ONLY (--test-fault splat): a line in the kernel's log as WARN() writes it; the runner's
# scan of that log (vm/splat.c) must fail the otherwise clean run
[ -z "$splat" ] || echo "WARNING: CPU: 0 PID: 1 at syntwin-test: a test-only splat (--test-fault splat)" >/dev/kmsg
exit $src
