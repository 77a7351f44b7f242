// SPDX-License-Identifier: GPL-2.0
/*
 * syntwin-topology: common/topology.h written out for the shell, one NAME=VALUE line per TOPO_
 * definition (values are addresses and numbers: nothing to quote). compare/topology.sh reads it
 * with eval, so the shell and the C programs share one definition.
 */
#include <stdio.h>

#include "topology.h"

#define STR(name) printf("%s=%s\n", #name, name)
#define NUM(name) printf("%s=%d\n", #name, name)

int main(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "usage: syntwin-topology (prints common/topology.h as NAME=VALUE)\n");
		return 2;
	}
	NUM(TOPO_IFINDEX_C0);
	NUM(TOPO_IFINDEX_S0);
	STR(TOPO_CLIENT4);
	STR(TOPO_SERVER4);
	STR(TOPO_CLIENT6);
	STR(TOPO_SERVER6);
	NUM(TOPO_PREFIX4);
	NUM(TOPO_PREFIX6);
	STR(TOPO_MD5_CLIENT4);
	STR(TOPO_MD5_CLIENT6);
	NUM(TOPO_QINQ_OUTER_VID);
	NUM(TOPO_QINQ_INNER_VID);
	NUM(TOPO_VLAN_VID);
	STR(TOPO_QINQ_CLIENT4);
	STR(TOPO_QINQ_SERVER4);
	STR(TOPO_QINQ_CLIENT6);
	STR(TOPO_QINQ_SERVER6);
	STR(TOPO_VLAN_CLIENT4);
	STR(TOPO_VLAN_SERVER4);
	STR(TOPO_VLAN_CLIENT6);
	STR(TOPO_VLAN_SERVER6);
	STR(TOPO_TUN_PEER4);
	STR(TOPO_TUN_SELF4);
	STR(TOPO_TUN_PEER6);
	STR(TOPO_TUN_SELF6);
	STR(TOPO_TAP_PEER4);
	STR(TOPO_TAP_SELF4);
	STR(TOPO_TAP_PEER6);
	STR(TOPO_TAP_SELF6);
	STR(TOPO_TAP_PEER_MAC);
	NUM(TOPO_PORT_BASE);
	NUM(TOPO_CLOSE_PORT);
	NUM(TOPO_DUP_PEER_PORT);
	NUM(TOPO_CLIENT_SPORT_BASE);
	NUM(TOPO_CLIENT_AUTO_PORT_BASE);
	NUM(TOPO_CLIENT_AUTO_PORT_SPAN);
	NUM(TOPO_CRAFTED_SPORT_BASE);
	return fflush(stdout) || ferror(stdout) ? 1 : 0;
}
