#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The syncookie tail of a run's results (DIR: plan.json, connections.jsonl): prints how many of
# its connections the kernel had to validate by a cookie. That is every one of them, except one
# whose SYN reopens the 4-tuple of an earlier connection the server still holds in TIME_WAIT:
# the kernel answers that SYN from the TIME_WAIT socket with an ISN of its own and no cookie
# (tcp_conn_request(): cookies only when !isn) and saves it as usual. Such a connection is
# found in the records (the same addresses and ports judged before) and must have its saved
# SYN judged identical or explained (an IPv4 option rewrite, a VLAN tag).
# Exits 1 if a tail connection without a cookie is anything else.
# usage: syncookie_tail.sh DIR
set -eu
dir=$1
at=$(jq .syncookie_at "$dir/plan.json") n=$(jq .syncookie_tail "$dir/plan.json")
jq -s -r --argjson at "$at" --argjson n "$n" '
	[.[] | select(.direction == "passive")] as $p |
	[$p[] | select(.gen == "sockets" and .gen_index >= $at and .gen_index < $at + $n)] as $tail |
	[$tail[] | select(.reason != "syncookie")] as $nocookie |
	[$nocookie[] | . as $t | select((.verdict == "identical" or .verdict == "explained") and any($p[]; .n < $t.n and
		.saddr == $t.saddr and .sport == $t.sport and .daddr == $t.daddr and
		.dport == $t.dport))] as $reused |
	if ($nocookie | length) != ($reused | length) then
		"tail connection(s) without a cookie that reopened no TIME_WAIT 4-tuple: \([$nocookie[] | .gen_index] - [$reused[] | .gen_index])" | halt_error(1)
	else $n - ($reused | length) end' "$dir/connections.jsonl"
