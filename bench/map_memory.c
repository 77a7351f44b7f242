// SPDX-License-Identifier: GPL-2.0
/*
 * The witness maps' memory, from fdinfo (see map_memory.h). A file of its own because libbpf's
 * linux/bpf.h and libpcap's pcap/bpf.h both define struct bpf_insn.
 */
#include "map_memory.h"

#include <stdio.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "fdinfo.h"

/* memlock of one pinned witness map, from fdinfo; prints nothing if the map is not pinned. */
int print_map_memory(const char *name, int first)
{
	char path[128];
	long long memlock, entries, vsize, ksize;
	int fd;

	snprintf(path, sizeof(path), "/sys/fs/bpf/syntwin/%s", name);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return 0;
	memlock = fdinfo_number(fd, "memlock");
	entries = fdinfo_number(fd, "max_entries");
	vsize = fdinfo_number(fd, "value_size");
	ksize = fdinfo_number(fd, "key_size");
	close(fd);
	printf("%s\"%s\": {\"max_entries\": %lld, \"key_size\": %lld, \"value_size\": %lld, "
	       "\"memlock\": %lld, \"bytes_per_entry\": %.1f}",
	       first ? "" : ", ", name, entries, ksize, vsize, memlock,
	       entries > 0 ? (double)memlock / entries : 0.0);
	return 1;
}

