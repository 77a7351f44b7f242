/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The capture points' programs (bpf/capture_points.bpf.c) attached and detached by the loader:
 * XDP on each witness device, fentry at TCP's receive of a SYN. Everything is pinned under
 * CAPTURE_PIN_DIR (links and maps), so the points outlive the loader like the witness does.
 */
#ifndef SYNTWIN_POINTS_ATTACH_H
#define SYNTWIN_POINTS_ATTACH_H

#include <stdbool.h>
#include <stdint.h>

/* A witness device, resolved in its network namespace. */
struct point_dev {
	unsigned int ifindex;
	const char *ns;		/* its netns (NULL: the loader's own) */
	const char *name;
	uint32_t mac_len;	/* its link-layer header's length */
};

/* The map of every point's copies is CAPTURE_POINTS_ENTRIES(entries) large: a copy of each SYN
 * per BPF point (--entries is sized for the run's flows, with room to spare). */
#define CAPTURE_POINTS_ENTRIES(e) ((e) * 2u)

/*
 * Attach the points in @mask (1 << enum capture_point; only xdp and tcp have programs) on @devs
 * (@n of them; @enter(ns) enters a device's netns, NULL its own); the tcp point watches the
 * listeners of the netns whose inode is @netns_ino (0: all). XDP in the driver's mode
 * where it has one, else generic; always generic with @xdp_generic. Returns 0 or -1 (printed;
 * the caller undoes what was pinned with points_detach()).
 */
int points_attach(unsigned int mask, uint32_t entries, bool xdp_generic, uint32_t netns_ino,
		  const struct point_dev *devs, int n, int (*enter)(const char *ns));
/* Unpin every point link and map. Returns the number of failures (printed). */
int points_detach(void);

#endif
