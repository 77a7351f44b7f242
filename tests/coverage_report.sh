#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Host: syntwin-coverage's two numbers on a made-up tree and tracefile, every count exact: the
# lines the names pick (words, bodies, a prototype that is not a body), gcov's executable
# lines only, a header's counts from two objects summed, a reason that covers a line and one
# that covers none, a file not profiled, one not built, a header nothing compiles; the
# series' added lines from a patch (tools/ skipped); and bad input refused with status 2.
# usage: coverage_report.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib.sh"
bin=$1/coverage/syntwin-coverage
t=$tmp/tree
mkdir -p "$t/net/ipv4" "$t/include/net" "$tmp/out"
cat >"$t/net/ipv4/a.c" <<'EOF'
/* a comment naming saved_syn */
static void body_fn(int a, int b);
static void other(void)
{
	x->saved_syn = NULL;
}
int foo(void)
{
	if (tp->save_syn)
		kfree(tp->saved_syn);
	return 0;
}
static void body_fn(int a,
		    int b)
{
	a++;
	b++;
}
EOF
: >"$t/net/ipv4/a.o"
# names in a string and in comments are no use of them; a line starting "*p =" is code
cat >"$t/net/ipv4/b.c" <<'EOF'
void b(void)
{
	kfree(sk->saved_syn);
	pr_info("saved_syn");
	/* saved_syn in a comment
	 * saved_syn continued */
	*p = sk->saved_syn;
}
EOF
: >"$t/net/ipv4/b.o" # built, not profiled
printf 'void c(void)\n{\n\tkfree(sk->saved_syn);\n}\n' >"$t/net/ipv4/c.c" # not built
printf 'static inline void h(void)\n{\n\tkfree(tp->saved_syn);\n}\n' >"$t/include/net/h.h"
printf 'static inline void g(void)\n{\n\tkfree(tp->saved_syn);\n}\n' >"$t/include/net/g.h"
cat >"$tmp/kernel.info" <<EOF
TN:
SF:/bld/net/ipv4/a.c
FN:3,other
FN:7,foo
FN:13,body_fn
DA:4,1
DA:5,1
DA:8,5
DA:9,5
DA:10,0
DA:11,5
DA:15,0
DA:16,0
DA:17,0
end_of_record
SF:/bld/include/net/g.h
FN:1,g
DA:3,0
end_of_record
SF:$tmp/ws/include/net/g.h
FN:1,g
DA:3,2
end_of_record
EOF
cat >"$tmp/names" <<'EOF'
# test names
word saved_syn
word save_syn
body body_fn
word tcp_never_there
EOF
printf 'foo\tkfree(tp->saved_syn);\tunreachable\tfreed only on close, which the test never does\nbody_fn\ta++;\tgap\ta caller nothing calls\nbody_fn\ta++\tunreachable\tnot the whole line: covers nothing\nnosuch\t*\tunreachable\tcovers nothing\n' >"$tmp/reasons"
cat >"$tmp/0001.patch" <<'EOF'
From: A <a@example.org>
Subject: [PATCH] test

---
--- a/net/ipv4/a.c
+++ b/net/ipv4/a.c
@@ -6,3 +6,5 @@ int foo(void)
 {
+	if (tp->save_syn)
+		kfree(tp->saved_syn);
 	return 0;
 }
@@ -30,0 +31 @@
+	not_in_tree();
--- a/net/ipv4/a.c
+++ new/net/ipv4/a.c
@@ -3,2 +3,4 @@
 static void renamed(void)
+{
+	x->saved_syn = NULL;
 }
--- a/include/net/h.h
+++ b/include/net/h.h
@@ -2,0 +3 @@
+	kfree(tp->saved_syn);
--- a/tools/x.c
+++ b/tools/x.c
@@ -1 +1,2 @@
 int x;
+int y;
-- 
2.39.2
EOF
run() { "$bin" --info "$tmp/kernel.info" --tree "$t/" --root /bld --root "$tmp/ws" --names "$tmp/names" \
	--reasons "$tmp/reasons" --patch "$tmp/0001.patch" --release 9.9-test --out "$tmp/out" "$@"; }
