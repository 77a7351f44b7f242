// SPDX-License-Identifier: GPL-2.0
/*
 * The witness maps' memory, from fdinfo (see map_memory.h). A file of its own because libbpf's
 * linux/bpf.h and libpcap's pcap/bpf.h both define struct bpf_insn.
 */
#include "map_memory.h"

#include <stdio.h>
#include <unistd.h>

#include <bpf/bpf.h>

/* memlock of one pinned witness map, from fdinfo; prints nothing if the map is not pinned. */
int print_map_memory(const char *name, int first)
{
	char path[128], line[256];
	long long memlock = -1, entries = -1, vsize = -1, ksize = -1;
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/sys/fs/bpf/syntwin/%s", name);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "memlock: %lld", &memlock);
		sscanf(line, "max_entries: %lld", &entries);
		sscanf(line, "value_size: %lld", &vsize);
		sscanf(line, "key_size: %lld", &ksize);
	}
	if (f)
		fclose(f);
	close(fd);
	printf("%s\"%s\": {\"max_entries\": %lld, \"key_size\": %lld, \"value_size\": %lld, "
	       "\"memlock\": %lld, \"bytes_per_entry\": %.1f}",
	       first ? "" : ", ", name, entries, ksize, vsize, memlock,
	       entries > 0 ? (double)memlock / entries : 0.0);
	return 1;
}

