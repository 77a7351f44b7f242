#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest half of bench/memory.sh: topology, the witness attached (so its maps can be measured),
# then syntwin-memory's JSON into the share.
set -eu
n=$1 entries=$2
/src/compare/topology.sh up
syntwin-loader attach --netns server --dev s0 --cgroup /sys/fs/cgroup --entries "$entries" >/dev/null
syntwin-memory "$n" >/mnt/share/memory.json.tmp
mv /mnt/share/memory.json.tmp /mnt/share/memory.json
