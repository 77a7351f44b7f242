/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether the memory follower can read which slab cache owns an address (slab_owner() in
 * bpf/saved_syn_mem.bpf.c), so that it need not follow kmem_cache_alloc() where slab caches do
 * not merge (slab_merge.h): a second kfree of a freed saved copy's address then tells a page
 * another cache took since (no kmalloc cache owns the address) from a double free by itself.
 *
 * Read from the running kernel, never assumed: the direct map's and the page array's bases as
 * symbols (page_offset_base and vmemmap_base in /proc/kallsyms: a dynamic memory layout, and
 * CONFIG_KALLSYMS_ALL to list data) with no KFENCE pool (__kfence_pool: its slots go from one
 * cache to another with no page given back), and in the kernel's BTF struct slab's slab_cache,
 * struct kmem_cache's size and red_left_pad (where another cache's objects start) and flags
 * (SLAB_KMALLOC: enum _slab_flag_bits' _SLAB_KMALLOC from 6.10, the macro's
 * 0x1000 before, which the run proves on its first copy freed), struct page's compound_head,
 * and a way to tell a slab page: enum pagetype's PGTY_slab with page_type (6.12), or enum
 * pageflags' PG_slab with flags (6.1). Without any of them the follower follows
 * kmem_cache_alloc() with a program, as before.
 */
#ifndef SYNTWIN_SLAB_OWNER_H
#define SYNTWIN_SLAB_OWNER_H

#include <stdbool.h>
#include <stddef.h>

struct btf;

/*
 * true if every fact above holds in @kallsyms (a /proc/kallsyms file) and @btf (the kernel's
 * BTF; NULL: none). @why receives what was used, or the first fact missing.
 */
bool slab_owner_readable(const char *kallsyms, const struct btf *btf, char *why, size_t len);

#endif
