#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `syntwin run` end to end. usage: run_checks.sh clean|corrupt|crafted|rerun|netem|merged|followed
# Every exact count the plan and the series fix is an expectation the run checks itself, on
# every kernel (judge/expect.h: summary.json's expectations); these checks are about the
# test itself: the run's exit status, that its expectations are there with the plan's numbers,
# and what each generator must have put on the wire.
#  clean:   10,000 connections -> exit 0, 0 unexplained, every expectation met, complete
#  merged, followed: 2,000 connections with kmem_cache_alloc followed by a twin pair (slab_merge),
#           or by one program (SYNTWIN_FOLLOW_CACHE_ALLOC=1) -> as clean
#  corrupt: every 90th BPF record with a native copy (11 of them) corrupted (test-only hook) -> exit 1, decoded diffs, pcap;
#           then every record an explanation covers made wrong inside that region -> all unexplained
set -u
. "$(dirname "$0")/lib.sh"
out=$tmp/run
num() { jq "[.. | .\"$1\"? | numbers] | first" "$out/summary.json"; }
sj() { jq -r "$1" "$out/summary.json"; }
jc() { jq -s "[.[] | select($1)] | length" "$out/connections.jsonl"; }
# the run's plan (gen/plan.c, fixed number by number in unit.plan): what each check expects
pj() { jq -r "$1" "$out/plan.json"; }
# The rexmit= profile shapes (rexmit-v4 sends 3 copies, rexmit-v6 2): the witness keeps them
# all, the kernel saved the first, each such record is explained naming it. Any other record
# explained so saw copies of its own (a real retransmission), and every extra copy the
# witness counted is on a record.
# A 2,000-connection run with kernel arguments @1 (SYNTWIN_VM_APPEND) that must be as clean as
# the default one: exit 0, nothing unexplained, complete, every expectation met, every saved
# copy freed, each made inside TCP's receive, no owner read (these runs follow kmem_cache_alloc)
clean_2000_with() {
	SYNTWIN_VM_APPEND=$1 "$ROOT/syntwin" run --connections 2000 --out "$out" >"$tmp/log" 2>&1
	rc=$?
	tail -n 3 "$tmp/log"
	check [ "$rc" = 0 ]
	check [ "$(sj .unexplained)" = 0 ]
	check [ "$(sj .partial)" = false ]
	check [ "$(sj .expectations_failed)" = 0 ]
	check [ "$(sj .memory_follower.allocated)" -gt 0 ]
	check [ "$(sj .memory_follower.freed)" = "$(sj .memory_follower.allocated)" ]
	check [ "$(sj .memory_follower.outside_ctx)" = 0 ]
	check [ "$(sj .memory_follower.first_copy_owner)" = none ]
	check [ "$(sj .witness_take.by_program)" -gt 0 ]
	check [ "$(sj .witness_take.fallbacks)" = 0 ]
}
retransmits_exact() {
	n4=$(jc '.knobs | test("rexmit-v4")') n6=$(jc '.knobs | test("rexmit-v6")')
	check [ $((n4 + n6)) -gt 0 ]
	check [ "$(jc '.reason == "syn-retransmit" and (.detail | test("saved copy 1, the one that created the request")) and ((.knobs | test("rexmit-v4")) and .copies == 3 or (.knobs | test("rexmit-v6")) and .copies == 2)')" = $((n4 + n6)) ]
	check [ "$(jc '.reason == "syn-retransmit" and .copies < 2')" = 0 ]
	check [ "$(sj '.explained."syn-retransmit"')" = "$(jc '.reason == "syn-retransmit"')" ]
	check [ "$(sj .bpf_counters.recaptured)" = "$(jq -s '[.[] | .copies - 1 | select(. > 0)] | add // 0' "$out/connections.jsonl")" ]
	check [ "$(sj .bpf_counters.copies_cut)" = 0 ]
	# the planned ones: 16 SYNs retransmitted into their request after a held-back SYN-ACK,
	# each explained with the first copy saved and the SYN-ACK's TSecr agreeing; 8 requests
	# reset, 8 left to expire and 8 whose listener closed, each proven so, its saved copy
	# freed; 16 active sockets that got their SYN-ACK twice, the first saved, the second
	# dropped by the kernel (a challenge ACK)
	# (each planned handshake proven as planned is an expectation of the run: expect.c)
	held=$(pj '.generators."held-back"') ab=$(pj .generators.abandoned) dup=$(pj '.generators."dup-synack"')
	check [ "$held" -gt 0 ]
	check [ "$ab" -gt 0 ]
	check [ "$dup" -gt 0 ]
	check [ "$(jc '.gen == "held-back" and .reason == "syn-retransmit" and .copies == 2 and (.detail | test("saved copy 1, the one that created the request \\(2 dropped \\(NOT_SPECIFIED\\)\\)"))')" = "$held" ]
	check [ "$(jc '(.gen | test("^abandon-")) and .reason == "abandoned"')" = "$ab" ]
	check [ "$(jc '.gen == "dup-synack" and .direction == "active" and .reason == "syn-retransmit" and .copies == 2 and (.detail | test("saved copy 1, the one that established the socket \\(2 dropped \\(TCP_INVALID_SYN\\)\\)"))')" = "$dup" ]
	# reset-before-read (a generator of its own): the peer's RST right behind its ACK, before
	# the read; the witness saw the RST, and the copy read after it is the SYN, byte for byte
	reset=$(pj '.generators."reset-before-read"')
	check [ "$reset" -gt 0 ]
	check [ "$(jc '.gen == "reset-before-read" and .verdict == "identical" and .native_len > 0')" = "$reset" ]
}

