#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest test of the consumer's take of a flow entry (take_flow): attach the witness in the
# server netns, run guest_take (no allocation per take, the claims on an entry), detach.
set -eu
/src/compare/topology.sh up
syntwin-loader attach --netns server --dev s0 --cgroup /sys/fs/cgroup --entries 4096
rc=0
guest_take || rc=1
syntwin-loader detach || rc=1
exit $rc
