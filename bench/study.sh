#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `syntwin study`: the capture points compared (docs/capture-points.md). Glue only: what each
# point sees comes from `syntwin run --capture-points all` (its summary's capture_points), what
# each costs alone from syntwin-conn-rate --study (one guest boot, interleaved rounds), the table
# and study.json from syntwin-study-table, the plot from gnuplot (bench/study.gp).
# usage: study.sh [--connections N] [--rounds R] [--bench-connections N]
#                 [--xdp-mode auto|generic] [--out DIR]
# Exit 0; 1 if the run or a point failed (the table is written either way); 2 on a setup error.
set -eu
. "$(dirname "$0")/../vm/lib.sh"
root=$SYNTWIN_ROOT
syntwin() { "$root/syntwin" --kernel "$SYNTWIN_KERNEL" --series "$SYNTWIN_SERIES" "$@"; }
BUILD=${SYNTWIN_BUILD:-$root/build}
n=10000 rounds=7 bn=1000 mode=auto out=
while [ $# -gt 0 ]; do
	case $1 in
	--connections | --rounds | --bench-connections | --xdp-mode | --out)
		[ $# -ge 2 ] || usage_die "study: $1 needs a value"
		case $1 in
		--connections) num_arg "study: --connections" "$2" 100 100000000; n=$2 ;;
		--rounds) num_arg "study: --rounds" "$2" 1 100; rounds=$2 ;;
		--bench-connections) num_arg "study: --bench-connections" "$2" 10 1000000; bn=$2 ;;
		--xdp-mode) case $2 in auto | generic) mode=$2 ;; *) usage_die "study: --xdp-mode '$2' is not auto or generic" ;; esac ;;
		--out) out=$2 ;;
		esac
		shift 2 ;;
	*) usage_die "study: unknown option '$1'" ;;
	esac
done
[ -n "$out" ] || out=$root/results/study/$(date +%Y%m%d-%H%M%S)
plain_path "study: --out" "$out"
case $out in *\'*) usage_die "study: --out $out: no quote, please (gnuplot reads the path)" ;; esac
[ ! -e "$out" ] || [ -z "$(ls -A "$out")" ] || usage_die "study: --out $out is not empty; choose another"
mkdir -p "$out" || usage_die "study: cannot create $out"
out=$(cd "$out" && pwd)

stage "study: syntwin run --connections $n --capture-points all (what each point sees), in $out/run"
rc=0
syntwin run --connections "$n" --capture-points all --xdp-mode "$mode" --out "$out/run" \
	>"$out/run.log" 2>&1 || rc=$?
[ -f "$out/run/summary.json" ] || { tail -n 20 "$out/run.log" >&2; DIE_STATUS=2 die "study: the run left no summary (log: $out/run.log)"; }
[ "$rc" = 0 ] || say "study: the run failed (status $rc; $out/run.log): the table shows where"

stage "study: each point alone, $rounds interleaved rounds x 5 configurations x IPv4/IPv6, $bn connections each"
mkdir -p "$out/guest"
SYNTWIN_NO_BUILD=1 syntwin vm --smp 2 --timeout 3600 --share "$out/guest" -- \
	sh /src/bench/study-guest.sh "$rounds" "$bn" "$mode" >"$out/guest.log" 2>&1 ||
	{ tail -n 30 "$out/guest.log" >&2; DIE_STATUS=2 die "study: the cost rounds failed (log: $out/guest.log)"; }

stage "study: the table (study.json, study.dat, study.png in $out)"
trc=0
"$BUILD/bench/syntwin-study-table" "$out/run/summary.json" "$out/guest/rates.json" "$out" || trc=$?
[ "$trc" -le 1 ] || DIE_STATUS=2 die "study: no table could be made"
kernel=$(jq -r .kernel "$out/run/summary.json") || DIE_STATUS=2 die "study: $out/run/summary.json is not JSON"
gnuplot -e "dat='$out/study.dat'; out='$out/study.png'; subtitle='$kernel, $rounds rounds x $bn connections, run of $n'" \
	"$root/bench/study.gp" || { say "study: gnuplot failed; the table and JSON are complete"; trc=1; }
[ "$rc" = 0 ] && [ "$trc" = 0 ] || exit 1