# The kernel version the test asked for (SYNTWIN_KERNEL, else the first supported one); the
# run's summary names the tree it judged by (compare/tree_facts.h), which must be that one.
kver=${SYNTWIN_KERNEL:-$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$ROOT/kernel-series/KERNELS" | head -n 1)}
# The must-drop shapes of rejected.syn on this tree: the bad= ones, and the drop= ones whose
# rule holds there (a since=V one from V on); with "rules", their shape and rule names.
must_drop() {
	sed 's/#.*//' "$ROOT/gen/profiles/rejected.syn" | awk -v v="$kver" -v what="$1" '
		function at_least(a, b,  x, y) {
			split(a, x, "."); split(b, y, ".")
			return x[1] + 0 > y[1] + 0 || (x[1] + 0 == y[1] + 0 && x[2] + 0 >= y[2] + 0)
		}
		NF {
			since = ""; rule = ""; bad = 0
			for (i = 2; i <= NF; i++) {
				if ($i ~ /^bad=/) bad = 1
				if ($i ~ /^drop=/) rule = substr($i, 6)
				if ($i ~ /^since=/) since = substr($i, 7)
			}
			if (rule != "" && since != "" && !at_least(v, since)) rule = ""
			if (what == "rules" && rule != "") print $1, rule
			n += bad || rule != ""
		}
		END { if (what != "rules") print n + 0 }'
}

# The run checked its own expectations (judge/expect.h): every one met, and those the plan
# and the series fix are there with the plan's numbers (so none can quietly go missing).
expectations_exact() {
	check [ "$(sj .expectations_failed)" = 0 ]
	check [ "$(sj '[.expectations[] | select(.ok | not)] | length')" = 0 ]
	ew() { sj ".expectations[] | select(.name == \"$1\") | .want"; }
	check [ "$(ew "passive records")" = "$(pj .expect)" ]
	check [ "$(ew "active records")" = "$(pj .expect_active)" ]
	check [ "$(ew "saved copies freed")" = "$(sj .memory_follower.allocated)" ]
	for c in $(jq -r '.declared.counters[]' "$out/plan.json"); do
		check [ "$(ew "counter $c present")" = 1 ]
	done
	check [ "$(jq -r '.declared.counters | length' "$out/plan.json")" = 4 ]
}

# The summary's fingerprint counts are the records' own, and Debian's p0f, run by `syntwin
# fingerprints` on the witness's SYNs (syns.pcap), gives every passive record the raw_sig and
# label syntwin gave it, and fingerprints nothing syntwin says it does not.
fingerprints_exact() {
	both='(.ja4t_native != "" or .p0f_native != "") and (.ja4t_bpf != "" or .p0f_bpf != "")'
	check [ "$(sj .fingerprints.records_both)" = "$(jc "$both")" ]
	check [ "$(jc "$both")" -gt 0 ]
	check [ "$(sj .fingerprints.ja4t_agree)" = "$(jc "$both and .ja4t_native == .ja4t_bpf")" ]
	check [ "$(sj .fingerprints.p0f_label_agree)" = "$(jc "$both and .p0f_label_native == .p0f_label_bpf")" ]
	check [ "$(sj '[.fingerprints.generators[].records] | add')" = "$(jc 'true')" ]
	check [ "$(sj .fingerprints.generators_dropped)" = 0 ]
	# each generator's distinct fingerprints (the witness's copy's, else the kernel's), exactly
	for g in $(sj '.fingerprints.generators[] | select(.distinct_is_lower_bound | not) | "\(.gen)/\(.direction)"'); do
		check [ "$(sj ".fingerprints.generators[] | select(.gen == \"${g%/*}\" and .direction == \"${g#*/}\") | .distinct")" = \
			"$(jq -s "[.[] | select(.gen == \"${g%/*}\" and .direction == \"${g#*/}\") |
				if .ja4t_bpf != \"\" or .p0f_bpf != \"\" then [.ja4t_bpf, .p0f_label_bpf] else [.ja4t_native, .p0f_label_native] end] |
				unique | length" "$out/connections.jsonl")" ]
	done
	"$ROOT/syntwin" fingerprints "$out" >"$tmp/fingerprints" 2>&1
	check [ $? = 0 ]
	p0f=$(jc '.direction == "passive" and .p0f_bpf != ""')
	check [ "$p0f" -gt 0 ]
	check grep -q "equal syntwin's for $p0f of $p0f passive records ($p0f p0f log lines" "$tmp/fingerprints"
}

case $1 in
clean)
	"$ROOT/syntwin" run --connections 10000 --out "$out" >"$tmp/log" 2>&1
	rc=$?
	tail -n 5 "$tmp/log"
	check [ "$rc" = 0 ]
	# The plan (plan.json; unit.plan fixes its numbers for this size: 9,200 socket
	# connections, 92 of them with syncookies forced, 500 crafted on tun, 200 fuzzed, 100 on
	# tap, 16 held back, 24 abandoned, 16 duplicate SYN-ACKs, 8 reset before the read), plus
	# every must-drop profile
	# shape once per crafted run (tun and tap): each generator made exactly its share, each
	# socket connection also checked in the active direction.
	drops=$(($(must_drop count) * 2))
	check [ "$(sj .tree.version)" = "$kver" ]
	expect=$(pj .expect) expect_active=$(pj .expect_active) cookies=$(pj .syncookie_tail)
	ab=$(pj .generators.abandoned)
	check [ "$(pj '[.connections, .mix, .active] | map(tostring) | join(" ")')" = "10000 default true" ]
	check [ "$(sj .connections)" = "$expect" ]
	check [ "$(sj .unexplained)" = 0 ]
	check [ "$(sj .partial)" = false ]
	check [ "$(sj '.generators | [.sockets, .crafted, ."crafted-tap", .fuzz, .replay, ."held-back", ."dup-synack", ."reset-before-read"] | map(tostring) | join(" ")')" = \
		"$(pj '.generators | [.sockets, .crafted, ."crafted-tap", .fuzz, .replay, ."held-back", ."dup-synack", ."reset-before-read"] | map(tostring) | join(" ")')" ]
	check [ "$(sj '.generators | [.rejected, ."abandon-rst", ."abandon-expire", ."abandon-close", .unknown] | map(tostring) | join(" ")')" = \
		"$drops $((ab / 3)) $((ab / 3)) $((ab / 3)) 0" ]
	check [ "$(sj '.explained."rejected-by-kernel"')" = "$drops" ]
	check [ "$(sj '.explained."dropped-by-kernel"')" = 0 ]
	check [ "$(jc '.gen == "rejected" and .reason == "rejected-by-kernel"')" = "$drops" ]
	# The syncookie tail: the run judged each of its connections a cookie one (judge.h:
	# cookie_due) but those reopening a 4-tuple in TIME_WAIT (tests/syncookie_tail.sh finds
	# those in the records, independently), and held the series' counter to it
	want=$("$ROOT/tests/syncookie_tail.sh" "$out")
	check [ $? = 0 ]
	echo "syncookie tail: $cookies connections, ${want:-?} validated by a cookie"
	cookies=${want:-$cookies}
	check [ "$(sj .explained.syncookie)" = "$cookies" ]
	check [ "$(sj '.expectations[] | select(.name == "syncookie connections") | .want')" = "$cookies" ]
	check [ "$(sj .syncookie_cross_check.counter)" = TCPSynNotSavedCookie ]
	check [ "$(sj .tcpext.TCPSynNotSavedCookie)" = "$cookies" ]
	check [ "$(sj .tcpext.TCPSynSaved)" = $((expect - cookies + ab)) ]
	check [ "$(sj .cookie_not_due)" = 0 ]
	check [ "$(sj .cookie_missing)" = 0 ]
	check [ "$(sj .capture_truncated)" = 0 ]
	check [ "$(sj .reader_differs)" = 0 ]
	# the in-kernel readers ran on every bound socket: each record carries their three returns
	check [ "$(jc '(.bpf_syn_reads | length) != 3 and .bpf_len > 0 and .cookie > 0')" = 0 ]
	check [ "$(jc '.direction == "active"')" = "$expect_active" ]
	check [ "$(wc -l <"$out/connections.jsonl")" = $((expect + expect_active + drops + ab)) ]
	# IPv4 option rewrites: every socket SYN with RR or TS options (but the syncookie tail's),
	# every crafted RR shape, and nothing else
	check [ "$(jc '.direction == "passive" and .gen == "sockets" and (.knobs | test("ipopt=(rr|ts)")) and .reason != "syncookie" and .reason != "ipv4-option-rewrite"')" = 0 ]
	check [ "$(jc '.direction == "passive" and (.gen | test("^crafted")) and (.knobs | test("ipopt-rr")) and .reason != "ipv4-option-rewrite"')" = 0 ]
	check [ "$(jc '.reason == "ipv4-option-rewrite" and (.knobs | test("ipopt[=-](rr|ts)") | not)')" = 0 ]
	check [ "$(jc '.reason == "ipv4-option-rewrite"')" -gt 0 ]
	# vlan-offload: exactly the mode-2 records over QinQ (but the syncookie tail's)
	check [ "$(jc '.reason == "vlan-offload"')" = "$(jc '(.knobs | test("vlan=qinq")) and .mode == 2 and .reason != "syncookie"')" ]
	check [ "$(jc '.reason == "vlan-offload" and ((.knobs | test("vlan=qinq")) and .mode == 2 | not)')" = 0 ]
	retransmits_exact
	expectations_exact
	check [ "$(sj .distinct_syn_shapes)" -ge 30 ]
	check [ "$(jc '.small_buffer == "ok"')" = "$(sj .small_buffer_checks)" ]
	check [ "$(jc '.small_buffer != "" and .small_buffer != "ok"')" = 0 ]
	fingerprints_exact
	# the runner boots with slab_nomerge: the follower proved the kmalloc caches unmerged and
	# what owns an address readable (6.1: PG_slab and SLAB_KMALLOC's 0x1000, 6.12: the page
	# type and _SLAB_KMALLOC), so it follows no kmem_cache_alloc, and read the first saved copy
	# freed as a kmalloc cache's; every copy made inside TCP's receive
	check [ "$(sj .memory_follower.kmem_cache_alloc_programs)" = 0 ]
	check [ "$(sj .memory_follower.kmem_cache_alloc_twin)" = false ]
	check grep -Eq "kmem_cache_alloc not followed \(slab_nomerge, no alias in [0-9]+ kmalloc caches; a second kfree reads what owns the address: page_offset_base, vmemmap_base, slab pages by (PG_slab, kmalloc caches by SLAB_KMALLOC 0x1000|page_type, kmalloc caches by _SLAB_KMALLOC)\)" "$tmp/log"
	check [ "$(sj .memory_follower.first_copy_owner)" = kmalloc ]
	check [ "$(sj .memory_follower.outside_ctx)" = 0 ]
	# every feature the witness needs, read from the kernel (loader/witness_features.c)
	check grep -qx "witness features: ring buffer, kfree_skb drop reasons, BPF trampolines, hash map lookup-and-delete" "$tmp/log"
	check [ "$(sj '.witness_features | [.ring_buffer, .drop_reasons, .trampolines, .lookup_and_delete] | map(tostring) | join(" ")')" = "true true true true" ]
	# the comparator took every bound flow entry by take_flow (no allocation a take), none
	# left to bpf()
	check [ "$(sj .witness_take.by_program)" -gt 0 ]
	check [ "$(sj .witness_take.fallbacks)" = 0 ]
	;;
followed)
	# The same kernel with SYNTWIN_FOLLOW_CACHE_ALLOC=1 in the guest's environment: one program
	# follows kmem_cache_alloc though the owner is readable (the way of kernels where it is
	# not), no owner read, and the run is as clean.
	clean_2000_with SYNTWIN_FOLLOW_CACHE_ALLOC=1
	check grep -Eq "kmem_cache_alloc by one program \(slab_nomerge, no alias in [0-9]+ kmalloc caches; SYNTWIN_FOLLOW_CACHE_ALLOC=1 in the environment\)" "$tmp/log"
	check [ "$(sj .memory_follower.kmem_cache_alloc_programs)" = 1 ]
	check [ "$(sj .memory_follower.kmem_cache_alloc_twin)" = false ]
	;;
