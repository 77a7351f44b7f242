#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The kill matrix: the reference kernel (the series) and each mutant (series + one
# kernel-series/mutants/NAME.patch, or the kernel's own copy kernel-series/mutants/VER/NAME.patch
# where its code differs; built incrementally on the reference tree) against three
# checks: the comparator run, the conformance suite, and the series' selftest; a fourth column
# names the first kernel splat (vm/splat.c) any of the three guests reported. Exit 0 only if
# the reference passes all four and every mutant fails at least one.
#
# usage: mutants.sh [--debug] [--connections N] [--out DIR] [--shard I/N] [--list]
#                   [NAME|FILE.patch...]
#        (`syntwin mutants`; --list prints the mutants it would check and stops)
# --debug (or `syntwin --debug mutants`): every kernel is built with kernel-series/debug.config
# (KASAN, kmemleak, lockdep), and without names the mutants are kernel-series/mutants/debug/:
# the memory bugs whose bytes are right, which only the debug kernel's splat can show.
# Each check's output is kept in DIR/<kernel>/<check>.log; the matrix in DIR/matrix.txt and
# DIR/matrix.json. --shard I/N: the mutants numbered i % N == I of the list (in its order), each
# shard with the reference row, so the N matrices together are the whole one (a CI matrix).
set -eu
. "$(dirname "$0")/lib.sh"
syntwin=$SYNTWIN_ROOT/syntwin
mdir=$SYNTWIN_ROOT/kernel-series/mutants
n=2000 out= shard= list=
while [ $# -gt 0 ]; do
	case $1 in
	--list) list=1; shift ;;
	--debug) export SYNTWIN_DEBUG=1; shift ;;
	--shard) [ $# -ge 2 ] || usage_die "mutants: --shard needs I/N"
		shard=$(shard_arg "mutants: --shard" "$2") || exit 2; shift 2 ;;
	--connections) [ $# -ge 2 ] || usage_die "mutants: --connections needs a value"
		num_arg "mutants: --connections" "$2" 1 100000000
		n=$2; shift 2 ;;
	--out) [ $# -ge 2 ] || usage_die "mutants: --out needs a directory"; out=$2; shift 2 ;;
	-*) usage_die "mutants: unknown option '$1'" ;;
	*) break ;;
	esac
