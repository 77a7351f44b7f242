/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel slab usage from /proc/slabinfo, for the saved-SYN leak check and the memory bench.
 * SLUB counts objects that are free but parked in per-CPU slabs as active, so every reading first
 * asks SLUB to shrink the caches it sums (/sys/kernel/slab/NAME/shrink): that flushes the per-CPU
 * slabs and makes "active" mean "allocated".
 */
#ifndef SYNTWIN_SLABINFO_H
#define SYNTWIN_SLABINFO_H

/*
 * Bytes held by allocated objects (active_objs * objsize), summed over the caches whose name
 * starts with @prefix ("" = every cache). Returns -1 with errno set if slabinfo is unreadable.
 */
long long slab_bytes(const char *prefix);

struct slab_cache {
	char name[64];
	long long active, objsize;
};

/*
 * Up to @max caches whose name starts with @prefix, shrunk first, into @out. Returns the count,
 * or -1 if slabinfo is unreadable.
 */
int slab_read(const char *prefix, struct slab_cache *out, int max);

#endif
