/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The devices a captured copy comes in through (witness_ingress, bpf/syn_maps.bpf.h): each
 * device whose tc ingress the witness holds, and every VLAN device over it, by ifindex, with
 * its namespace's number. The kfree_skb program counts a drop on a flow only if its skb came in
 * through one of them.
 */
#ifndef SYNTWIN_INGRESS_DEVS_H
#define SYNTWIN_INGRESS_DEVS_H

/* Device @dev (@ifindex) of the namespace this thread is in, and the VLAN devices over it that
 * exist now, into witness_ingress (@map_fd). 0 or a negative errno. */
int ingress_devs_register(int map_fd, const char *dev, unsigned int ifindex);

#endif
