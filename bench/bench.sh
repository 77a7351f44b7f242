#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `syntwin bench`: what each capture costs and how the testbed scales. Glue only: the numbers
# come from syntwin-conn-rate and syntwin-memory (guest, one boot), compare_throughput (host,
# wall clock and callgrind), and `syntwin run` (its timing.json and summary.json).
# Writes results/bench/<ts>.json (schema: docs/performance.md), <ts>-rates.png and
# <ts>-scale.png, and prints a table. Never a test: timings gate nothing.
# usage: bench.sh [--full] [--cold] [--icount] [--rounds R] [--connections N] [--scale N,N...]
#                 [--out DIR]
# --icount: the guest's clock counts instructions (syntwin vm --icount), so the connection
# rates and the programs' run times repeat to the instruction; the rates are then in
# instructions, not in this host's speed.
set -eu
. "$(dirname "$0")/../vm/lib.sh"
root=$SYNTWIN_ROOT
# ./syntwin on the kernel and series this bench was called with
syntwin() { "$root/syntwin" --kernel "$SYNTWIN_KERNEL" --series "$SYNTWIN_SERIES" "$@"; }
BUILD=${SYNTWIN_BUILD:-$root/build}
full=0 cold=0 icount= rounds=7 n=1000 out=$root/results/bench scales="10000 100000"
while [ $# -gt 0 ]; do
	case $1 in
	--full) full=1; shift ;;
	--cold) cold=1; shift ;;
	--icount) icount=--icount; shift ;;
	--rounds | --connections | --out | --scale)
		[ $# -ge 2 ] || usage_die "bench: $1 needs a value"
		case $1 in
		--rounds) num_arg "bench: --rounds" "$2" 7 100; rounds=$2 ;;
		--connections) num_arg "bench: --connections" "$2" 100 100000; n=$2 ;;
		--out) out=$2 ;;
		--scale) scales=$(echo "$2" | tr , ' ')
			for v in $scales; do num_arg "bench: --scale" "$v" 100 100000000; done ;;
		esac
		shift 2 ;;
	*) usage_die "bench: unknown option '$1'" ;;
	esac
done
mkdir -p "$out" || usage_die "bench: cannot create $out"
out=$(cd "$out" && pwd)
ts=$(date +%Y%m%d-%H%M%S)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ "$full" = 0 ] || scales="$scales 1000000"
t_bench=$(date +%s)

# field FILE PATH: one value of a JSON file (a jq path such as .memory.slab_bytes_end)
field() { jq -r "$2" "$1"; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

stage "bench: building (and recording what this machine is)"
syntwin build >"$tmp/build.log" 2>&1 || { tail -n 20 "$tmp/build.log" >&2; DIE_STATUS=2 die "bench: the build failed; nothing measured"; }
accel=$(sed -n 's/.*accelerator: \([a-z]*\).*/\1/p' "$tmp/build.log" | tail -n 1)
# an instruction clock is TCG's (syntwin vm --icount boots with it whatever the probe found)
[ -z "$icount" ] || accel=tcg
cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)
ncpu=$(nproc)

# 1. Cold build, only when asked: a new cache, so the tree is extracted and built from scratch.
cold_json=null
if [ "$cold" = 1 ]; then
	stage "bench: cold kernel + userspace build in a fresh cache (several minutes)"
	t0=$(date +%s.%N)
	SYNTWIN_CACHE=$tmp/cold-cache SYNTWIN_BUILD=$tmp/cold-build SYNTWIN_ACCEL=$accel \
		syntwin build >"$tmp/cold.log" 2>&1 || { tail -n 20 "$tmp/cold.log" >&2; DIE_STATUS=2 die "bench: the cold build failed"; }
	cold_json=$(secs "$t0" "$(date +%s.%N)")
	rm -rf "$tmp/cold-cache" "$tmp/cold-build"
fi

