#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The stock kernel (`--series none`) builds (incrementally: the series is reversed on the kept
# tree), passes a 2,000-connection comparator run and the conformance suite, and has no saved-SYN
# counters, so the witness's syncookie proofs are cross-checked against TcpExtSyncookiesRecv.
set -u
. "$(dirname "$0")/lib.sh"
out=$tmp/run

"$ROOT/syntwin" --series none run --connections 2000 --out "$out" >"$tmp/log" 2>&1
rc=$?
tail -n 4 "$tmp/log"
check [ "$rc" = 0 ]
check [ "$(jq -r .syncookie_cross_check.counter "$out/summary.json")" = SyncookiesRecv ]
check [ "$(jq -r .syncookie_cross_check.agree "$out/summary.json")" = true ]
# the stock kernel saves no SYN-ACKs: the plan has no active direction, and every syncookie
# connection it planned is proven one
check [ "$(jq -c '[.active, .expect_active]' "$out/plan.json")" = '[false,0]' ]
# it declares nothing, and the run says so before it starts
check [ "$(jq -c .declared "$out/plan.json")" = '{"synack_save":false,"counters":[],"selftests":[]}' ]
check grep -q '^declared by the series: nothing beyond the stock TCP_SAVE_SYN API$' "$tmp/log"
check [ "$(jq .expectations_failed "$out/summary.json")" = 0 ]
check [ "$(jq .syncookie_tail "$out/plan.json")" -gt 0 ]
want=$("$ROOT/tests/syncookie_tail.sh" "$out")
check [ $? = 0 ]
check [ "$(jq .explained.syncookie "$out/summary.json")" = "${want:-none}" ]
check [ "$(jq -c '[.. | objects | select(has("TCPSynSaved")) | .TCPSynSaved]' "$out/summary.json")" = '[null]' ]
check [ "$(jq .partial "$out/summary.json")" = false ]
"$ROOT/syntwin" --series none conformance >"$tmp/conf" 2>&1
check [ $? = 0 ]
# declared by --series none: nothing, so no counter is looked for
check grep -q '^PASS declared-counters ipv4: 0 counter(s) declared, all present$' "$tmp/conf"
tail -n 1 "$tmp/conf"
"$ROOT/syntwin" --series none selftest >"$tmp/self" 2>&1
check [ $? = 4 ]
[ $fail = 0 ] && echo "stock kernel: comparator and conformance pass; no selftest, cookies cross-checked by SyncookiesRecv"
exit $fail
