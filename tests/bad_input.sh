#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Host test: every flag of ./syntwin with a malformed, out-of-range or missing value, and the
# host-side inputs (profiles, replay files, rerun directories), each ends with exit 2 and a
# message naming the problem, before anything is built or booted. Pure userspace.
# usage: bad_input.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib.sh"
BUILD=$1
S=$ROOT/syntwin
n=0

# bad TEXT -- CMD...: CMD exits 2 and its stderr contains TEXT
bad() {
	text=$1
	shift 2
	n=$((n + 1))
	"$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	if [ "$rc" != 2 ] || ! grep -qF -- "$text" "$tmp/err"; then
		echo "FAIL: $* -> exit $rc (want 2), stderr: $(head -c 300 "$tmp/err") (want '$text')"
		fail=1
	fi
}

# the entry point itself
bad "usage: syntwin" -- "$S"
bad "unknown command 'frobnicate'" -- "$S" frobnicate
bad "unknown option '--frob'" -- "$S" --frob run
bad "--kernel needs a version" -- "$S" --kernel
bad "Debian has no package linux-source-0.01" -- "$S" --kernel 0.01 deps
bad "--series needs a directory" -- "$S" --series
# matrix: only kernels of kernel-series/KERNELS, a number of connections
bad "matrix: kernel '5.4' is not supported (kernel-series/KERNELS: 6.1 6.12" -- "$S" matrix --kernels 6.1,5.4
bad "matrix: --kernels needs a list" -- "$S" matrix --kernels
bad "matrix: --connections 'x' is not a non-negative number" -- "$S" matrix --connections x
bad "matrix: unknown option '--frob'" -- "$S" matrix --frob

# run: each numeric flag missing, malformed and out of range
for f in connections seed timeout entries smp parallel test-corrupt; do
	bad "run: --$f needs a value" -- "$S" run --$f
	bad "run: --$f '12x' is not a non-negative number" -- "$S" run --$f 12x
	bad "run: --$f '-3' is not a non-negative number" -- "$S" run --$f -3
done
bad "run: --connections 0 is out of range (1..100000000)" -- "$S" run --connections 0
bad "run: --connections 100000001 is out of range" -- "$S" run --connections 100000001
bad "run: --connections 99999999999999999999 is out of range" -- "$S" run --connections 99999999999999999999
bad "run: --seed 1000000000000000000 is out of range" -- "$S" run --seed 1000000000000000000
bad "run: --timeout 0 is out of range" -- "$S" run --timeout 0
bad "run: --entries 15 is out of range (16..16777216)" -- "$S" run --entries 15
bad "run: --entries 16777217 is out of range" -- "$S" run --entries 16777217
bad "run: --smp 0 is out of range" -- "$S" run --smp 0
bad "run: --parallel 65 is out of range (1..64)" -- "$S" run --parallel 65
bad "run: --test-corrupt 0 is out of range" -- "$S" run --test-corrupt 0
bad "run: --test-fault 'oops' is not panic, kill-server, splat or reset" -- "$S" run --test-fault oops
bad "run: --test-fault needs panic, kill-server, splat or reset" -- "$S" run --test-fault
bad "run: --mix needs a value" -- "$S" run --mix
bad "run: --mix 'spicy': known mixes are" -- "$S" run --mix spicy
bad "run: --out needs a value" -- "$S" run --out
: >"$tmp/afile"
bad "run: cannot create --out $tmp/afile/sub" -- "$S" run --out "$tmp/afile/sub"
bad "run: unknown option '--connection'" -- "$S" run --connection 5
bad "run: --replay needs a pcap file" -- "$S" run --replay
bad "run: --replay $tmp/nope.pcap: no such readable file" -- "$S" run --replay "$tmp/nope.pcap"
bad "run: --rerun needs an earlier run's results directory" -- "$S" run --rerun
bad "run: --rerun $tmp: no summary.json and connections.jsonl there" -- "$S" run --rerun "$tmp"
printf '{\n  "seed": 1\n}\n' >"$tmp/summary.json"
: >"$tmp/connections.jsonl"
bad "lacks seed, expected_connections or mix" -- "$S" run --rerun "$tmp" --out "$tmp/o"
rm -f "$tmp/summary.json" "$tmp/connections.jsonl"