merged)
	# The same kernel booted with slab_merge after the runner's slab_nomerge: caches merge
	# into the kmalloc ones (an address a saved copy had comes back from any merged cache, in
	# interrupts too), so the follower follows kmem_cache_alloc with a twin pair, and the run
	# is as clean.
	clean_2000_with slab_merge
	check grep -q "kmem_cache_alloc by a twin pair (/proc/cmdline does not turn slab merging off (no slab_nomerge, or a slab_merge after it))" "$tmp/log"
	check [ "$(sj .memory_follower.kmem_cache_alloc_twin)" = true ]
	check [ "$(sj .memory_follower.kmem_cache_alloc_programs)" = 2 ]
	;;
no_drop_reasons)
	# The witness on a kernel whose kfree_skb gives no drop reasons (withheld here: the
	# loader reads the features from the kernel, SYNTWIN_WITNESS_WITHOUT takes one away): it
	# runs and says so, and every SYN the kernel dropped is unexplained for want of a reason,
	# named, where with reasons each is rejected-by-kernel; the must-drop SYNs the kernel
	# consumes without a drop report are explained by their bytes as before. The run fails.
	SYNTWIN_VM_APPEND=SYNTWIN_WITNESS_WITHOUT=drop_reasons "$ROOT/syntwin" run \
		--connections 2000 --out "$out" >"$tmp/log" 2>&1
	rc=$?
	tail -n 3 "$tmp/log"
	check [ "$rc" = 1 ]
	check grep -q "witness without kfree_skb drop reasons: it does not prove why the kernel dropped a copy" "$tmp/log"
	check grep -qx "witness features: ring buffer, BPF trampolines, hash map lookup-and-delete" "$tmp/log"
	check [ "$(sj .witness_features.drop_reasons)" = false ]
	drops=$(($(must_drop count) * 2))
	unexplained=$(sj .unexplained)
	check [ "$unexplained" -gt 0 ]
	check [ "$(jc '.gen == "rejected" and .verdict == "unbound" and (.detail | test("for a reason the witness cannot read on this kernel"))')" = "$unexplained" ]
	check [ $(($(sj '.explained."rejected-by-kernel"') + unexplained)) = "$drops" ]
	check [ "$(jc '.reason == "rejected-by-kernel" and (.detail | test("dropped by the kernel \\(consumed\\)") | not)')" = 0 ]
	check grep -qx "Witness:    ring buffer, no kfree_skb drop reasons, BPF trampolines," "$out/report.txt"
	check grep -qx "            hash map lookup-and-delete" "$out/report.txt"
	;;
