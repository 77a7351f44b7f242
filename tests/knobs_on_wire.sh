#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `syntwin run --hex-all --parallel 4` with the default socket-knob mix, then every passive
# capture checked against the knobs its record names (tests/knob_wire_check.c).
# usage: knobs_on_wire.sh CHECKER
set -u
. "$(dirname "$0")/lib.sh"
out=$tmp/run
"$ROOT/syntwin" run --connections 3000 --seed 11 --hex-all --parallel 4 --smp 1 --out "$out" >"$tmp/log" 2>&1
rc=$?
tail -n 3 "$tmp/log"
[ "$rc" = 0 ] || { echo "FAIL: the run exited $rc"; exit 1; }
"$1" "$out/connections.jsonl"
