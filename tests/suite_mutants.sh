#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The suite's kill matrix: `syntwin mutants` on a few mutants, each named with the exact set of
# checks that must kill it, so a check that stops working is seen even where another column
# still kills the mutant (the matrix itself only needs one kill a row). Every cell not named
# must be "pass"; the reference passes all four. CHECK=WHAT also names what must kill it there
# (a conformance check's name, a text of the comparator's or selftest's failure), so a kill by
# something else (a flaky check, another cause) is no kill of that road.
# usage: suite_mutants.sh OUT NAME:CHECK[=WHAT][,CHECK[=WHAT]...]...
#        CHECK: comparator, conformance, selftest or splat
set -u
. "$(dirname "$0")/lib.sh"
[ $# -ge 2 ] || { echo "usage: suite_mutants.sh OUT NAME:CHECK[,CHECK...]..." >&2; exit 2; }
out=$1
shift
names=
for spec in "$@"; do names="$names ${spec%%:*}"; done
rc=0
# shellcheck disable=SC2086 # mutant names: no white space (mutants.sh refuses it)
"$ROOT/syntwin" mutants --out "$out" $names || rc=$?
check [ "$rc" = 0 ]
cat "$out/matrix.txt"
cell() { jq -r --arg k "$1" --arg c "$2" '.kernels[] | select(.kernel == $k) | .[$c]' "$out/matrix.json"; }
# is CELL what the row NAME's CHECK must show (KILLED or pass)?
want() {
	case $3 in
	KILLED) case $1 in KILLED:*) return 0 ;; esac ;;
	pass) [ "$1" = pass ] && return 0 ;;
	esac
	echo "$2: '$1', want $3"
	return 1
}
for c in comparator conformance selftest splat; do
	check want "$(cell reference "$c")" "reference $c" pass
done
# the check's own log names WHAT among its failures
named() { # NAME CHECK WHAT
	case $2 in
	conformance) grep -q "^FAIL $3 " "$out/$1/conformance.log" ;;
	selftest) grep -q "^not ok .*$3" "$out/$1/selftest.log" ;;
	*) grep -qF -- "$3" "$out/$1/$2.log" ;;
	esac || { echo "$1 $2: no failure named '$3' in $out/$1/$2.log"; return 1; }
}
for spec in "$@"; do
	m=${spec%%:*} killers=,${spec#*:},
	for c in comparator conformance selftest splat; do
		what=
		case $killers in
		*,"$c",*) w=KILLED ;;
		*,"$c"=*) w=KILLED what=${killers#*,"$c"=} what=${what%%,*} ;;
		*) w=pass ;;
		esac
		check want "$(cell "$m" "$c")" "$m $c" "$w"
		[ -z "$what" ] || check named "$m" "$c" "$what"
	done
done
exit "$fail"
