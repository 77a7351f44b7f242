#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The capture points beside tc (--capture-points, docs/capture-points.md), end to end.
# usage: capture_points.sh clean|corrupt
#  clean:   the default mix with every point: exit 0, every point's copy of every compared SYN
#           identical or explained by its own bytes, every point on the same records; the
#           point after IP (tcp) explains nothing; IPv4 options before IP are explained as
#           rewritten and identical at TCP; the wire's QinQ frames show both tags; the wire's
#           files hold every SYN it saw; p0f and tshark on the wire's frames agree with the
#           fingerprints syntwin gives them, Fast Open SYNs and p0f's probes among them
#  corrupt: one byte of every 20th copy at one point changed (test-only hook), for each point
#           in turn: that point fails exactly there, every other point and tc pass
set -u
. "$(dirname "$0")/lib.sh"
out=$tmp/run
sj() { jq -r "$1" "$out/summary.json"; }
jc() { jq -s "[.[] | select($1)] | length" "$out/connections.jsonl"; }
# records a point compared (identical, explained, unexplained), from its summary row
compared() { sj "[.capture_points.\"$1\" | .identical, (.explained | add // 0), .unexplained] | add"; }

case ${1:-} in
clean)
	"$ROOT/syntwin" run --connections 1500 --capture-points all --out "$out" >"$tmp/log" 2>&1
	rc=$?
	tail -n 3 "$tmp/log"
	check [ "$rc" = 0 ]
	check [ "$(sj .unexplained)" = 0 ]
	check [ "$(sj '.capture_points | keys | join(",")')" = "tc,tcp,wire,xdp" ]
	# the kernel's choice of XDP mode for these drivers: veth and tap have their own
	check [ "$(sj .capture_points.xdp.modes)" = "s0 native, tun0 generic, tap0 native" ]
	passive=$(jc '.direction == "passive" and .native_len > 0 and .copies > 0')
	check [ "$passive" -gt 1000 ]
	check [ "$(jc '.points')" = "$(jc '.direction == "passive" and .cookie > 0')" ]
	for p in xdp tcp wire; do
		check [ "$(sj ".capture_points.$p.unexplained")" = 0 ]
		check [ "$(sj ".capture_points.$p.lost")" = 0 ]
		check [ "$(sj ".capture_points.$p.test_corrupted")" = 0 ]
		# every point on the same records as tc: those with the kernel's copy and a SYN
		check [ "$(compared "$p")" = "$(compared tc)" ]
		check [ "$(jc ".points.$p.verdict == \"identical\" or .points.$p.verdict == \"explained\"")" = "$(compared tc)" ]
	done
	check [ "$(compared tc)" = "$(jc '.points and .native_len > 0 and (.copies > 0)')" ]
	# after IP receive processing there is nothing to explain
	check [ "$(sj '.capture_points.tcp.explained | length')" = 0 ]
	# IPv4 options: as received before IP (explained by the rewrite model), rewritten at TCP
	opt=$(jc '.points.xdp.reason == "ipv4-option-rewrite"')
	check [ "$opt" -gt 0 ]
	check [ "$(jc '.points.wire.reason == "ipv4-option-rewrite"')" = "$opt" ]
	check [ "$(jc '.points.xdp.reason == "ipv4-option-rewrite" and .points.tcp.verdict == "identical" and .points.wire.reason == "ipv4-option-rewrite"')" = "$opt" ]
	# QinQ in mode 2: the wire shows both tags (libpcap puts the outer one back), XDP the
	# inner one (the outer is in metadata), TCP neither
	qinq=$(jc '(.knobs | test("vlan=qinq")) and .mode == 2 and .points')
	check [ "$qinq" -gt 0 ]
	check [ "$(jc '(.knobs | test("vlan=qinq")) and .mode == 2 and .points and .points.wire.mac_len == 22 and (.points.wire.detail | test("two in-band VLAN tags")) and .points.xdp.mac_len == 18 and .points.tcp.verdict == "identical"')" = "$qinq" ]
	# the wire's files: every SYN it saw, Ethernet devices and tun0 apart, as many as XDP's
	# program saw on the same devices (an independent count)
	frames=0
	for f in "$out/wire.pcap" "$out/wire-RAW.pcap"; do
		check [ -s "$f" ]
		frames=$((frames + $(tshark -r "$f" -T fields -e frame.number 2>/dev/null | grep -c .)))
	done
	check [ "$frames" = "$(sj .capture_points.wire.syn_seen)" ]
	check [ "$frames" = "$(sj .capture_points.xdp.syn_seen)" ]
	check [ "$(sj .capture_points.wire.dropped)" = 0 ]
	# fingerprints of the packet the wire carried: p0f and tshark on its frames agree with
	# syntwin for every passive record, SYNs with data (Fast Open: p0f's payload class '+')
	# and p0f's own probe shapes (which p0f reports as "sendsyn probe") among them
	"$ROOT/syntwin" fingerprints "$out" >"$tmp/fingerprints" 2>&1
	check [ $? = 0 ]
	wired=$(jc '.direction == "passive" and .ja4t_wire != null and .ja4t_wire != ""')
	check [ "$wired" = "$(jc '.points.wire.verdict == "identical" or .points.wire.verdict == "explained"')" ]
	p0f=$(jc '.direction == "passive" and .p0f_wire != null and .p0f_wire != ""')
	check grep -q "on the wire's capture (wire-syns.pcap): p0f's own raw_sig and label equal syntwin's for $p0f of $p0f passive records ($p0f p0f log lines, $p0f of them" "$tmp/fingerprints"
	check grep -q "on the wire's capture (wire-syns.pcap): tshark's JA4T equals syntwin's for $wired of $wired passive records ($wired frames dissected, $wired of them" "$tmp/fingerprints"
	# (p0f fingerprints no IPv6 SYN with extension headers: those have no p0f_wire)
	tfo=$(jc '.direction == "passive" and (.knobs | test("tfo")) and .p0f_wire != null and .p0f_wire != ""')
	check [ "$tfo" -gt 0 ]
	check [ "$(jc '.direction == "passive" and (.knobs | test("tfo")) and .p0f_wire != null and (.p0f_wire | endswith(":+"))')" = "$tfo" ]
	# p0f's probes by p0f's own rule (window 1337, MSS 1331): the profile's two, and fuzzed
	# shapes that kept both
	probes=$(jc '.direction == "passive" and .p0f_wire != null and (.p0f_wire | test(":1331:1337,"))')
	check [ "$probes" -ge 2 ]
	check [ "$(jc '.knobs | test("^edge/p0f-sendsyn")')" -ge 2 ]
	p0f -r "$out/wire-syns.pcap" -o "$tmp/p0f.log" >/dev/null 2>&1
	check [ "$(grep -c ' mod=sendsyn probe|' "$tmp/p0f.log")" = "$probes" ]
	;;