done
debug=${SYNTWIN_DEBUG:-0}
[ "$debug" = 0 ] || debug=1
kver=${SYNTWIN_KERNEL:-$(supported_kernels | head -n 1)}
# a reviewer's checkout (--tree): its own version picks a mutant's copy for that version
[ -z "${SYNTWIN_TREE:-}" ] || kver=$(sed -n '1,5{s/^VERSION = \([0-9]*\)$/\1/p;s/^PATCHLEVEL = \([0-9]*\)$/.\1/p}' "$SYNTWIN_TREE/Makefile" | tr -d '\n')
if [ $# -eq 0 ]; then
	if [ "$debug" = 1 ]; then
		set -- $(cd "$mdir/debug" && ls ./*.patch | sed 's|^\./||; s|\.patch$||')
	else
		# every kernel's mutants, and those of this kernel's own code (mutants/VER/)
		set -- $({ (cd "$mdir" && ls ./*.patch) && if [ -d "$mdir/$kver" ]; then
			(cd "$mdir/$kver" && ls ./*.patch); fi; } | sed 's|^\./||; s|\.patch$||' | sort -u)
	fi
fi
if [ -n "$shard" ]; then
	si=${shard%%/*} sn=${shard#*/} i=0 mine=
	for m in "$@"; do
		[ $((i % sn)) != "$si" ] || mine="$mine $m"
		i=$((i + 1))
	done
	# shellcheck disable=SC2086 # names without white space (checked below)
	set -- $mine
	[ -n "$list" ] || stage "mutants: shard $si/$sn:${mine:- no mutant, the reference alone}"
fi
# A mutant is a NAME of kernel-series/mutants/NAME.patch (the same bug on every supported
# kernel; kernel-series/mutants/VER/NAME.patch is kernel VER's copy where the code around it
# moved; kernel-series/mutants/debug/NAME.patch one for debug kernels), or a path to a .patch
# file (a reviewer's own, or a test's). Its row is named by the file name without .patch.
mutant_patch() {
	case $1 in
	*/* | *.patch) [ -f "$1" ] && printf '%s/%s\n' "$(cd "$(dirname "$1")" && pwd)" "$(basename "$1")" ;;
	*) for d in "$mdir/$kver" "$mdir/debug" "$mdir"; do
		[ -f "$d/$1.patch" ] || continue
		printf '%s\n' "$d/$1.patch"
		return 0
	done
	return 1 ;;
	esac
}
for m in "$@"; do
	case $m in *[[:space:]]*) usage_die "mutants: '$m': a mutant's name or path may not contain white space" ;; esac
	mutant_patch "$m" >/dev/null ||
		usage_die "mutants: no mutant '$m' (kernel-series/mutants/$m.patch, or a path to a .patch file)"
done
if [ -n "$list" ]; then # the mutants this matrix (this shard) would check, one a line
	for m in "$@"; do printf '%s\n' "$m"; done
	exit 0
fi
[ -n "$out" ] || out=$SYNTWIN_ROOT/results/mutants/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out" || usage_die "mutants: cannot create $out"
out=$(cd "$out" && pwd)
series_args="--kernel $kver --series ${SYNTWIN_SERIES:-$(reference_series "$kver")}"
[ -z "${SYNTWIN_TREE:-}" ] || series_args="--tree $SYNTWIN_TREE${SYNTWIN_PATCHES:+ --patches $SYNTWIN_PATCHES}${SYNTWIN_PROVIDES:+ --provides $SYNTWIN_PROVIDES}"

# One check on one kernel: prints "pass", "fail: <first failure>", "none: ..." or "ERROR: <why>".
# Whether a fail is a kill is decided against the reference (verdict()).
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
	4) echo "none: the series has no selftest (skipped, kselftest's 4)" ;;
	1) echo "fail: $(first_failure "$c" "$log")" ;;
	124) echo "fail: guest timed out" ;;
	125) echo "fail: guest kernel panic or the guest stopped without a status" ;;
	# 2: a setup error (a build, the guest image, QEMU that could not start, a usage error):
	# the kernel was never checked, so this is no kill.
	*) echo "ERROR: status $rc, the check did not run; see $log" ;;
	esac
}
# The first line that says what failed, per check kind (never fails itself: a missing file is
# "no detail").
first_failure() {
	line=
	case $1 in
	comparator)
		# the first expectation the run failed (judge/expect.h), else the first unexplained
		# record
		s=$(dirname "$2")/run/summary.json
		u=
		[ ! -f "$s" ] || u=$(jq -r '.unexplained // empty' "$s" 2>/dev/null || :)
		line=$(grep -m1 '^syntwin: expectation failed: ' "$2" || :)
		line=${line#syntwin: expectation failed: }
		[ -n "$line" ] && line=${line%% (*} && return_line "$line" && return 0
		line=$(grep -m1 -E '^syntwin: IPv[46] .*: (differ|native-missing|bpf-missing|dropped-by-kernel|unbound|cookie-not-due|cookie-missing|connection-failed|capture-truncated|reader-differs)' "$2" || :)
		line=${line#syntwin: }
		[ -z "$line" ] || line="${u:-?} unexplained; $line" ;;
	conformance) line=$(grep -m1 '^FAIL ' "$2" || :) ;;
	selftest) line=$(grep -m1 '^not ok ' "$2" || :) ;;
	esac
	# nothing the check itself found: the kernel splat that failed it, if that was it
	[ -n "$line" ] || ! grep -q '^syntwin-vm: error: kernel splat (' "$2" || line="kernel splat (see splat)"
	[ -n "$line" ] || line=$(grep -v '^==>' "$2" | tail -n 1 || :)
	return_line "${line:-no detail in the log}"
}
return_line() { printf '%s\n' "$1" | cut -c1-110; }
# A mutant's cell from its check result and the reference's for the same check in this run:
# KILLED only where the check failed here and passed on the reference.
verdict() { # mutant-result reference-result
	case $1 in
	fail:*)
		case $2 in
		pass) echo "KILLED: ${1#fail: }" ;;
		*) echo "ERROR: fails, but so does the reference (${1#fail: })" ;;
		esac ;;
	*) echo "$1" ;;
	esac
}
# Why a build failed, from its log: the stage line build_failed() prints, and the patch that
# did not apply or the first compiler error.
build_error() {
	why=$(grep -m1 -E 'does not apply|error:.*\.[ch]:|[^ ]*\.[ch]:[0-9]+:[0-9]+: error' "$1" || :)
	[ -n "$why" ] || why=$(grep -m1 'syntwin: error:' "$1" || :)
	printf 'ERROR: does not build: %s\n' "$(printf '%s' "${why#syntwin: error: }" | cut -c1-90)"
}

# The splat cell: the first kernel splat the runner named in this kernel's check logs
# (comparator, conformance, selftest, in that order), "fail: KIND: the line" without its
# timestamp; "pass" when no guest reported one. A splat also failed its check; this cell says
# which bug the kernel itself reported, where the other cells say what the check saw.
splat_cell() { # kernel-name
	line=
	for c in comparator conformance selftest; do
		[ -f "$out/$1/$c.log" ] || continue
		line=$(grep -m1 '^syntwin-vm: error: kernel splat (' "$out/$1/$c.log" || :)
		[ -z "$line" ] || break
	done
	[ -n "$line" ] || { echo pass; return 0; }
	kind=${line#*kernel splat (} kind=${kind%%)*} text=${line#*): }
	text=$(printf '%s\n' "$text" | sed 's/^\[ *[0-9.]*\] //')
	case $text in "$kind"*) ;; *) text="$kind: $text" ;; esac
	printf 'fail: %s (%s)\n' "$text" "$c" | cut -c1-160
}

rows=
one_kernel() {
	k=$1 patch=$2
	mkdir -p "$out/$k"
	stage "mutants: $k: build"
	t0=$(date +%s)
	rc=0
	# shellcheck disable=SC2086
	SYNTWIN_EXTRA_PATCH=$patch "$syntwin" $series_args build >"$out/$k/build.log" 2>&1 || rc=$?
	build_s=$(($(date +%s) - t0))s
	# the last kernel line names the kernel booted: the mutant's, or the reference's
	if grep '^==> kernel 6' "$out/$k/build.log" | tail -n 1 | grep -q 'cached in'; then
		build_s=cached
	fi
	if [ "$rc" -ne 0 ]; then
		say "mutants: $k does not build (status $rc); see $out/$k/build.log"
		grep -E 'does not apply|: error: |syntwin: error:' "$out/$k/build.log" | head -n 6 >&2 || :
		r_cmp=$(build_error "$out/$k/build.log") r_conf=$r_cmp r_self=$r_cmp r_splat=$r_cmp
	else
		stage "mutants: $k: built ($build_s); comparator, conformance, selftest"
		r_cmp=$(check "$k" comparator "$patch" run --connections "$n" --out "$out/$k/run")
		# held to the series' declaration, as the run is (a mutant inherits its reference's)
		r_conf=$(check "$k" conformance "$patch" conformance)
		r_self=$(check "$k" selftest "$patch" selftest)
		r_splat=$(splat_cell "$k")
	fi
	if [ -n "$patch" ]; then
		r_cmp=$(verdict "$r_cmp" "$ref_cmp")
		r_conf=$(verdict "$r_conf" "$ref_conf")
		r_self=$(verdict "$r_self" "$ref_self")
		r_splat=$(verdict "$r_splat" "$ref_splat")
	fi
	printf '%-24s %6s  %-40.40s  %-40.40s  %-40.40s  %.60s\n' "$k" "$build_s" "$r_cmp" "$r_conf" \
		"$r_self" "$r_splat" | tee -a "$out/matrix.txt"
	# jq writes the row: the cells quote compiler and kernel messages, any character in them
	row=$(jq -nc --arg k "$k" --arg b "$build_s" --arg c "$r_cmp" --arg f "$r_conf" --arg s "$r_self" \
		--arg p "$r_splat" \
		'{kernel: $k, build_seconds: $b, comparator: $c, conformance: $f, selftest: $s, splat: $p}')
	rows="$rows${rows:+
}$row"
	verdicts="$r_cmp|$r_conf|$r_self|$r_splat"
}

# matrix.json: the rows so far (one JSON object a line in $rows) and the outcome.
matrix_json() { # survivors errors ok
	printf '%s\n' "$rows" | jq -s --argjson n "$n" --arg s "$1" --arg e "$2" --argjson ok "$3" \
		--arg sh "$shard" --argjson d "$([ "$debug" = 1 ] && echo true || echo false)" \
		'{connections: $n, shard: $sh, debug: $d, kernels: ., survivors: $s, errors: $e, ok: $ok}' \
		>"$out/matrix.json"
}

printf '%-24s %6s  %-40s  %-40s  %-40s  %s\n' kernel build comparator conformance selftest \
	"splat$([ "$debug" = 0 ] || echo ' (debug kernels)')" >"$out/matrix.txt"
cat "$out/matrix.txt"
status=0
one_kernel reference ""
ref_cmp=$r_cmp ref_conf=$r_conf ref_self=$r_self ref_splat=$r_splat
case $verdicts in
pass\|pass\|pass\|pass | pass\|pass\|none*\|pass) ;;
*ERROR*)
	# Nothing is KILLED without a reference that ran: stop here, named, with the matrix so far.
	matrix_json "" reference false
	say "mutants: the reference kernel could not be built or checked ($(printf '%s' "$verdicts" |
		tr '|' '\n' | grep -m1 ERROR)); no mutant can be judged"
	exit 2 ;;
*) say "mutants: the reference kernel does not pass every check"; status=1 ;;
esac
survivors= errors=
for m in "$@"; do
	one_kernel "$(basename "$m" .patch)" "$(mutant_patch "$m")"
	# Any ERROR cell makes the matrix fail, even in a row another check killed.
	case $verdicts in
	*ERROR*) errors="$errors $m"; [ "$status" != 0 ] || status=1 ;;
	*KILLED*) ;;
	*) survivors="$survivors $m"; [ "$status" != 0 ] || status=1 ;;
	esac
done
matrix_json "${survivors# }" "${errors# }" "$([ $status = 0 ] && echo true || echo false)"
# report.txt: the matrix for a reply on the list (record/report_text.c)
if [ -n "${SYNTWIN_TREE:-}" ]; then
	what="git tree $SYNTWIN_TREE at $(git -C "$SYNTWIN_TREE" describe --always --tags)"
else
	what="Debian linux-source-$kver + series $(basename "${SYNTWIN_SERIES:-$(reference_series "$kver")}")"
fi
rt=$(mktemp "$out/.report.XXXXXX") &&
	"${SYNTWIN_BUILD:-$SYNTWIN_ROOT/build}/record/syntwin-report" --kernel "$what" \
		--matrix "$out/matrix.json" >"$rt" && mv "$rt" "$out/report.txt" || {
	rm -f "$rt"
	say "mutants: no report.txt could be written"
	[ "$status" != 0 ] || status=2
}
[ -z "$survivors" ] || say "mutants: SURVIVED (no check caught them):$survivors"
[ -z "$errors" ] || say "mutants: ERROR (not built or not checked, so not killed):$errors"
[ $status = 0 ] && stage "mutants: reference clean, every mutant killed; matrix in $out/matrix.txt"
exit $status
