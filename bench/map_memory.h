/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SYNTWIN_MAP_MEMORY_H
#define SYNTWIN_MAP_MEMORY_H

/*
 * Prints "NAME": {max_entries, key_size, value_size, memlock, bytes_per_entry} (JSON, preceded by
 * ", " unless @first) for the pinned map /sys/fs/bpf/syntwin/NAME. Returns 0 and prints nothing
 * if it is not pinned (the witness is not attached).
 */
int print_map_memory(const char *name, int first);

#endif
