#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest only: netns "client" and "server" joined by veth c0 <-> s0, VLANs over it, and a
# persistent tun "tun0" and tap "tap0" in the server netns for crafted SYNs. Every address,
# index and VLAN id comes from common/topology.h (syntwin-topology prints it). The guest has no
# NIC, so none of these addresses can reach any real network.
# usage: topology.sh up|down
set -eu
topo=$(syntwin-topology) || { echo "topology.sh: syntwin-topology failed" >&2; exit 2; }
eval "$topo"
p4=$TOPO_PREFIX4 p6=$TOPO_PREFIX6
case ${1:-up} in
up)
	ip netns add client
	ip netns add server
	ip link add c0 index "$TOPO_IFINDEX_C0" netns client type veth peer name s0 \
		index "$TOPO_IFINDEX_S0" netns server
	ip -n client addr add "$TOPO_CLIENT4/$p4" dev c0
	ip -n server addr add "$TOPO_SERVER4/$p4" dev s0
	ip -n client addr add "$TOPO_CLIENT6/$p6" dev c0 nodad
	# the client's TCP-MD5 source addresses (the server holds a key for these peers only);
	# deprecated, so source address selection never picks them for other connections
	ip -n client addr add "$TOPO_MD5_CLIENT4/$p4" dev c0
	ip -n client addr add "$TOPO_MD5_CLIENT6/$p6" dev c0 nodad preferred_lft 0
	ip -n server addr add "$TOPO_SERVER6/$p6" dev s0 nodad
	for ns in client server; do
		ip -n $ns link set lo up
	done
	ip -n client link set c0 up
	ip -n server link set s0 up
	# VLANs over the veth pair: QinQ (802.1ad outer, 802.1Q inside) and a single 802.1Q.
	# At tc ingress the outer (or only) tag is already skb metadata; QinQ's inner tag is
	# still in the bytes, and the kernel strips it before TCP saves the MAC header.
	outer=$TOPO_QINQ_OUTER_VID inner=$TOPO_QINQ_INNER_VID single=$TOPO_VLAN_VID
	for side in c s; do
		if [ $side = c ]; then
			ns=client q4=$TOPO_QINQ_CLIENT4 q6=$TOPO_QINQ_CLIENT6
			v4=$TOPO_VLAN_CLIENT4 v6=$TOPO_VLAN_CLIENT6
		else
			ns=server q4=$TOPO_QINQ_SERVER4 q6=$TOPO_QINQ_SERVER6
			v4=$TOPO_VLAN_SERVER4 v6=$TOPO_VLAN_SERVER6
		fi
		ip -n $ns link add link ${side}0 name ${side}0.$outer type vlan proto 802.1ad id "$outer"
		ip -n $ns link add link ${side}0.$outer name ${side}0.$outer.$inner type vlan id "$inner"
		ip -n $ns link add link ${side}0 name ${side}0.$single type vlan id "$single"
		ip -n $ns addr add "$q4/$p4" dev ${side}0.$outer.$inner
		ip -n $ns addr add "$q6/$p6" dev ${side}0.$outer.$inner nodad
		ip -n $ns addr add "$v4/$p4" dev ${side}0.$single
		ip -n $ns addr add "$v6/$p6" dev ${side}0.$single nodad
		for d in ${side}0.$outer ${side}0.$outer.$inner ${side}0.$single; do
			ip -n $ns link set "$d" up
		done
	done
	ip -n server tuntap add dev tun0 mode tun
	# tap0: the crafted peer's Ethernet variant; the peer's MAC is a permanent neighbour
	ip -n server tuntap add dev tap0 mode tap
	ip -n server addr add "$TOPO_TAP_SELF4/$p4" dev tap0
	ip -n server addr add "$TOPO_TAP_SELF6/$p6" dev tap0 nodad
	ip -n server link set tap0 up
	ip -n server neigh add "$TOPO_TAP_PEER4" lladdr "$TOPO_TAP_PEER_MAC" dev tap0 nud permanent
	ip -n server neigh add "$TOPO_TAP_PEER6" lladdr "$TOPO_TAP_PEER_MAC" dev tap0 nud permanent
	ip -n server addr add "$TOPO_TUN_SELF4/$p4" dev tun0
	ip -n server addr add "$TOPO_TUN_SELF6/$p6" dev tun0 nodad
	ip -n server link set tun0 up
	;;
down)
	ip netns del client 2>/dev/null || true
	ip netns del server 2>/dev/null || true
	;;
*) echo "usage: topology.sh up|down" >&2; exit 2 ;;
esac