corrupt)
	# 524 passive records (500 + 16 held back + 8 reset before the read) and 476 active ones
	# (460 + 16 duplicate SYN-ACKs), 995 of them with both copies (the 5 passive syncookie
	# ones have no native copy): every 90th of those is corrupted, 11 in all
	corrupted=11
	"$ROOT/syntwin" run --connections 500 --test-corrupt 90 --out "$out" >"$tmp/log" 2>&1
	rc=$?
	tail -n 5 "$tmp/log"
	check [ "$rc" = 1 ]
	check [ "$(num unexplained)" = "$corrupted" ]
	check grep -q 'differ: offset [0-9]* (tcp\.' "$tmp/log"
	# every differ record carries both versions in hex
	check [ "$(jc '.verdict == "differ"')" -gt 0 ]
	check [ "$(jc '.verdict == "differ" and (.native | test("^[0-9a-f]+$")) and (.bpf | test("^[0-9a-f]+$"))')" = \
		"$(jc '.verdict == "differ"')" ]
	# Both versions of every non-identical record from the network header on (the native's
	# MAC header, 14 bytes in mode 2 where there is one, left out), a 16-byte header each,
	# after the 24-byte file header: exactly.
	want=$(jq -s '[.[] | select(.verdict != "identical") |
		(if .mode == 2 then ([.bpf_mac_len, 14] | min) else 0 end) as $nm |
		(if .native_len > $nm then 16 + .native_len - $nm else 0 end) +
		(if .bpf_len > .bpf_mac_len then 16 + .bpf_len - .bpf_mac_len else 0 end)] | add + 24' \
		"$out/connections.jsonl")
	check [ "$(stat -c %s "$out/mismatches.pcap")" = "$want" ]
	check [ "$(jc '.verdict == "differ"')" = "$corrupted" ]
	# mismatches.pcapng: the same copies, the MAC header kept where the copy has one (the
	# Ethernet interface, 0), each frame commented with its record, copy, verdict and first
	# difference, as tshark reads them
	tshark -r "$out/mismatches.pcapng" -T fields -E separator=/t -e frame.interface_id \
		-e tcp.flags.syn -e frame.comment >"$tmp/ng.tsv" 2>"$tmp/ng.err"
	check [ $? = 0 ]
	copies=$(jq -s '[.[] | select(.verdict != "identical") |
		(if .mode == 2 then ([.bpf_mac_len, 14] | min) else 0 end) as $nm |
		(if .native_len > $nm then 1 else 0 end) + (if .bpf_len > .bpf_mac_len then 1 else 0 end)] | add' \
		"$out/connections.jsonl")
	with_mac=$(jq -s '[.[] | select(.verdict != "identical") |
		(if .mode == 2 and .native_len > 14 and .bpf_mac_len > 0 then 1 else 0 end) +
		(if .bpf_mac_len > 0 and .bpf_len > .bpf_mac_len then 1 else 0 end)] | add' "$out/connections.jsonl")
	check [ "$(grep -c '' "$tmp/ng.tsv")" = "$copies" ]
	check [ "$(cut -f1 "$tmp/ng.tsv" | grep -c '^0$')" = "$with_mac" ]
	check [ "$with_mac" -gt 0 ]
	# every copy decodes as a SYN but a malformed one the kernel rejected, and one whose IPv6
	# routing header has segments left (tshark goes no further, as a router would forward it)
	check [ "$(cut -f2 "$tmp/ng.tsv" | grep -vc '^1$')" = \
		$(($(grep -c 'explained (rejected-by-kernel): .*TCP data offset below 5' "$tmp/ng.tsv") + $(jc '.knobs == "rejected/rthdr-left-v6"'))) ]
	check [ "$(grep -c "kernel's copy (TCP_SAVED_SYN): differ: offset [0-9]* (tcp\." "$tmp/ng.tsv")" = "$corrupted" ]
	check [ "$(grep -c "witness's copy (tc ingress): differ: offset [0-9]* (tcp\." "$tmp/ng.tsv")" = "$corrupted" ]
	n=$(jq -s -r '[.[] | select(.verdict == "differ")][0].n' "$out/connections.jsonl")
	check [ "$(grep -c "record $n, .*: differ: " "$tmp/ng.tsv")" = 2 ]
	check [ "$(grep -c ': explained (syn-retransmit): the witness saw [0-9] copies' "$tmp/ng.tsv")" -gt 0 ]
	# Inside the regions explanations cover: every record whose kernel copy was made wrong
	# there (an RR/TS slot, the Ethernet type behind a VLAN tag, a retransmitted copy's IP ID,
	# the MAC header where the device has one) is unexplained, and nothing else is.
	"$ROOT/syntwin" run --connections 500 --test-corrupt-covered --out "$out/covered" >"$tmp/log2" 2>&1
	rc=$?
	tail -n 3 "$tmp/log2"
	check [ "$rc" = 1 ]
	out=$out/covered
	check [ "$(num test_corrupted)" = "$(num unexplained)" ]
	check [ "$(grep -c '^TEST CORRUPT: ' "$tmp/log2")" = "$(num test_corrupted)" ]
	for region in ipv4-option-slot vlan-ethertype retransmit-id mac; do
		check [ "$(grep -c "^TEST CORRUPT: $region\$" "$tmp/log2")" -gt 0 ]
	done
	check [ "$(num ipv4-option-rewrite)" = 0 ]
	check [ "$(num vlan-offload)" = 0 ]
	check [ "$(num syn-retransmit)" = 0 ]
	check [ "$(jc '.verdict == "identical" and .mode == 2 and .bpf_mac_len > 0')" = 0 ]
	;;
netem)
	# 2,000 connections, 16 in flight, over a wire that delays the client's packets 1 ms and
	# loses 3 %, duplicates 5 % and reorders 10 % of them: each connection judged exactly once,
	# nothing unexplained, lost or left unbound, every saved copy followed to its kfree.
	# A duplicated (or late) syncookie ACK makes a second child of one SYN (about one run in
	# two of this size): each is one more passive connection, explained syncookie-repeat,
	# and one more second socket of a label. One guest CPU keeps the two-CPU race (both copies
	# of the ACK validated at once, before the first child is judged) out of the counts.
	# A connection whose child never came (its cookie ACK lost: syncookie-no-child) is one
	# passive connection less. Every record shows its SYN's bytes (--hex-all), and every socket
	# knob its label names must be in them: no label crossed to another connection of its port.
	spec='delay 1ms loss 3% duplicate 5% reorder 10%'
	"$ROOT/syntwin" run --connections 2000 --parallel 16 --smp 1 --netem "$spec" --hex-all \
		--out "$out" >"$tmp/log" 2>&1
	rc=$?
	tail -n 3 "$tmp/log"
	check [ "$rc" = 0 ]
	expect=$(pj .expect) expect_active=$(pj .expect_active) ab=$(pj .generators.abandoned)
	check [ "$(sj .netem)" = "$spec" ]
	check [ "$(sj .netem_back)" = "" ]
	repeat=$(sj '.explained."syncookie-repeat"')
	check [ "$repeat" = "$(jc '.reason == "syncookie-repeat" and .direction == "passive"')" ]
	nochild=$(sj '.explained."syncookie-no-child"')
	check [ "$(sj .connections)" = $((expect + repeat - nochild)) ]
	check [ "$(sj .active_connections)" = "$expect_active" ]
	check [ "$(sj .unexplained)" = 0 ]
	check [ "$(sj .partial)" = false ]
	check [ "$(sj .records_lost)" = 0 ]
	check [ "$(sj .unbound_captures)" = 0 ]
	check [ "$(sj .waiting_captures)" = 0 ]
	check [ "$(sj .duplicate_children)" = "$repeat" ]
	check [ "$(sj .syncookie_cross_check.proven)" = $(($(sj .explained.syncookie) + repeat)) ]
	check [ "$(sj .syncookie_cross_check.agree)" = true ]
	drops=$(($(must_drop count) * 2))
	check [ "$(wc -l <"$out/connections.jsonl")" = $((expect + expect_active + drops + ab + repeat)) ]
	# the wire acted: socket SYNs the witness saw more than once (lost and sent again, or
	# duplicated), each judged on the copy that made its connection
	check [ "$(jc '.direction == "passive" and .gen == "sockets" and .copies > 1')" -gt 0 ]
	check [ "$(jc '.gen == "sockets" and .copies > 1 and .verdict != "explained" and .verdict != "identical"')" = 0 ]
	# every expectation of a faulty wire's run met (the memory follower's among them: each
	# saved copy freed once, none left), none of a clean wire's applied
	check [ "$(sj .expectations_failed)" = 0 ]
	check [ "$(sj '[.expectations[] | select(.name == "saved copies" or .name == "passive SYNs bound")] | length')" = 0 ]
	check [ "$(sj '[.expectations[] | select(.name == "saved copies freed")] | length')" = 1 ]
	check "${SYNTWIN_BUILD:?}/tests/knob_wire_check" --lossy "$out/connections.jsonl"
	echo "netem: $(jc '.copies > 1') records with more than one copy, $(sj .late_copies) late copies, $(sj .late_answers) late answers, $repeat syncookie repeats, $nochild without a child"
	;;
crafted)
	# Every shipped profile shape is accepted and compared; every must-drop one is rejected.
	"$ROOT/syntwin" run --connections 87 --mix crafted --out "$out" >"$tmp/log" 2>&1
	rc=$?
	tail -n 3 "$tmp/log"
	check [ "$rc" = 0 ]
	check [ "$(num unexplained)" = 0 ]
	check [ "$(num crafted)" = 87 ]
	check [ "$(sj .tree.version)" = "$kver" ]
	# 4 spoiled shapes and 25 made by a drop rule (one of which holds from 6.7 on)
	drops=$(must_drop count)
	check [ "$(sed 's/#.*//' "$ROOT/gen/profiles/rejected.syn" | grep -c 'drop=')" = 25 ]
	check [ "$(num rejected-by-kernel)" = "$drops" ]
	check [ "$(num unbound_captures)" = 0 ]
	check [ "$(num dropped-by-kernel)" = 0 ]
	check [ "$(jc '.gen == "rejected" and .reason == "rejected-by-kernel"')" = "$drops" ]
	# each shape made by a drop rule is explained by that rule, found in its bytes; one whose
	# rule the tree does not have yet connected, judged as any other
	rules=$(must_drop rules)
	check [ "$(printf '%s\n' "$rules" | grep -c .)" = $((drops - 4)) ]
	if ! printf '%s\n' "$rules" | grep -q '^auth-opt-malformed '; then
		check [ "$(jc '.knobs == "rejected/auth-opt-malformed" and .gen == "crafted" and .verdict == "identical"')" -gt 0 ]
	fi
	while read -r shape rule; do
		check [ "$(jc ".knobs == \"rejected/$shape\" and .reason == \"rejected-by-kernel\" and (.detail | contains(\": $rule: \"))")" = 1 ]
	done <<EOF