corrupt)
	for p in xdp tcp wire; do
		mode=auto
		[ "$p" != xdp ] || mode=generic
		"$ROOT/syntwin" run --connections 300 --capture-points all --xdp-mode "$mode" \
			--test-corrupt-point "$p:20" --out "$out.$p" >"$tmp/log.$p" 2>&1
		rc=$?
		out=$out.$p
		tail -n 2 "$tmp/log.$p"
		check [ "$rc" = 1 ]
		n=$(sj ".capture_points.$p.test_corrupted")
		# the run's own count holds the point's failures (a merge, report.txt and KTAP read
		# it); tc's row none
		check [ "$(sj .unexplained)" = "$n" ]
		check [ "$(sj .capture_points.tc.unexplained)" = 0 ]
		check [ "$n" -gt 3 ]
		check [ "$(sj ".capture_points.$p.differ")" = "$n" ]
		check [ "$(sj ".capture_points.$p.unexplained")" = "$n" ]
		check [ "$(jc ".points.$p.verdict == \"differ\"")" = "$n" ]
		check [ "$(grep -c "capture point $p: differ" "$tmp/log.$p")" = "$n" ]
		for q in xdp tcp wire; do
			[ "$q" = "$p" ] || check [ "$(sj ".capture_points.$q.unexplained")" = 0 ]
		done
		[ "$p" != xdp ] || check [ "$(sj .capture_points.xdp.modes)" = "s0 generic, tun0 generic, tap0 generic" ]
		out=$tmp/run
	done
	;;
*)
	echo "usage: $0 clean|corrupt" >&2
	exit 2
	;;
esac
exit "$fail"
