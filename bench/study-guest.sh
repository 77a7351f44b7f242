#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest half of bench/study.sh, one boot: each capture point's cost alone
# (syntwin-conn-rate --study), its rates and BPF statistics to the share.
# usage: study-guest.sh ROUNDS CONNECTIONS auto|generic
set -eu
rounds=$1 n=$2 mode=$3
xdp=
[ "$mode" = auto ] || xdp=--xdp-generic
/src/compare/topology.sh up
mkdir -p /tmp/study
# shellcheck disable=SC2086 # $xdp: one flag or nothing
syntwin-conn-rate --study $xdp --rounds "$rounds" --connections "$n" --dir /tmp/study >/mnt/share/rates.json.tmp
mv /mnt/share/rates.json.tmp /mnt/share/rates.json
cp /tmp/study/rates.dat /mnt/share/rates.dat
rm -rf /tmp/study
/src/compare/topology.sh down