$rules
EOF
	retransmits_exact
	expectations_exact
	fingerprints_exact
	check [ "$(num insert_fail)" = 0 ]
	check [ "$(num unknown)" = 0 ]
	for f in "$ROOT"/gen/profiles/*.syn; do
		stem=$(basename "$f" .syn)
		for shape in $(sed 's/#.*//' "$f" | awk 'NF { print $1 }'); do
			check [ "$(jc ".knobs == \"$stem/$shape\"")" -gt 0 ]
		done
	done
	;;
rerun)
	# A 2,000-connection run with 4 connects in flight, then --rerun of it one at a time:
	# exactly its non-identical connections again (both directions of each), with the same
	# knobs and the same verdicts and reasons, whatever order the first run's connects took.
	"$ROOT/syntwin" run --connections 2000 --seed 5 --parallel 4 --out "$out/first" >"$tmp/log" 2>&1
	check [ $? = 0 ]
	"$ROOT/syntwin" run --rerun "$out/first" --out "$out/again" >"$tmp/log2" 2>&1
	rc=$?
	tail -n 3 "$tmp/log2"
	check [ "$rc" = 0 ]
	keys() { jq -r 'select(.verdict != "identical") |
		"\(.gen) \(.gen_index) \(.direction) \(.verdict) \(.reason) \(.knobs)"' "$1" | sort; }
	keys "$out/first/connections.jsonl" >"$out/k1"
	keys "$out/again/connections.jsonl" >"$out/k2"
	check [ -s "$out/k1" ]
	check [ -z "$(comm -23 "$out/k1" "$out/k2")" ]
	# and nothing else: every rerun record's index was non-identical before
	cut -d' ' -f1,2 "$out/k1" | sort -u >"$out/i1"
	jq -r '"\(.gen) \(.gen_index)"' "$out/again/connections.jsonl" | sort -u >"$out/i2"
	check cmp -s "$out/i1" "$out/i2"
	check [ "$(jq -r .rerun_of "$out/again/summary.json")" = "$out/first" ]
	;;
*) echo "usage: run_checks.sh clean|corrupt|crafted|rerun|netem" >&2; exit 2 ;;
esac
[ $fail = 0 ] && echo "run_checks $1: all checks passed"
exit $fail
