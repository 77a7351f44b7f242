#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest: the seeds' TCP_SAVE_SYN behaviours (syntwin-conformance) over the client/server veth.
set -eu
/src/compare/topology.sh up
exec syntwin-conformance "$@"