# 2. Comparator throughput on the host: wall clock for 1M pairs, instructions per pair from
# callgrind as the difference of a 20k and a 10k run (so the set-up cancels out).
stage "bench: comparator throughput (1,000,000 synthetic pairs, one core)"
"$BUILD/bench/compare_throughput" --pairs 1000000 >"$tmp/cmp.json"
for k in 10000 20000; do
	valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$k" \
		"$BUILD/bench/compare_throughput" --pairs $k >/dev/null 2>"$tmp/cg.$k.log"
done
ir() { sed -n 's/^summary: *//p' "$1"; }
ipp=$(awk -v a="$(ir "$tmp/cg.10000")" -v b="$(ir "$tmp/cg.20000")" 'BEGIN { printf "%.0f", (b - a) / 10000 }')
# where those instructions go: the top functions of the 20k run (inclusive of the set-up)
# (callgrind_annotate prints text: "  1,234 (5.6%)  file:function [object]")
callgrind_annotate --threshold=90 "$tmp/cg.20000" 2>/dev/null |
	sed -n 's/^ *\([0-9,]*\) ([ 0-9.]*%) *[^:]*:\([A-Za-z_0-9]*\).*/\2 \1/p' | head -n 8 |
	jq -Rc 'split(" ") | {function: .[0], self_ir: (.[1] | gsub(","; "") | tonumber)}' >"$tmp/top.jsonl"

# 3. Connection rates, BPF statistics and memory: one guest boot.
stage "bench: connection rates ($rounds interleaved rounds x 6 configurations x IPv4/IPv6, $n connections each), BPF stats, memory"
mkdir -p "$tmp/guest"
SYNTWIN_NO_BUILD=1 syntwin vm --smp 2 --timeout 1800 $icount --share "$tmp/guest" -- \
	sh /src/bench/bench-guest.sh "$rounds" "$n" 2000 >"$tmp/guest.log" 2>&1 ||
	{ tail -n 30 "$tmp/guest.log" >&2; die "bench: the guest part failed"; }
grep '^round' "$tmp/guest.log" >&2 || true

# 4 + 5. Pipeline split and scale: warm `syntwin run`s (the first is the pipeline figure).
pipe_json=null kernel= failed=
: >"$tmp/scale.dat"
: >"$tmp/scale.jsonl"
for s in $scales; do
	stage "bench: syntwin run --connections $s"
	SYNTWIN_NO_BUILD=1 syntwin run --connections "$s" --timeout 14400 --out "$tmp/run-$s" \
		>"$tmp/run-$s.log" 2>&1 || { say "bench: the $s-connection run failed (kept as measured; see its summary)"; failed="$failed run-$s"; }
	r=$tmp/run-$s
	[ -f "$r/summary.json" ] && [ -f "$r/timing.json" ] || die "bench: the $s-connection run left no summary or timing"
	kernel=$(field "$r/summary.json" .kernel)
	line=$(jq -nc --slurpfile s "$r/summary.json" --slurpfile t "$r/timing.json" '
		$s[0] as $s | $t[0] as $t | {connections: $s.connections,
		active_records: $s.active_connections, wall_s: $t.wall_s, connections_s: $t.connections_s,
		connections_per_s: ($s.connections / $t.connections_s | round),
		records_per_s: (($s.connections + $s.active_connections) / $t.connections_s | round),
		unexplained: $s.unexplained, partial: $s.partial, records_lost: $s.records_lost,
		witness_evictions: $s.witness_evictions} + $s.memory') ||
		die "bench: the $s-connection run's summary.json or timing.json is not readable JSON"
	printf '%s\n' "$line" >>"$tmp/scale.jsonl"
	printf '%s\n' "$line" | jq -r '"\(.connections) \(.wall_s) \(.connections_per_s)"' >>"$tmp/scale.dat"
	[ "$pipe_json" != null ] || pipe_json=$(jq -c --argjson n "$s" '{connections: $n} + .' "$r/timing.json")
	rm -f "$r/connections.jsonl" # hundreds of MB at 1M; the summary keeps the counts
done

# 6. The report.
json=$out/$ts.json
jq -n --arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --arg cpu "$cpu" --argjson ncpu "$ncpu" \
	--arg accel "$accel" --arg clock "${icount:+instructions}" --arg kernel "$kernel" --slurpfile rates "$tmp/guest/rates.json" \
	--slurpfile mem "$tmp/guest/memory.json" --slurpfile cmp "$tmp/cmp.json" --argjson ipp "$ipp" \
	--slurpfile top "$tmp/top.jsonl" --argjson cold "$cold_json" --argjson pipe "$pipe_json" \
	--slurpfile scale "$tmp/scale.jsonl" --arg failed "${failed# }" \
	--argjson wall "$(($(date +%s) - t_bench))" '{
	schema: "syntwin-bench/1", date: $date,
	machine: {cpu: $cpu, cpus: $ncpu, accelerator: $accel,
		guest_clock: (if $clock == "" then "host" else $clock end), guest_kernel: $kernel, guest_smp: 2},
	connection_rate: $rates[0], memory: $mem[0],
	comparator: {wall: $cmp[0], callgrind: {instructions_per_pair: $ipp, top_functions_20k_run: $top}},
	pipeline: {cold_build_s: $cold, warm_run: $pipe}, scale: $scale, failed_parts: $failed,
	bench_wall_s: $wall}' >"$json.tmp" || die "bench: a part's JSON is not readable; see $tmp"