# run --netem / --netem-back: tc's words only (what they mean, tc says in the guest)
bad "run: --netem needs a netem SPEC" -- "$S" run --netem
bad "run: --netem-back needs a netem SPEC" -- "$S" run --netem-back
bad "run: --netem 'loss 3%; reboot': a netem SPEC is tc's own words" -- "$S" run --netem 'loss 3%; reboot'
bad "run: --netem '': a netem SPEC is tc's own words" -- "$S" run --netem ''
bad "run: --netem-back 'loss \$x': a netem SPEC is tc's own words" -- "$S" run --netem-back 'loss $x'
# run --shard, merge, fingerprints
bad "run: --shard '3' is not I/N" -- "$S" run --shard 3
bad "run: --shard's N 0 is out of range (1..1024)" -- "$S" run --shard 0/0
bad "run: --shard's I 4 is out of range (0..3)" -- "$S" run --shard 4/4
bad "run: --shard's I 'x' is not a non-negative number" -- "$S" run --shard x/4
bad "run: --shard needs I/N" -- "$S" run --shard
mkdir -p "$tmp/earlier" && echo '{"seed": 1, "requested_connections": 10, "mix": "default"}' >"$tmp/earlier/summary.json" && : >"$tmp/earlier/connections.jsonl"
bad "run: --shard slices a seeded run: not a --rerun or a --replay" -- "$S" run --shard 1/2 --rerun "$tmp/earlier"
bad "usage: syntwin merge OUT SHARD_DIR..." -- "$S" merge "$tmp/merged"
bad "merge: $tmp/earlier/plan.json: no such file" -- "$S" merge "$tmp/merged" "$tmp/earlier"
bad "merge: $tmp/earlier is one of the shards; choose another OUT" -- "$S" merge "$tmp/earlier" "$tmp/x" "$tmp/earlier"
bad "merge: SHARD_DIR '$tmp/a b': white space and the characters * ? [ are not supported" -- "$S" merge "$tmp/m" "$tmp/a b"
bad "fingerprints: $tmp/nowhere/connections.jsonl: no such file" -- "$S" fingerprints "$tmp/nowhere"
bad "mutants: --shard's I 4 is out of range (0..3)" -- "$S" mutants --shard 4/4
bad "mutants: --shard 'x' is not I/N" -- "$S" mutants --shard x
# mutants --shard: the N lists (--list) are disjoint and together the whole list, in its order
"$S" mutants --list >"$tmp/all" 2>/dev/null
check [ "$(grep -c '' "$tmp/all")" -ge 10 ]
for i in 0 1 2; do "$S" mutants --shard "$i/3" --list >"$tmp/m$i" 2>/dev/null; check [ $? = 0 ]; done
check [ "$(sed -n '1~3p' "$tmp/all")" = "$(cat "$tmp/m0")" ]
check [ "$(sed -n '2~3p' "$tmp/all")" = "$(cat "$tmp/m1")" ]
check [ "$(sed -n '3~3p' "$tmp/all")" = "$(cat "$tmp/m2")" ]
# --debug: the debug mutants, exactly the patches of kernel-series/mutants/debug/; the one only
# a debug kernel can see is not in the default list (it would survive the default matrix)
"$S" mutants --debug --list >"$tmp/dbg" 2>/dev/null
check [ $? = 0 ]
check [ "$(cat "$tmp/dbg")" = "$(cd "$ROOT/kernel-series/mutants/debug" && ls ./*.patch | sed 's|^\./||; s|\.patch$||')" ]
check [ "$(grep -c '' "$tmp/dbg")" = 3 ]
check grep -qx use-after-free-saved-syn "$tmp/dbg"
check sh -c "! grep -qx use-after-free-saved-syn '$tmp/all'"

