/* SPDX-License-Identifier: GPL-2.0 */
/* Command line of syntwin-loader, parsed without side effects so host tests can drive it. */
#ifndef SYNTWIN_LOADER_OPTS_H
#define SYNTWIN_LOADER_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LOADER_MAX_DEVS 16

enum loader_cmd { CMD_ATTACH, CMD_DETACH, CMD_DUMP, CMD_STATS, CMD_LOOKUP };

struct loader_opts {
	enum loader_cmd cmd;
	const char *devs[LOADER_MAX_DEVS];
	int ndevs;
	const char *cgroup;
	const char *netns;	/* attach: network namespace of the devices (/run/netns/NAME) */
	uint32_t entries;	/* max_entries of the LRU flow map */
	uint32_t ring_bytes;	/* the ring buffer's size; 0: from entries (capture_ring_bytes()) */
	uint64_t cookie;	/* lookup */
	bool json;
	bool no_memory_follower; /* attach: leave out saved_syn_mem (bench: what it costs) */
	unsigned int points;	/* attach: the capture points (1 << enum capture_point) */
	bool xdp_generic;	/* ... XDP in generic mode even where the driver has its own */
	bool only_points;	/* ... the points alone, no witness (bench: what a point costs) */
};

extern const char loader_usage[];

/* Returns 0, or -1 with the reason in @err. */
int loader_parse(int argc, char **argv, struct loader_opts *o, char *err, size_t errlen);

#endif
