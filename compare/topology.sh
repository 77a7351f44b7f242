#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest only: netns "client" and "server" joined by veth c0 <-> s0, plus a persistent tun "tun0"
# in the server netns for crafted SYNs. The guest has no NIC, so none of these addresses can
# reach any real network.
# usage: topology.sh up|down
set -eu
case ${1:-up} in
up)
	ip netns add client
	ip netns add server
	# Distinct ifindexes: the witness keys its per-device facts by ifindex, and each netns
	# numbers its devices from 1, so c0 (client) and s0 (server) would both be 2.
	ip link add c0 index 10 netns client type veth peer name s0 index 20 netns server
	ip -n client addr add 198.18.0.1/24 dev c0
	ip -n server addr add 198.18.0.2/24 dev s0
	ip -n client addr add fd00:5959::1/64 dev c0 nodad
	# the client's TCP-MD5 source addresses (the server holds a key for these peers only);
	# deprecated, so source address selection never picks them for other connections
	ip -n client addr add 198.18.0.3/24 dev c0
	ip -n client addr add fd00:5959::3/64 dev c0 nodad preferred_lft 0
	ip -n server addr add fd00:5959::2/64 dev s0 nodad
	for ns in client server; do
		ip -n $ns link set lo up
	done
	ip -n client link set c0 up
	ip -n server link set s0 up
	# VLANs over the veth pair: QinQ (802.1ad 10, 802.1Q 20 inside) and a single 802.1Q 30.
	# At tc ingress the outer (or only) tag is already skb metadata; QinQ's inner tag is
	# still in the bytes, and the kernel strips it before TCP saves the MAC header.
	for side in c s; do
		ns=client
		[ $side = c ] || ns=server
		ip -n $ns link add link ${side}0 name ${side}0.10 type vlan proto 802.1ad id 10
		ip -n $ns link add link ${side}0.10 name ${side}0.10.20 type vlan id 20
		ip -n $ns link add link ${side}0 name ${side}0.30 type vlan id 30
		n=1
		[ $side = c ] || n=2
		ip -n $ns addr add 198.20.0.$n/24 dev ${side}0.10.20
		ip -n $ns addr add fd00:5b5b::$n/64 dev ${side}0.10.20 nodad
		ip -n $ns addr add 198.21.0.$n/24 dev ${side}0.30
		ip -n $ns addr add fd00:5c5c::$n/64 dev ${side}0.30 nodad
		for d in ${side}0.10 ${side}0.10.20 ${side}0.30; do
			ip -n $ns link set $d up
		done
	done
	ip -n server tuntap add dev tun0 mode tun
	# tap0: the crafted peer's Ethernet variant; the peer's MAC is a permanent neighbour
	ip -n server tuntap add dev tap0 mode tap
	ip -n server addr add 198.22.0.2/24 dev tap0
	ip -n server addr add fd00:5d5d::2/64 dev tap0 nodad
	ip -n server link set tap0 up
	ip -n server neigh add 198.22.0.1 lladdr 02:00:00:53:59:01 dev tap0 nud permanent
	ip -n server neigh add fd00:5d5d::1 lladdr 02:00:00:53:59:01 dev tap0 nud permanent
	ip -n server addr add 198.19.0.2/24 dev tun0
	ip -n server addr add fd00:5a5a::2/64 dev tun0 nodad
	ip -n server link set tun0 up
	;;
down)
	ip netns del client 2>/dev/null || true
	ip netns del server 2>/dev/null || true
	;;
*) echo "usage: topology.sh up|down" >&2; exit 2 ;;
esac
