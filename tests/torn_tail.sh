#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# set_torn_tail_aside (vm/lib.sh), which `syntwin run` applies to connections.jsonl after every
# guest: a last line cut short by a kill moves, byte for byte, to .NAME.torn; a whole file, an
# empty one and a planted symlink are left alone. Pure userspace on files in $tmp.
set -u
. "$(dirname "$0")/lib.sh"
. "$ROOT/vm/lib.sh"
f=$tmp/connections.jsonl
torn=$tmp/.connections.jsonl.torn
aside() { set_torn_tail_aside "$f" 2>"$tmp/said"; }

# whole lines, then 9 bytes of a tenth: cut back to the whole lines, the 9 bytes set aside
printf '{"n":0}\n{"n":1}\n' >"$tmp/whole"
cp "$tmp/whole" "$f" && printf '{"n":2,"d' >>"$f"
aside
check [ $? = 1 ]
check cmp -s "$f" "$tmp/whole"
check [ "$(cat "$torn")" = '{"n":2,"d' ]
check [ "$(wc -c <"$torn")" = 9 ]
check grep -qF "connections.jsonl: its last 9 byte(s) were cut short mid-write (no record); set aside in $torn" "$tmp/said"

# a whole file: untouched, nothing said, no .torn made (an old one from above is removed first)
rm -f "$torn"
cp "$tmp/whole" "$f"
aside
check [ $? = 0 ]
check cmp -s "$f" "$tmp/whole"
check [ ! -e "$torn" ]
check [ ! -s "$tmp/said" ]

# no newline at all: all of it is the torn tail, the file ends empty
printf 'abc' >"$f"
aside
check [ $? = 1 ]
check [ ! -s "$f" ]
check [ "$(cat "$torn")" = abc ]

# an empty file and a missing one: nothing to do
: >"$f"
aside
check [ $? = 0 ]
rm -f "$f"
aside
check [ $? = 0 ]

# a symlink (as a guest could plant) is not followed: its target keeps its torn bytes
printf 'x\ny' >"$tmp/target"
ln -s "$tmp/target" "$f"
aside
check [ $? = 0 ]
check [ "$(wc -c <"$tmp/target")" = 3 ]

# a torn tail with a NUL byte and no trailing text: cut exactly, byte count includes it
printf '{"n":0}\n\000' >"$tmp/nul"
rm -f "$f" && cp "$tmp/nul" "$f"
aside
check [ $? = 1 ]
check [ "$(wc -c <"$f")" = 8 ]
check [ "$(wc -c <"$torn")" = 1 ]

[ $fail = 0 ] && echo "torn_tail: all checks passed"
exit $fail
