// SPDX-License-Identifier: GPL-2.0
/*
 * loader/slab_owner.c: kmem_cache_alloc may go unfollowed only where the follower can read which
 * slab cache owns an address: both layout symbols listed with an address, struct slab's
 * slab_cache, struct page's compound_head (found through anonymous unions, as CO-RE finds it),
 * and a slab page told by 6.12's page type or 6.1's PG_slab. Each missing fact keeps the
 * program, beside the case it must not be taken for. The kernel's BTF is made up with libbpf's
 * BTF writer, shaped as each kernel has it.
 */
#include <bpf/btf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "slab_owner.h"

static char syms[] = "/tmp/syntwin-kallsyms-XXXXXX";

static void put_syms(const char *text)
{
	FILE *f = fopen(syms, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(syms);
		exit(2);
	}
}

/* What a kernel's BTF holds of the facts, each on or off. */
struct shape {
	bool slab_cache, compound_head, anon_union, page_type, flags;
	bool pagetype_enum, pageflags_enum, cache_flags, kmalloc_enum, no_red_left_pad;
};

static struct btf *make_btf(const struct shape *s)
{
	struct btf *b = btf__new_empty();
	int ulong, uint, cache, cache_ptr, u = 0;

	if (!b)
		exit(2);
	ulong = btf__add_int(b, "long unsigned int", 8, 0);
	uint = btf__add_int(b, "unsigned int", 4, 0);
	cache = btf__add_struct(b, "kmem_cache", 24);
	btf__add_field(b, "cpu_slab", ulong, 0, 0);
	if (s->cache_flags)
		btf__add_field(b, "flags", uint, 64, 0);
	btf__add_field(b, "size", uint, 96, 0);
	if (!s->no_red_left_pad)
		btf__add_field(b, "red_left_pad", uint, 128, 0);
	cache_ptr = btf__add_ptr(b, cache);
	/* struct slab { unsigned long __page_flags; struct kmem_cache *slab_cache or other; } */
	btf__add_struct(b, "slab", 16);
	btf__add_field(b, "__page_flags", ulong, 0, 0);
	btf__add_field(b, s->slab_cache ? "slab_cache" : "slab_cachep", cache_ptr, 64, 0);
	/* struct page, compound_head inside an anonymous union of an anonymous struct, as in 6.1
	 * and 6.12, or at the top */
	if (s->anon_union) {
		int inner = btf__add_struct(b, NULL, 8);

		btf__add_field(b, s->compound_head ? "compound_head" : "lru_next", ulong, 0, 0);
		u = btf__add_union(b, NULL, 8);
		btf__add_field(b, NULL, inner, 0, 0);
	}
	btf__add_struct(b, "page", 64);
	btf__add_field(b, s->flags ? "flags" : "memdesc", ulong, 0, 0);
	if (s->anon_union)
		btf__add_field(b, NULL, u, 64, 0);
	else
		btf__add_field(b, s->compound_head ? "compound_head" : "lru_next", ulong, 64, 0);
	btf__add_field(b, s->page_type ? "page_type" : "_mapcount", uint, 128, 0);
	btf__add_enum(b, "pageflags", 4);
	btf__add_enum_value(b, "PG_locked", 0);
	if (s->pageflags_enum)
		btf__add_enum_value(b, "PG_slab", 9);
	if (s->kmalloc_enum) {
		btf__add_enum(b, "_slab_flag_bits", 4);
		btf__add_enum_value(b, "_SLAB_CONSISTENCY_CHECKS", 0);
		btf__add_enum_value(b, "_SLAB_KMALLOC", 12);
	}
	if (s->pagetype_enum) {
		btf__add_enum(b, "pagetype", 4);
		btf__add_enum_value(b, "PGTY_buddy", 0xf0);
		btf__add_enum_value(b, "PGTY_slab", 0xf5);
	}
	return b;
}

static bool readable(const struct shape *s, char *why, size_t len)
{
	struct btf *b = make_btf(s);
	bool r = slab_owner_readable(syms, b, why, len);

	btf__free(b);
	return r;
}

#define BOTH_SYMS "ffffffff81000000 T _stext\nffffffff82a0f0c8 D page_offset_base\n" \
		  "ffffffff82a0f0d8 D vmemmap_base\nffffffff82a0f0d0 D vmalloc_base\n"

