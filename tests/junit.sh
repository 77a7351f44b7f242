#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The suite's JUnit XML (`syntwin test` has CTest write BUILD/junit.xml): CTest's writer, run
# here on one of the suite's own tests and on a one-test project whose test fails, read back
# with xmllint (Debian's libxml2-utils): well formed, each test a testcase with its name and
# status, a failure counted and marked.
# usage: junit.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib.sh"
b=$1
x=$tmp/junit.xml
ctest --test-dir "$b" -R '^unit\.runner_opts$' --output-junit "$x" >"$tmp/ctest.log" 2>&1
check [ $? = 0 ]
check xmllint --noout "$x"
q() { xmllint --xpath "$1" "$x"; }
check [ "$(q 'count(//testcase)')" = 1 ]
check [ "$(q 'string(//testcase/@name)')" = unit.runner_opts ]
check [ "$(q 'string(//testcase/@status)')" = run ]
check [ "$(q 'string(//testsuite/@failures)')" = 0 ]
# a failing test: a CTest project of one test that fails, written by the same CTest
mkdir "$tmp/p"
printf 'add_test(must.fail /bin/sh -c "exit 1")\n' >"$tmp/p/CTestTestfile.cmake"
ctest --test-dir "$tmp/p" --output-junit "$x" >"$tmp/ctest2.log" 2>&1
check [ $? != 0 ]
check xmllint --noout "$x"
check [ "$(q 'string(//testsuite/@failures)')" = 1 ]
check [ "$(q 'string(//testcase[@name="must.fail"]/@status)')" = fail ]
# and `syntwin test` asks CTest for it
check grep -q -- '--output-junit "$BUILD/junit.xml"' "$ROOT/syntwin"
exit "$fail"
