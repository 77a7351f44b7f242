#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The kill matrix: the reference kernel (the series) and each mutant (series + one
# kernel-series/mutants/NAME.patch, built incrementally on the reference tree) against three
# checks: the comparator run, the conformance suite, and the series' selftest. Exit 0 only if
# the reference passes all three and every mutant fails at least one.
#
# usage: mutants.sh [--connections N] [--out DIR] [NAME...]   (called as `syntwin mutants`)
# Each check's output is kept in DIR/<kernel>/<check>.log; the matrix in DIR/matrix.txt and
# DIR/matrix.json.
set -eu
. "$(dirname "$0")/lib.sh"
syntwin=$SYNTWIN_ROOT/syntwin
mdir=$SYNTWIN_ROOT/kernel-series/mutants
n=2000 out=
while [ $# -gt 0 ]; do
	case $1 in
	--connections) [ $# -ge 2 ] || usage_die "mutants: --connections needs a value"
		num_arg "mutants: --connections" "$2" 1 100000000
		n=$2; shift 2 ;;
	--out) [ $# -ge 2 ] || usage_die "mutants: --out needs a directory"; out=$2; shift 2 ;;
	-*) usage_die "mutants: unknown option '$1'" ;;
	*) break ;;
	esac
done
if [ $# -eq 0 ]; then
	set -- $(cd "$mdir" && ls ./*.patch | sed 's|^\./||; s|\.patch$||')
fi
for m in "$@"; do
	[ -f "$mdir/$m.patch" ] || usage_die "mutants: no mutant '$m' (kernel-series/mutants/$m.patch)"
done
[ -n "$out" ] || out=$SYNTWIN_ROOT/results/mutants/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out" || usage_die "mutants: cannot create $out"
out=$(cd "$out" && pwd)
series_args="--kernel ${SYNTWIN_KERNEL:-6.1} --series ${SYNTWIN_SERIES:-$SYNTWIN_ROOT/kernel-series}"

# One check on one kernel: prints "pass", "KILLED: <first failure>" or "ERROR: <why>".
# $1 kernel name, $2 check name, $3 extra patch or "", then the syntwin command.
check() {
	k=$1 c=$2 patch=$3
	shift 3
	log=$out/$k/$c.log
	rc=0
	# shellcheck disable=SC2086
	SYNTWIN_EXTRA_PATCH=$patch "$syntwin" $series_args "$@" >"$log" 2>&1 || rc=$?
	case $rc in
	0) echo pass ;;
	3) echo "none: the series has no selftest" ;;
	1 | 124 | 125)
		case $rc in
		124) why="guest timed out" ;;
		125) why="guest kernel panic or boot failure" ;;
		*) why=$(first_failure "$c" "$log") ;;
		esac
		echo "KILLED: $why" ;;
	*) echo "ERROR: status $rc, see $log" ;;
	esac
}
# The first line that says what failed, per check kind.
first_failure() {
	case $1 in
	comparator)
		u=$(sed -n 's/.*"unexplained": *\([0-9]*\).*/\1/p' "$(dirname "$2")/run/summary.json" 2>/dev/null)
		line=$(grep -m1 -E '^syntwin: IPv[46] .*: (differ|native-missing|bpf-missing)' "$2" | sed 's/^syntwin: //')
		[ -z "$line" ] || line="${u:-?} unexplained; $line" ;;
	conformance) line=$(grep -m1 '^FAIL ' "$2" || true) ;;
	selftest) line=$(grep -m1 '^not ok ' "$2" || true) ;;
	esac
	[ -n "$line" ] || line=$(grep -v '^==>' "$2" | tail -n 1)
	printf '%s\n' "$line" | cut -c1-110
}

json_escape() { sed 's/\\/\\\\/g; s/"/\\"/g'; }
rows=
one_kernel() {
	k=$1 patch=$2
	mkdir -p "$out/$k"
	stage "mutants: $k: build"
	t0=$(date +%s)
	rc=0
	# shellcheck disable=SC2086
	SYNTWIN_EXTRA_PATCH=$patch "$syntwin" $series_args build >"$out/$k/build.log" 2>&1 || rc=$?
	build_s=$(($(date +%s) - t0))
	# the last kernel line names the kernel booted: the mutant's, or the reference's
	if grep '^==> kernel 6' "$out/$k/build.log" | tail -n 1 | grep -q 'cached in'; then
		build_s=cached
	else
		build_s=${build_s}s
	fi
	if [ "$rc" -ne 0 ]; then
		say "mutants: $k does not build (status $rc); see $out/$k/build.log"
		tail -n 5 "$out/$k/build.log" >&2
		r_cmp="ERROR: build failed" r_conf=$r_cmp r_self=$r_cmp
	else
		stage "mutants: $k: built in ${build_s}s; comparator, conformance, selftest"
		r_cmp=$(check "$k" comparator "$patch" run --connections "$n" --out "$out/$k/run")
		r_conf=$(check "$k" conformance "$patch" vm --smp 1 -- sh /src/tests/guest/conformance.sh)
		r_self=$(check "$k" selftest "$patch" vm --smp 1 -- sh /src/tests/guest/selftests.sh)
	fi
	printf '%-22s %6s  %-40.40s  %-40.40s  %.40s\n' "$k" "$build_s" "$r_cmp" "$r_conf" "$r_self" |
		tee -a "$out/matrix.txt"
	row=$(printf '{"kernel": "%s", "build_seconds": "%s", "comparator": "%s", "conformance": "%s", "selftest": "%s"}' \
		"$k" "$build_s" "$(printf '%s' "$r_cmp" | json_escape)" "$(printf '%s' "$r_conf" | json_escape)" \
		"$(printf '%s' "$r_self" | json_escape)")
	rows="$rows${rows:+,
  }$row"
	verdicts="$r_cmp|$r_conf|$r_self"
}

printf '%-22s %6s  %-40s  %-40s  %s\n' kernel build comparator conformance selftest >"$out/matrix.txt"
cat "$out/matrix.txt"
status=0
one_kernel reference ""
case $verdicts in
pass\|pass\|pass | pass\|pass\|none*) ;;
*) say "mutants: the reference kernel does not pass every check"; status=1 ;;
esac
survivors=
for m in "$@"; do
	one_kernel "$m" "$mdir/$m.patch"
	case $verdicts in
	*ERROR*) status=1 ;;
	*KILLED*) ;;
	*) survivors="$survivors $m"; status=1 ;;
	esac
done
printf '{\n  "connections": %s,\n  "kernels": [\n  %s\n  ],\n  "survivors": "%s",\n  "ok": %s\n}\n' \
	"$n" "$rows" "${survivors# }" "$([ $status = 0 ] && echo true || echo false)" >"$out/matrix.json"
[ -z "$survivors" ] || say "mutants: SURVIVED (no check caught them):$survivors"
[ $status = 0 ] && stage "mutants: reference clean, every mutant killed; matrix in $out/matrix.txt"
exit $status
