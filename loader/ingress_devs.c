// SPDX-License-Identifier: GPL-2.0
/* The devices a captured copy comes in through (ingress_devs.h). */
#include <errno.h>
#include <linux/if_vlan.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "ingress_devs.h"

/* QinQ is two VLAN devices deep; one more level is looked at. */
#define VLAN_DEPTH 3

/* @ifindex of namespace @netns into the map: 0 for the namespace where another namespace's
 * device has the index already (ifindexes are per namespace; the program then checks none). */
static int put(int fd, __u32 ifindex, __u32 netns)
{
	__u32 old;

	if (!bpf_map_lookup_elem(fd, &ifindex, &old) && old != netns)
		netns = 0;
	return bpf_map_update_elem(fd, &ifindex, &netns, BPF_ANY) ? -errno : 0;
}

/* Whether @name is a VLAN device over @lower, through VLAN_DEPTH levels at most: the VLAN
 * ioctl names a VLAN device's real device (and fails for any other device), in the namespace
 * of socket @sk. */
static bool vlan_over(int sk, const char *name, const char *lower)
{
	char cur[sizeof(((struct vlan_ioctl_args *)0)->u.device2)];

	snprintf(cur, sizeof(cur), "%s", name);
	for (int i = 0; i < VLAN_DEPTH; i++) {
		struct vlan_ioctl_args a = { .cmd = GET_VLAN_REALDEV_NAME_CMD };

		snprintf(a.device1, sizeof(a.device1), "%s", cur);
		if (ioctl(sk, SIOCGIFVLAN, &a))
			return false;
		if (!strcmp(a.u.device2, lower))
			return true;
		snprintf(cur, sizeof(cur), "%s", a.u.device2);
	}
	return false;
}

int ingress_devs_register(int map_fd, const char *dev, unsigned int ifindex)
{
	struct if_nameindex *all, *p;
	struct stat st;
	int sk, err;

	/* a namespace's nsfs inode is its number (ns.inum) */
	if (stat("/proc/thread-self/ns/net", &st))
		return -errno;
	err = put(map_fd, ifindex, (__u32)st.st_ino);
	if (err)
		return err;
	sk = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sk < 0)
		return -errno;
	all = if_nameindex();
	if (!all) {
		err = -errno;
		close(sk);
		return err;
	}
	for (p = all; p->if_index && !err; p++)
		if (vlan_over(sk, p->if_name, dev))
			err = put(map_fd, p->if_index, (__u32)st.st_ino);
	if_freenameindex(all);
	close(sk);
	return err;
}
