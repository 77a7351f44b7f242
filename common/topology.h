/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest's test network, in one place: the addresses, ports, interface indexes and VLAN ids
 * that compare/topology.sh sets up and the generators, the server and the guest tests use.
 * The shell reads the same values from syntwin-topology (compare/topology_env.c), which prints
 * every TOPO_ definition of this file (a unit test checks that none is missing). The guest has
 * no NIC, so none of these addresses can reach a real network.
 */
#ifndef SYNTWIN_TOPOLOGY_H
#define SYNTWIN_TOPOLOGY_H

/* veth c0 (netns client) <-> s0 (netns server). Distinct ifindexes: the witness keys its
 * per-device facts by ifindex, and each netns numbers its devices from 1. The VLAN devices over
 * each end too (the QinQ outer, the QinQ inner, the single tag: base + 1, 2, 3), which the
 * witness's drop program knows by ifindex (witness_ingress), where TCP has cleared the skb's
 * device and with it the namespace. */
#define TOPO_IFINDEX_C0 10
#define TOPO_IFINDEX_S0 20
#define TOPO_CLIENT4 "198.18.0.1"
#define TOPO_SERVER4 "198.18.0.2"
#define TOPO_CLIENT6 "fd00:5959::1"
#define TOPO_SERVER6 "fd00:5959::2"
#define TOPO_PREFIX4 24
#define TOPO_PREFIX6 64
/* The client's TCP-MD5 source addresses: the server holds a key for these peers only. */
#define TOPO_MD5_CLIENT4 "198.18.0.3"
#define TOPO_MD5_CLIENT6 "fd00:5959::3"

/* VLANs over the veth: QinQ (802.1ad outer, 802.1Q inner) and a single 802.1Q tag. */
#define TOPO_QINQ_OUTER_VID 10
#define TOPO_QINQ_INNER_VID 20
#define TOPO_VLAN_VID 30
#define TOPO_QINQ_CLIENT4 "198.20.0.1"
#define TOPO_QINQ_SERVER4 "198.20.0.2"
#define TOPO_QINQ_CLIENT6 "fd00:5b5b::1"
#define TOPO_QINQ_SERVER6 "fd00:5b5b::2"
#define TOPO_VLAN_CLIENT4 "198.21.0.1"
#define TOPO_VLAN_SERVER4 "198.21.0.2"
#define TOPO_VLAN_CLIENT6 "fd00:5c5c::1"
#define TOPO_VLAN_SERVER6 "fd00:5c5c::2"

/* tun0 (raw IP) and tap0 (Ethernet) in the server netns: the crafted peer's two devices. The
 * peer's MAC on tap0 is a permanent neighbour entry. */
#define TOPO_TUN_PEER4 "198.19.0.1"
#define TOPO_TUN_SELF4 "198.19.0.2"
#define TOPO_TUN_PEER6 "fd00:5a5a::1"
#define TOPO_TUN_SELF6 "fd00:5a5a::2"
#define TOPO_TAP_PEER4 "198.22.0.1"
#define TOPO_TAP_SELF4 "198.22.0.2"
#define TOPO_TAP_PEER6 "fd00:5d5d::1"
#define TOPO_TAP_SELF6 "fd00:5d5d::2"
#define TOPO_TAP_PEER_MAC "02:00:00:53:59:01"

/* Ports. The server listens on PORT_BASE (TCP_SAVE_SYN mode 1) and PORT_BASE + 1 (mode 2);
 * the abandon-close listeners are CLOSE_PORT (mode 1) and CLOSE_PORT + 1 (mode 2). */
#define TOPO_PORT_BASE 7001
#define TOPO_CLOSE_PORT 7003
#define TOPO_DUP_PEER_PORT 9001		/* the duplicate-SYN-ACK peer on tun0 */
#define TOPO_CLIENT_SPORT_BASE 10000	/* the socket client's explicit source ports */
/* Every other socket connection's source port: number i's is BASE + i for i < SPAN (the client
 * netns's ephemeral range, 32768-60999), so no 4-tuple repeats; later ones, the kernel's. */
#define TOPO_CLIENT_AUTO_PORT_BASE 32768
#define TOPO_CLIENT_AUTO_PORT_SPAN 28232
#define TOPO_CRAFTED_SPORT_BASE 30000	/* the crafted peer's source ports */

#endif