# vm
for f in smp mem timeout share; do
	bad "vm: --$f needs a value" -- "$S" vm --$f
done
bad "vm: --smp 'two' is not a non-negative number" -- "$S" vm --smp two -- true
bad "vm: --smp 65 is out of range (1..64)" -- "$S" vm --smp 65 -- true
bad "vm: --mem 64 is out of range (128..65536)" -- "$S" vm --mem 64 -- true
bad "vm: --timeout 0 is out of range" -- "$S" vm --timeout 0 -- true
bad "vm: --share $tmp/nope: no such directory" -- "$S" vm --share "$tmp/nope" -- true
bad "vm: no guest command" -- "$S" vm
bad "vm: unknown option '--fast'" -- "$S" vm --fast -- true

# mutants, bench, fuzz
bad "mutants: --connections needs a value" -- "$S" mutants --connections
bad "mutants: --connections 'lots' is not a non-negative number" -- "$S" mutants --connections lots
bad "mutants: no mutant 'no-such-mutant'" -- "$S" mutants no-such-mutant
bad "mutants: unknown option '--all'" -- "$S" mutants --all
bad "bench: --rounds needs a value" -- "$S" bench --rounds
bad "bench: --rounds 3 is out of range (7..100)" -- "$S" bench --rounds 3
bad "bench: --connections 'x' is not a non-negative number" -- "$S" bench --connections x
bad "bench: unknown option '--fastest'" -- "$S" bench --fastest
bad "fuzz: --seconds needs a value" -- "$S" fuzz --seconds
bad "fuzz: --seconds 0 is out of range" -- "$S" fuzz --seconds 0
bad "fuzz: no target 'nope' (known: decode profile pcap)" -- "$S" fuzz nope

# Paths: --out must be new, empty or an earlier run's; the paths the build passes through word
# lists (series, checkout, cache, build directory) may not hold white space or glob characters.
mkdir "$tmp/foreign" && : >"$tmp/foreign/precious.txt"
bad "run: --out $tmp/foreign is neither new, empty, nor an earlier syntwin run's results" -- \
	"$S" run --out "$tmp/foreign"
check [ -f "$tmp/foreign/precious.txt" ]
mkdir "$tmp/my series" "$tmp/glob[1]"
bad "--series '$tmp/my series': white space and the characters" -- "$S" --series "$tmp/my series" build
bad "--series '$tmp/glob[1]': white space and the characters" -- "$S" --series "$tmp/glob[1]" run
bad "SYNTWIN_CACHE '$tmp/a cache': white space" -- env SYNTWIN_CACHE="$tmp/a cache" "$S" build
bad "SYNTWIN_BUILD '$tmp/b*': white space" -- env SYNTWIN_BUILD="$tmp/b*" "$S" build
mkdir "$tmp/check out"
cp -a "$S" "$ROOT/vm" "$tmp/check out/" 2>/dev/null
bad "the syntwin checkout '$tmp/check out': white space" -- "$tmp/check out/syntwin" build
bad "mutants: 'a b': a mutant's name or path may not contain white space" -- "$S" mutants "a b"

# A malformed generator profile line: file:line and the field (the crafted generator's own
# check, run here in its counting mode, which reads the profiles and nothing else).
mkdir "$tmp/prof"
printf 'good family=4 ttl=64\n# comment\nworse family=4 ttl=300\n' >"$tmp/prof/mine.syn"
bad "$tmp/prof/mine.syn:3:" -- "$BUILD/guest/syntwin-crafted" --profiles "$tmp/prof" --count
bad "no shapes in $tmp" -- "$BUILD/guest/syntwin-crafted" --profiles "$tmp" --count
bad "profiles directory $tmp/none" -- "$BUILD/guest/syntwin-crafted" --profiles "$tmp/none" --count

[ $fail = 0 ] && echo "bad_input: all $n bad inputs exit 2 with a message naming the problem"
exit $fail
