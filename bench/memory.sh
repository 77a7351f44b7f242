#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Memory per connection, as the article argued it: slab growth for N held (accepted, unread)
# connections with TCP_SAVE_SYN off, 1 and 2; what holding the SYN skb costs instead; the BPF
# witness's map bytes per record. Prints JSON (schema: docs/performance.md, "Memory").
# usage: bench/memory.sh [--connections N] [--entries N]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
n=2000 entries=65536
while [ $# -gt 0 ]; do
	case $1 in
	--connections) [ $# -ge 2 ] || { echo "memory.sh: --connections needs a value" >&2; exit 2; }; n=$2; shift 2 ;;
	--entries) [ $# -ge 2 ] || { echo "memory.sh: --entries needs a value" >&2; exit 2; }; entries=$2; shift 2 ;;
	*) echo "usage: bench/memory.sh [--connections N] [--entries N]" >&2; exit 2 ;;
	esac
done
share=$(mktemp -d)
trap 'rm -rf "$share"' EXIT
"$root/syntwin" vm --smp 1 --timeout 600 --share "$share" -- sh /src/bench/memory-guest.sh "$n" "$entries" >&2
cat "$share/memory.json"
