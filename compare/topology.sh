#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest only: netns "client" and "server" joined by veth c0 <-> s0, VLANs over it, and a
# persistent tun "tun0" and tap "tap0" in the server netns for crafted SYNs. Every address,
# index and VLAN id comes from common/topology.h (syntwin-topology prints it). The guest has no
# NIC, so none of these addresses can reach any real network.
# Each namespace is set up by one `ip -batch` (one process, not forty: under TCG each exec of
# ip costs about a tenth of a second).
# usage: topology.sh up|down
set -eu
topo=$(syntwin-topology) || { echo "topology.sh: syntwin-topology failed" >&2; exit 2; }
eval "$topo"
p4=$TOPO_PREFIX4 p6=$TOPO_PREFIX6
outer=$TOPO_QINQ_OUTER_VID inner=$TOPO_QINQ_INNER_VID single=$TOPO_VLAN_VID

# VLANs over one end of the veth pair (@1 c or s): QinQ (802.1ad outer, 802.1Q inside) and a
# single 802.1Q. At tc ingress the outer (or only) tag is already skb metadata; QinQ's inner
# tag is still in the bytes, and the kernel strips it before TCP saves the MAC header.
vlans() { # side qinq4 qinq6 vlan4 vlan6 ifindex
	d=$1 q=${1}0.$outer.$inner v=${1}0.$single i=$6
	echo "link add link ${d}0 name ${d}0.$outer index $((i + 1)) type vlan proto 802.1ad id $outer"
	echo "link add link ${d}0.$outer name $q index $((i + 2)) type vlan id $inner"
	echo "link add link ${d}0 name $v index $((i + 3)) type vlan id $single"
	echo "addr add $2/$p4 dev $q"
	echo "addr add $3/$p6 dev $q nodad"
	echo "addr add $4/$p4 dev $v"
	echo "addr add $5/$p6 dev $v nodad"
	for l in ${d}0.$outer $q $v; do
		echo "link set $l up"
	done
}

client_cmds() {
	echo "addr add $TOPO_CLIENT4/$p4 dev c0"
	echo "addr add $TOPO_CLIENT6/$p6 dev c0 nodad"
	# the client's TCP-MD5 source addresses (the server holds a key for these peers only);
	# deprecated, so source address selection never picks them for other connections
	echo "addr add $TOPO_MD5_CLIENT4/$p4 dev c0"
	echo "addr add $TOPO_MD5_CLIENT6/$p6 dev c0 nodad preferred_lft 0"
	echo "link set lo up"
	echo "link set c0 up"
	vlans c "$TOPO_QINQ_CLIENT4" "$TOPO_QINQ_CLIENT6" "$TOPO_VLAN_CLIENT4" "$TOPO_VLAN_CLIENT6" \
		"$TOPO_IFINDEX_C0"
}

server_cmds() {
	echo "addr add $TOPO_SERVER4/$p4 dev s0"
	echo "addr add $TOPO_SERVER6/$p6 dev s0 nodad"
	echo "link set lo up"
	echo "link set s0 up"
	vlans s "$TOPO_QINQ_SERVER4" "$TOPO_QINQ_SERVER6" "$TOPO_VLAN_SERVER4" "$TOPO_VLAN_SERVER6" \
		"$TOPO_IFINDEX_S0"
	echo "tuntap add dev tun0 mode tun"
	# tap0: the crafted peer's Ethernet variant; the peer's MAC is a permanent neighbour
	echo "tuntap add dev tap0 mode tap"
	echo "addr add $TOPO_TAP_SELF4/$p4 dev tap0"
	echo "addr add $TOPO_TAP_SELF6/$p6 dev tap0 nodad"
	echo "link set tap0 up"
	echo "neigh add $TOPO_TAP_PEER4 lladdr $TOPO_TAP_PEER_MAC dev tap0 nud permanent"
	echo "neigh add $TOPO_TAP_PEER6 lladdr $TOPO_TAP_PEER_MAC dev tap0 nud permanent"
	echo "addr add $TOPO_TUN_SELF4/$p4 dev tun0"
	echo "addr add $TOPO_TUN_SELF6/$p6 dev tun0 nodad"
	echo "link set tun0 up"
}

case ${1:-up} in
up)
	# Distinct ifindexes: the witness keys its per-device facts by ifindex, and each netns
	# numbers its devices from 1, so c0 (client) and s0 (server) would both be 2.
	printf '%s\n' "netns add client" "netns add server" \
		"link add c0 index $TOPO_IFINDEX_C0 netns client type veth peer name s0 index $TOPO_IFINDEX_S0 netns server" |
		ip -batch -
	# No pipes whose failure is lost: each batch's list goes through a file.
	client_cmds >/tmp/topology.client
	server_cmds >/tmp/topology.server
	ip -n client -batch /tmp/topology.client
	ip -n server -batch /tmp/topology.server
	rm -f /tmp/topology.client /tmp/topology.server
	;;
down)
	ip netns del client 2>/dev/null || true
	ip netns del server 2>/dev/null || true
	;;
*) echo "usage: topology.sh up|down" >&2; exit 2 ;;
esac
