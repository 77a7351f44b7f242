#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The debug kernel's kill matrix (`syntwin mutants --debug`): the reference series on the debug
# kernel (kernel-series/debug.config) passes every check with no splat, and each memory-bug
# mutant of kernel-series/mutants/debug/ is killed by the splat the debug kernel reports for it
# (KASAN for the double free and the use after free, kmemleak for the leak). The use after free
# returns the right bytes: its comparator run judges every record (0 unexplained) and its
# conformance suite finds nothing; only the kernel's own report fails them.
set -u
. "$(dirname "$0")/lib.sh"
m=$tmp/m
rc=0
"$ROOT/syntwin" mutants --debug --connections 300 --out "$m" || rc=$?
check [ "$rc" = 0 ]
cat "$m/matrix.txt"
cell() { jq -r --arg k "$1" --arg c "$2" '.kernels[] | select(.kernel == $k) | .[$c]' "$m/matrix.json"; }
# starts CELL PREFIX: the cell's text begins with PREFIX
starts() { case $1 in "$2"*) return 0 ;; esac; echo "cell '$1' does not begin with '$2'"; return 1; }
check [ "$(jq -c '[.debug, .ok, .survivors, .errors, (.kernels | length)]' "$m/matrix.json")" = \
	'[true,true,"","",4]' ]
for c in comparator conformance selftest splat; do
	check [ "$(cell reference "$c")" = pass ]
done
# (KASAN names the memory kind from 6.6 on: "slab-use-after-free" on 6.12)
uaf=$(cell use-after-free-saved-syn splat)
case $uaf in "KILLED: BUG: KASAN: slab-use-after-free in do_tcp_getsockopt"*) ;;
*) check starts "$uaf" "KILLED: BUG: KASAN: use-after-free in do_tcp_getsockopt" ;; esac
check starts "$(cell double-free-on-reset splat)" "KILLED: BUG: KASAN: double-free in "
check starts "$(cell leak-reset-request splat)" "KILLED: kmemleak: unreferenced object 0x"
# The use after free, seen by nothing but the kernel: every record judged and none unexplained,
# the comparator failed by the splat alone; the conformance suite's own checks all pass.
u=$m/use-after-free-saved-syn
check [ "$(jq -c '[.unexplained, .partial]' "$u/run/summary.json")" = '[0,false]' ]
check starts "$(cell use-after-free-saved-syn comparator)" "KILLED: kernel splat (see splat)"
check grep -q '^PASS ' "$u/conformance.log"
check sh -c "! grep -q '^FAIL ' '$u/conformance.log'"
exit "$fail"
