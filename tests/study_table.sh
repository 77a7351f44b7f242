#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# syntwin-study-table (bench/study_table.c), the capture points study's table, on hand-made
# halves: a run's capture_points and syntwin-conn-rate --study's rates. Each row's numbers
# exactly (the run's counts, the program's ns and runs per connection, each family's cost,
# the bytes kept per SYN), study.json and study.dat; exit 1 when a point left something
# unexplained or lost, 2 when a half is not what the study writes.
# usage: study_table.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib.sh"
T=$1/bench/syntwin-study-table
row() { # POINT IDENTICAL UNEXPLAINED [LOST]
	printf '"%s": {"identical": %s, "explained": {"vlan-offload": 2}, "unexplained": %s, "lost": %s, "not-compared": 3}' \
		"$1" "$2" "$3" "${4:-0}"
}
summary() { # WIRE_UNEXPLAINED WIRE_LOST
	printf '{"kernel": "6.1.192-syntwin", "connections": 100, "capture_points": {%s, %s, %s, %s}}\n' \
		"$(row xdp 90 0)" "$(row tc 91 0)" "$(row tcp 95 0)" "$(row wire 89 "$1" "$2")" >"$tmp/summary.json"
}
conf() { # NAME FAMILY COST
	printf '{"config": "%s", "family": %s, "median": 1000, "cost_percent": %s}' "$1" "$2" "$3"
}
prog() { # CONFIG PROGRAM NS RUNS
	printf '"%s": {"connections": 2000, "programs": [{"name": "%s", "ns_per_connection": %s, "runs_per_connection": %s}]}' "$1" "$2" "$3" "$4"
}
printf '{"mode": "study", "rounds": 3, "connections_per_batch": 1000, "configs": [%s, %s, %s, %s, %s, %s, %s, %s, %s, %s],
"bpf_stats": {%s, %s, %s}}\n' \
	"$(conf no-capture 4 0.0)" "$(conf no-capture 6 0.0)" "$(conf tc 4 10.5)" "$(conf tc 6 11.5)" \
	"$(conf xdp 4 8.0)" "$(conf xdp 6 9.0)" "$(conf tcp 4 7.5)" "$(conf tcp 6 -1.5)" \
	"$(conf wire 4 20.0)" "$(conf wire 6 21.0)" \
	"$(prog tc syn_capture 16000 2.0)" "$(prog xdp point_xdp 12000 2.0)" "$(prog tcp point_tcp 11000 3.0)" >"$tmp/rates.json"

summary 0 0
mkdir -p "$tmp/out"
"$T" "$tmp/summary.json" "$tmp/rates.json" "$tmp/out" >"$tmp/table"
check [ $? = 0 ]
check [ "$(grep -c '' "$tmp/table")" = 5 ]
check grep -q '^xdp  *90  *vlan-offload 2  *0  *3  *12000/2.0  *8.0%  *9.0%  *332  *point map$' "$tmp/table"
# tc's bytes a SYN: a flow key (44), its entry (struct capture_rec, 328 with take_state) and
# the ring's record (struct bound_rec, 1112)
check grep -q '^tc  *91  *vlan-offload 2  *0  *3  *16000/2.0  *10.5%  *11.5%  *1484  *flow map + ring record$' "$tmp/table"
check grep -q '^tcp  *95  *vlan-offload 2  *0  *3  *11000/3.0  *7.5%  *-1.5%  *332  *point map$' "$tmp/table"
check grep -q '^wire  *89  *vlan-offload 2  *0  *3  *-  *20.0%  *21.0%  *2372  *AF_PACKET ring slot + table$' "$tmp/table"
check [ "$(jq -c '[.points[] | [.point, .identical, .unexplained, .ns_per_connection, .cost_percent_ipv4, .cost_percent_ipv6, .bytes_per_syn]]' "$tmp/out/study.json")" = \
	'[["xdp",90,0,12000,8,9,332],["tc",91,0,16000,10.5,11.5,1484],["tcp",95,0,11000,7.5,-1.5,332],["wire",89,0,-1,20,21,2372]]' ]
check [ "$(jq -c '[.kernel, .connections, .rounds]' "$tmp/out/study.json")" = '["6.1.192-syntwin",100,3]' ]
check [ "$(sed -n 2p "$tmp/out/study.dat")" = "xdp 8.0 9.0 12000" ]
check [ "$(sed -n 5p "$tmp/out/study.dat")" = "wire 20.0 21.0 0" ]
# a point that failed, or lost records: the table is written, exit 1
summary 1 0
"$T" "$tmp/summary.json" "$tmp/rates.json" "$tmp/out" >/dev/null
check [ $? = 1 ]
check [ "$(jq '.points[3].unexplained' "$tmp/out/study.json")" = 1 ]
summary 0 4
"$T" "$tmp/summary.json" "$tmp/rates.json" "$tmp/out" >/dev/null
check [ $? = 1 ]
# halves that are not the study's: a bench's rates, a run without capture points
summary 0 0
jq '.mode = "bench"' "$tmp/rates.json" >"$tmp/bench.json"
check "$ROOT/tests/expect.sh" --status 2 --stderr "syntwin-conn-rate --study's output" -- \
	"$T" "$tmp/summary.json" "$tmp/bench.json" "$tmp/out"
jq 'del(.capture_points)' "$tmp/summary.json" >"$tmp/plain.json"
check "$ROOT/tests/expect.sh" --status 2 --stderr "a run's summary with capture_points" -- \
	"$T" "$tmp/plain.json" "$tmp/rates.json" "$tmp/out"
jq 'del(.capture_points.tcp)' "$tmp/summary.json" >"$tmp/notcp.json"
check "$ROOT/tests/expect.sh" --status 2 --stderr "the run compared no tcp point" -- \
	"$T" "$tmp/notcp.json" "$tmp/rates.json" "$tmp/out"
[ "$fail" = 0 ] && echo "study_table: all checks passed"
exit "$fail"