int main(void)
{
	const struct shape v61 = { true, true, true, true, true, false, true, true, false, false };
	const struct shape v612 = { true, true, true, true, true, true, false, true, true, false };
	struct shape s;
	char why[300];
	int fd = mkstemp(syms);

	if (fd < 0)
		return 2;
	close(fd);
	put_syms(BOTH_SYMS);

	/* 6.1: PG_slab in the flags; 6.12: the page type */
	CHECK(readable(&v61, why, sizeof(why)), "6.1: %s", why);
	CHECK_STR_CONTAINS(why, "page_offset_base, vmemmap_base, slab pages by PG_slab, kmalloc "
			   "caches by SLAB_KMALLOC 0x1000");
	CHECK(readable(&v612, why, sizeof(why)), "6.12: %s", why);
	CHECK_STR_CONTAINS(why, "slab pages by page_type, kmalloc caches by _SLAB_KMALLOC");
	/* both enums: the page type first, as page_is_slab() does; without page_type, PG_slab */
	s = v612;
	s.pageflags_enum = true;
	CHECK(readable(&s, why, sizeof(why)), "%s", why);
	CHECK_STR_CONTAINS(why, "by page_type");
	s.page_type = false;
	CHECK(readable(&s, why, sizeof(why)), "%s", why);
	CHECK_STR_CONTAINS(why, "by PG_slab");
	/* compound_head at the top of struct page is found too */
	s = v61;
	s.anon_union = false;
	CHECK(readable(&s, why, sizeof(why)), "%s", why);

	/* no way to tell a slab page: neither enumerator (6.10, 6.11), or its field missing */
	s = v61;
	s.pageflags_enum = false;
	CHECK(!readable(&s, why, sizeof(why)), "%s", why);
	CHECK_STR_CONTAINS(why, "no PGTY_slab (enum pagetype) or PG_slab (enum pageflags)");
	s = v61;
	s.flags = false;
	CHECK(!readable(&s, why, sizeof(why)), "%s", why);
	s = v612;
	s.page_type = false;
	CHECK(!readable(&s, why, sizeof(why)), "%s", why);
	/* no slab_cache, no compound_head (in the union or at the top), no BTF */
	s = v61;
	s.slab_cache = false;
	CHECK(!readable(&s, why, sizeof(why)), "%s", why);
	CHECK_STR_CONTAINS(why, "no struct slab with slab_cache");
	s = v612;
	s.cache_flags = false;
	CHECK(!readable(&s, why, sizeof(why)), "%s", why);
	CHECK_STR_CONTAINS(why, "struct kmem_cache with flags, size and red_left_pad");
	s = v61;
	s.no_red_left_pad = true;
	CHECK(!readable(&s, why, sizeof(why)), "%s", why);
	s = v61;
	s.compound_head = false;
	CHECK(!readable(&s, why, sizeof(why)), "%s", why);
	s.anon_union = false;
	CHECK(!readable(&s, why, sizeof(why)), "%s", why);
	CHECK(!slab_owner_readable(syms, NULL, why, sizeof(why)), "%s", why);
	CHECK_STR_CONTAINS(why, "no kernel BTF");

	/* the symbols: each missing, listed without an address (kptr_restrict), a prefix of the
	 * name, or no file */
	put_syms("ffffffff81000000 T _stext\nffffffff82a0f0d8 D vmemmap_base\n");
	CHECK(!readable(&v61, why, sizeof(why)), "%s", why);
	CHECK_STR_CONTAINS(why, "no page_offset_base in");
	CHECK_STR_CONTAINS(why, "CONFIG_KALLSYMS_ALL");
	put_syms("ffffffff82a0f0c8 D page_offset_base\n");
	CHECK(!readable(&v61, why, sizeof(why)), "%s", why);
	CHECK_STR_CONTAINS(why, "no vmemmap_base in");
	put_syms("0000000000000000 D page_offset_base\n0000000000000000 D vmemmap_base\n");
	CHECK(!readable(&v61, why, sizeof(why)), "%s", why);
	put_syms("ffffffff82a0f0c8 D page_offset_base_x\nffffffff82a0f0d8 D vmemmap_base\n");
	CHECK(!readable(&v61, why, sizeof(why)), "%s", why);
	/* KFENCE's pool listed: another cache takes a slot with no page given back */
	put_syms(BOTH_SYMS "ffffffff83000000 B __kfence_pool\n");
	CHECK(!readable(&v61, why, sizeof(why)), "%s", why);
	CHECK_STR_CONTAINS(why, "KFENCE (__kfence_pool in");
	put_syms(BOTH_SYMS "ffffffff83000000 B __kfence_pool_x\n");
	CHECK(readable(&v61, why, sizeof(why)), "%s", why);
	put_syms(BOTH_SYMS);
	CHECK(readable(&v61, why, sizeof(why)), "%s", why);
	unlink(syms);
	CHECK(!readable(&v61, why, sizeof(why)), "%s", why);
	CHECK_STR_CONTAINS(why, "unreadable");
	return check_report("slab_owner");
}
