#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record/pcapng.c read back by Wireshark's tools: every frame's interface, length, time stamp
# and comment as written (frames and comments of every length modulo 4, an empty comment, a
# long one, UTF-8), the two interfaces' link types, and capinfos finds the file sound.
# usage: pcapng_tools.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib.sh"
"$1/tests/test_pcapng" "$tmp/t.pcapng" >"$tmp/want"
check [ $? = 0 ]
tshark -r "$tmp/t.pcapng" -T fields -E separator=/t -e frame.number -e frame.interface_id \
	-e frame.len -e frame.time_epoch -e frame.comment >"$tmp/got.raw" 2>"$tmp/err"
check [ $? = 0 ]
# the epoch as whole seconds (the microseconds are the frame's index, checked below)
awk -F'\t' 'BEGIN { OFS = "\t" } { split($4, t, "."); $4 = t[1]; print }' "$tmp/got.raw" >"$tmp/got"
check cmp "$tmp/want" "$tmp/got"
check [ "$(cut -f4 "$tmp/got.raw" | cut -d. -f2 | cut -c1-6 | tr '\n' ' ')" = "000000 000001 000002 000003 000004 000005 000006 " ]
capinfos -M "$tmp/t.pcapng" >"$tmp/info" 2>&1
check [ $? = 0 ]
check grep -q 'Number of interfaces in file: 2' "$tmp/info"
check grep -q 'Ethernet (4)' "$tmp/info"
check grep -q 'Raw IP (3)' "$tmp/info"
check grep -q 'Number of packets:   7' "$tmp/info"
[ "$fail" = 0 ] && echo "pcapng_tools: 1 passed, 0 failed" || echo "pcapng_tools: 0 passed, 1 failed"
exit "$fail"
