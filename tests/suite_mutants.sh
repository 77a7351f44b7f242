#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The suite's kill matrix: `syntwin mutants` on a few mutants, each named with the exact set of
# checks that must kill it, so a check that stops working is seen even where another column
# still kills the mutant (the matrix itself only needs one kill a row). Every cell not named
# must be "pass"; the reference passes all four. CHECK=WHAT also names what must kill it there
# (a conformance check's name, a text of the comparator's or selftest's failure), so a kill by
# something else (a flaky check, another cause) is no kill of that road.
# NAME:ERROR=GLOB is a mutant that must not build: every cell of its row "ERROR: does not build:
# GLOB" (a shell pattern), and the matrix must then exit 1 naming exactly those rows in .errors,
# never KILLED (host.mutants puts the reference's build-failure rows in its one matrix, so the
# reference is checked once). NAME is a mutant's name or a path to a .patch file.
# usage: suite_mutants.sh OUT NAME:CHECK[=WHAT][,CHECK[=WHAT]...]...
#        CHECK: comparator, conformance, selftest or splat; or ERROR=GLOB alone
set -u
. "$(dirname "$0")/lib.sh"
[ $# -ge 2 ] || { echo "usage: suite_mutants.sh OUT NAME:CHECK[,CHECK...]..." >&2; exit 2; }
out=$1
shift
names= errors=
for spec in "$@"; do
	names="$names ${spec%%:*}"
	case $spec in *:ERROR=*) errors="$errors ${spec%%:*}" ;; esac
done
rc=0
# shellcheck disable=SC2086 # mutant names: no white space (mutants.sh refuses it)
"$ROOT/syntwin" mutants --out "$out" $names >"$out.log" 2>&1 || rc=$?
cat "$out.log"
# a matrix with rows that must not build fails, naming them (and only them) as not killed
if [ -n "$errors" ]; then
	check [ "$rc" = 1 ]
	check grep -qF "mutants: ERROR (not built or not checked, so not killed):$errors" "$out.log"
else
	check [ "$rc" = 0 ]
fi
check jq -e --arg e "${errors# }" --argjson n $# '.errors == $e and .survivors == "" and
	.ok == ($e == "") and (.kernels | length) == $n + 1' "$out/matrix.json"
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
# every cell of a row that must not build: "ERROR: does not build: GLOB", never KILLED
unbuilt() { # CELL ROW GLOB
	# shellcheck disable=SC2254 # GLOB is a pattern
	case $1 in
	"ERROR: does not build: "$3) return 0 ;;
	esac
	echo "$2: '$1', want 'ERROR: does not build: $3'"
	return 1
}
for spec in "$@"; do
	m=$(basename "${spec%%:*}" .patch) killers=,${spec#*:},
	case $spec in *:ERROR=*)
		for c in comparator conformance selftest splat; do
			check unbuilt "$(cell "$m" "$c")" "$m $c" "${spec#*:ERROR=}"
		done
		continue ;;
	esac
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
