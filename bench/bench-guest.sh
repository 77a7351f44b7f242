#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest half of bench/bench.sh, one boot: the connection-rate rounds and BPF run-time
# statistics (syntwin-conn-rate), then the memory measurement (bench/memory-guest.sh).
# usage: bench-guest.sh ROUNDS CONNECTIONS MEMORY_CONNECTIONS
set -eu
rounds=$1 n=$2 mem_n=$3
/src/compare/topology.sh up
mkdir -p /tmp/bench
syntwin-conn-rate --rounds "$rounds" --connections "$n" --dir /tmp/bench >/mnt/share/rates.json.tmp
mv /mnt/share/rates.json.tmp /mnt/share/rates.json
cp /tmp/bench/rates.dat /mnt/share/rates.dat
rm -rf /tmp/bench
/src/compare/topology.sh down
sh /src/bench/memory-guest.sh "$mem_n" 65536
