#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest test of the witness's ring buffer when it is full: attached with a 4096-byte ring,
# 40 connections bound while nothing reads it; guest_witness --ring-drops checks that exactly
# the records that fit are delivered and every other is counted as dropped and as lost.
set -eu
/src/compare/topology.sh up
syntwin-loader attach --netns server --dev s0 --cgroup /sys/fs/cgroup --entries 64 --ring-bytes 4096
rc=0
guest_witness --ring-drops 40 || rc=1
syntwin-loader detach || rc=1
exit $rc