check run >"$tmp/stdout"
j=$tmp/out/coverage.json
want() { # JQ-PATH VALUE
	got=$(jq -c "$1" "$j")
	[ "$got" = "$2" ] || { echo "FAIL: $1 is $got, expected $2"; fail=1; }
}
want .release '"9.9-test"'
want '.series | [.executable, .executed, .not_executed_unreachable, .gaps, .not_profiled, .not_built, .headers_unmeasured, .not_found]' '[3,2,0,1,0,0,1,2]'
want '.series.not_executed | map("\(.file):\(.line) \(.function) \(.state)")' '["net/ipv4/a.c:10 foo gap","net/ipv4/a.c:0  not-found","net/ipv4/a.c:0  not-found"]'
want '.saved_copy | [.executable, .executed, .not_executed_unreachable, .gaps, .not_profiled, .not_built, .headers_unmeasured, .not_found]' '[7,3,1,3,2,1,1,0]'
want '.saved_copy.not_executed | map("\(.file):\(.line) \(.function) \(.state)")' \
	'["net/ipv4/a.c:10 foo unreachable","net/ipv4/a.c:15 body_fn gap","net/ipv4/a.c:16 body_fn gap","net/ipv4/a.c:17 body_fn gap","net/ipv4/b.c:3 b not-profiled","net/ipv4/b.c:7 b not-profiled"]'
want '.saved_copy.not_executed[0].why' '"unreachable in a guest: freed only on close, which the test never does"'
want '.saved_copy.not_executed[1].why' '"GAP: no traffic reaches it, and no reason is on record"'
want '.saved_copy.not_executed[2].why' '"GAP: a caller nothing calls"'
check grep -qx 'series hunks:     2 of 3 executable lines executed (66.7 %); not executed: 0 unreachable in a guest (reason on record), 1 gap(s); 2 not found in the tree' "$tmp/stdout"
check grep -qx 'names that match nothing in this tree: word tcp_never_there' "$tmp/stdout"
check grep -qx 'saved-copy lines: 3 of 7 executable lines executed (42.9 %); not executed: 1 unreachable in a guest (reason on record), 3 gap(s); 2 in files not profiled' "$tmp/stdout"
check grep -qx '2 reason(s) on record covered no line of this kernel' "$tmp/stdout"
check grep -q 'GAP: no traffic reaches it' "$tmp/out/coverage.txt"
# bad input: each refused, named, status 2
bad() { # WHAT TEXT ARGS...
	what=$1 text=$2
	shift 2
	rc=0
	"$bin" "$@" >/dev/null 2>"$tmp/err" || rc=$?
	[ "$rc" = 2 ] && grep -qF -- "$text" "$tmp/err" ||
		{ echo "FAIL: $what: status $rc, stderr: $(cat "$tmp/err")"; fail=1; }
}
base="--tree $t --names $tmp/names --reasons $tmp/reasons --out $tmp/out"
printf 'SF:/bld/x.c\nDA:1,1\n' >"$tmp/open.info"
# shellcheck disable=SC2086 # $base: plain words
bad "unclosed record" "is not closed" --info "$tmp/open.info" $base
printf 'SF:/bld/x.c\nDA:one,1\nend_of_record\n' >"$tmp/bad.info"
# shellcheck disable=SC2086
bad "malformed DA" "malformed record" --info "$tmp/bad.info" $base
: >"$tmp/empty.info"
# shellcheck disable=SC2086
bad "no counts" "no file's counts" --info "$tmp/empty.info" $base
printf 'word saved_syn\nwhole tcp\n' >"$tmp/bad.names"
bad "unknown name kind" "expected 'word|prefix|body IDENTIFIER'" --info "$tmp/kernel.info" --tree "$t" \
	--names "$tmp/bad.names" --reasons "$tmp/reasons" --out "$tmp/out"
for r in 'foo kfree no tabs' 'foo\tkfree\tlater\tnot a class'; do
	printf '%b\n' "$r" >"$tmp/bad.reasons"
	bad "reason '$r'" "expected FUNCTION<TAB>TEXT<TAB>unreachable|gap<TAB>WHY" --info "$tmp/kernel.info" \
		--tree "$t" --names "$tmp/names" --reasons "$tmp/bad.reasons" --out "$tmp/out"
done
printf -- '--- a/x.c\n+++ b/x.c\n@@ -1,2 +1,3 @@\n x\n+y\n' >"$tmp/short.patch"
# shellcheck disable=SC2086
bad "hunk cut short" "the last hunk is cut short" --info "$tmp/kernel.info" $base --patch "$tmp/short.patch"
bad "missing option" "are required" --info "$tmp/kernel.info"
printf 'net/ipv4/a.c\nnet/ipv4/zz.c\n' >"$tmp/profiled"
# shellcheck disable=SC2086
bad "a profiled file without counts" "net/ipv4/zz.c, which the kernel profiles, has no counts" \
	--info "$tmp/kernel.info" $base --root /bld --profiled "$tmp/profiled"
printf 'word nothing_here\n' >"$tmp/none.names"
bad "no saved-copy line" "no executable line touches the saved copy" --info "$tmp/kernel.info" \
	--tree "$t/" --names "$tmp/none.names" --reasons "$tmp/reasons" --out "$tmp/out"
exit "$fail"
