#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# One definition of the guest network: syntwin-topology prints every TOPO_ definition of
# common/topology.h with the header's own value, exactly once, and no C or shell source
# outside the header spells one of its addresses as a string.
# usage: topology.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib.sh"
prog=$1/guest/syntwin-topology
hdr=$ROOT/common/topology.h
check [ -x "$prog" ]
"$prog" >"$tmp/env"
check [ $? = 0 ]
# the header's definitions as NAME=VALUE (quotes and trailing comments dropped)
sed -n 's|^#define \(TOPO_[A-Z0-9_]*\)[[:space:]]*"\{0,1\}\([^"[:space:]]*\)"\{0,1\}.*$|\1=\2|p' "$hdr" |
	LC_ALL=C sort >"$tmp/want"
LC_ALL=C sort "$tmp/env" >"$tmp/got"
check [ "$(grep -c '' "$tmp/want")" -ge 30 ]
check cmp "$tmp/want" "$tmp/got"
check [ -z "$(cut -d= -f1 "$tmp/got" | uniq -d)" ]
# the values are what a shell reads back: eval them and compare one of each kind
eval "$(cat "$tmp/env")"
check [ "$TOPO_SERVER4" = "$(sed -n 's/^#define TOPO_SERVER4 "\(.*\)"$/\1/p' "$hdr")" ]
check [ "$TOPO_PORT_BASE" -gt 0 ]
# extra arguments are refused
check sh -c '! "$1" x 2>/dev/null' _ "$prog"
# no other source spells a topology address (IPv4, IPv6 or MAC) as a string literal
for v in $(sed -n 's/^TOPO_[A-Z0-9_]*=\([0-9a-f]*[.:].*\)$/\1/p' "$tmp/want"); do
	hits=$(cd "$ROOT" && grep -rlF "\"$v\"" --include='*.c' --include='*.h' --include='*.sh' \
		bpf loader gen compare judge record fingerprint common coverage tests bench vm | grep -v '^common/topology.h$')
	[ -z "$hits" ] || echo "FAIL: \"$v\" spelled outside common/topology.h in: $hits"
	[ -z "$hits" ] || fail=1
done
[ $fail = 0 ] && echo "topology: all checks passed"
exit $fail
