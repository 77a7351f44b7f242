#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Result paths with white space, commas and glob characters work end to end (QEMU's 9p option
# doubles the commas), for --out, --rerun, --replay and --share; an earlier run's directory can be used
# again, and what a guest could have planted there (symlinks to host files) is removed, never
# written through or read.
set -u
. "$(dirname "$0")/lib.sh"
S=$ROOT/syntwin
odd="$tmp/out dir,with*[x]"

"$S" run --connections 60 --mix plain --smp 1 --out "$odd" >"$tmp/log" 2>&1
check [ $? = 0 ]
tail -n 2 "$tmp/log"
check [ "$(jq .connections "$odd/summary.json")" = 60 ]
check [ -f "$odd/.syntwin-results" ]

# A rerun of it into another odd path: the summary names the first run's path exactly.
"$S" run --rerun "$odd" --smp 1 --out "$tmp/again, and *again*" >"$tmp/log2" 2>&1
check [ $? = 0 ]
check [ "$(jq -r .rerun_of "$tmp/again, and *again*/summary.json")" = "$odd" ]

# The first directory again, after "the guest" left symlinks to host files in it.
ln -sfn "$tmp/victim-summary" "$odd/summary.json"
ln -sfn "$tmp/victim-timing" "$odd/timing.json"
ln -sfn "$tmp/victim-rerun" "$odd/rerun.jsonl"
"$S" run --connections 30 --mix plain --smp 1 --out "$odd" >"$tmp/log3" 2>&1
check [ $? = 0 ]
check [ ! -e "$tmp/victim-summary" ] && check [ ! -L "$odd/summary.json" ]
check [ ! -e "$tmp/victim-timing" ] && check [ ! -e "$tmp/victim-rerun" ]
check [ "$(jq .connections "$odd/summary.json")" = 30 ]

# --replay from such a path: an Ethernet capture with no packets (a 24-byte pcap header) is a
# complete run of zero connections.
cap="$tmp/cap, one*[1].pcap"
printf '\324\303\262\241\002\000\004\000\000\000\000\000\000\000\000\000\377\377\000\000\001\000\000\000' >"$cap"
"$S" run --replay "$cap" --smp 1 --out "$tmp/replayed, too" >"$tmp/log4" 2>&1
check [ $? = 0 ]
check [ "$(jq .connections "$tmp/replayed, too/summary.json")" = 0 ]
check cmp -s "$cap" "$tmp/replayed, too/replay.pcap"

# vm --share with the same kind of path.
"$S" vm --smp 1 --share "$odd" -- sh -c 'echo from-the-guest >/mnt/share/note' >/dev/null 2>&1
check [ $? = 0 ]
check [ "$(cat "$odd/note")" = from-the-guest ]
[ $fail = 0 ] && echo "paths: all checks passed"
exit $fail