mv "$json.tmp" "$json"

# rates.dat (config family median min max) -> one row per configuration for the bar chart
awk 'NR > 1 { k[$1] = k[$1] " " $3 " " $4 " " $5; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
	END { for (i = 1; i <= n; i++) print order[i] k[order[i]] }' "$tmp/guest/rates.dat" >"$tmp/bars.dat"
gnuplot -e "bars='$tmp/bars.dat'; scale='$tmp/scale.dat'; out_rates='$out/$ts-rates.png'; out_scale='$out/$ts-scale.png'; subtitle='$accel, $ncpu CPUs, $rounds rounds x $n connections'" \
	"$root/bench/chart.gp" || say "bench: gnuplot failed; the JSON is complete"

# the table
{
	echo
	echo "syntwin bench ($ts): $cpu, $accel${icount:+ (-icount: the guest's clock counts instructions, 1 ns each)}, guest kernel $kernel"
	echo "connections/s, median of $rounds rounds (min-max); cost = median of per-round ratios to no-capture"
	jq -r '.configs[] | "\(.config) \(.family) \(.median) \(.min) \(.max) \(.cost_percent)"' \
		"$tmp/guest/rates.json" |
		while read -r c f med lo hi cost; do
			printf '  %-11s IPv%s %6d/s (%d-%d)  cost %5.1f%%\n' "$c" "$f" "$med" "$lo" "$hi" "$cost"
		done
	jq -r '.bpf_stats | (.programs[] |
		"BPF \(.name): \(.ns_per_run) ns per run, \(.runs_per_connection) runs per connection, \(.ns_per_connection) ns per connection"),
		"BPF programs together: \(.ns_per_connection) ns per connection, \(.floor_percent)% of a plain connection (\(.plain_connection_ns) ns): the floor of the witness cost (run-time stats on)"' \
		"$tmp/guest/rates.json"
	echo "comparator: $(field "$tmp/cmp.json" .classify_and_jsonl_per_s) pairs/s with JSONL ($(field "$tmp/cmp.json" .classify_per_s) classify only); $ipp instructions/pair"
	echo "pipeline (warm run): $(printf '%s' "$pipe_json" | jq -r 'to_entries | map("\(.key): \(.value)") | join(", ")')"
	echo "scale: connections wall_s connections/s"
	sed 's/^/  /' "$tmp/scale.dat"
	echo "written: $json, $out/$ts-rates.png, $out/$ts-scale.png"
} | tee "$out/$ts.txt"
[ -z "$failed" ] || { say "bench: these parts failed:$failed (the JSON says so in failed_parts)"; exit 1; }
