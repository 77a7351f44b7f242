/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether a kmalloc cache's objects can come from anything but kmalloc(). SLUB (and SLAB) merge a
 * new cache into an existing one of the same size and flags, the kmalloc caches among them; an
 * address a freed saved copy had is then handed out again by kmem_cache_alloc() of any merged
 * cache all the time, in interrupts too, and the memory follower follows those allocations with
 * a twin pair (on_cache_alloc and its twin) to tell a second kfree from a new owner's. With
 * merging off no other cache shares a kmalloc cache's objects and kmalloc() (followed) is their
 * only allocator; only a slab page given back to the page allocator and taken by another
 * cache hands such an address to kmem_cache_alloc(), and one program follows that.
 *
 * Merging off is read from two facts of the running kernel, never assumed: the command line
 * turns it off (slab_nomerge or slub_nomerge, not undone by a later slab_merge or slub_merge),
 * and no kmalloc cache in /sys/kernel/slab has an alias. The second alone would not do: with
 * merging on, a cache created after the check could still merge into one.
 */
#ifndef SYNTWIN_SLAB_MERGE_H
#define SYNTWIN_SLAB_MERGE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * true if kmalloc caches may share their objects (merging on, or not proven off); false if
 * merging is off and no kmalloc cache has an alias. @cmdline: the kernel command line's file
 * (/proc/cmdline); @slab_dir: SLUB's sysfs directory (/sys/kernel/slab). @why receives the
 * reason either way, for the run's header ("slab_nomerge, no alias in 13 kmalloc caches").
 */
bool slab_caches_may_merge(const char *cmdline, const char *slab_dir, char *why, size_t len);

#endif
