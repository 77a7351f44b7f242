// SPDX-License-Identifier: GPL-2.0
/* Whether the slab cache that owns an address can be read in the running kernel (slab_owner.h). */
#include "slab_owner.h"

#include <bpf/btf.h>
#include <stdio.h>
#include <string.h>

/* Both layout symbols in @path with a nonzero address, and no KFENCE pool (whose slots another
 * cache takes without a page given back); else what is not so into @why. */
static bool layout_symbols(const char *path, char *why, size_t len)
{
	static const char *const names[] = { "page_offset_base", "vmemmap_base" };
	bool found[2] = { false, false }, kfence = false;
	FILE *f = fopen(path, "re");
	char line[512], sym[256], type;
	unsigned long long addr;

	if (!f) {
		snprintf(why, len, "%s unreadable", path);
		return false;
	}
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) == 3 && addr) {
			for (int i = 0; i < 2; i++)
				found[i] = found[i] || !strcmp(sym, names[i]);
			kfence = kfence || !strcmp(sym, "__kfence_pool");
		}
	fclose(f);
	if (kfence) {
		snprintf(why, len, "KFENCE (__kfence_pool in %s) hands a slot to another cache "
			 "with no page given back", path);
		return false;
	}
	for (int i = 0; i < 2; i++)
		if (!found[i]) {
			snprintf(why, len, "no %s in %s (CONFIG_KALLSYMS_ALL, a dynamic memory layout)",
				 names[i], path);
			return false;
		}
	return true;
}

/* Does BTF type @id (a struct or union) have member @member, in it or in an anonymous struct or
 * union inside it, as CO-RE finds a field? */
static bool has_member_of(const struct btf *btf, __u32 id, const char *member, int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m;

	if (!t || depth > 4 || (!btf_is_struct(t) && !btf_is_union(t)))
		return false;
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *name = btf__name_by_offset(btf, m->name_off);

		if (name && !strcmp(name, member))
			return true;
		if ((!name || !*name) &&
		    has_member_of(btf, btf__resolve_type(btf, m->type), member, depth + 1))
			return true;
	}
	return false;
}

static bool has_member(const struct btf *btf, const char *type, const char *member)
{
	int id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);

	return id > 0 && has_member_of(btf, (__u32)id, member, 0);
}

static bool has_enumerator(const struct btf *btf, const char *type, const char *value)
{
	int id = btf__find_by_name_kind(btf, type, BTF_KIND_ENUM);
	const struct btf_type *t;
	const struct btf_enum *e;

	if (id <= 0)
		return false;
	t = btf__type_by_id(btf, (__u32)id);
	e = btf_enum(t);
	for (int i = 0; i < btf_vlen(t); i++, e++)
		if (!strcmp(btf__name_by_offset(btf, e->name_off), value))
			return true;
	return false;
}

bool slab_owner_readable(const char *kallsyms, const struct btf *btf, char *why, size_t len)
{
	const char *slab_page, *kmalloc_bit;

	if (!btf) {
		snprintf(why, len, "no kernel BTF");
		return false;
	}
	if (!has_member(btf, "slab", "slab_cache") || !has_member(btf, "page", "compound_head") ||
	    !has_member(btf, "kmem_cache", "flags") || !has_member(btf, "kmem_cache", "size") ||
	    !has_member(btf, "kmem_cache", "red_left_pad")) {
		snprintf(why, len, "no struct slab with slab_cache, struct page with compound_head, "
			 "or struct kmem_cache with flags, size and red_left_pad, in the kernel's BTF");
		return false;
	}
	/* the same order of preference as page_is_slab() in the BPF program */
	if (has_enumerator(btf, "pagetype", "PGTY_slab") && has_member(btf, "page", "page_type"))
		slab_page = "page_type";
	else if (has_enumerator(btf, "pageflags", "PG_slab") && has_member(btf, "page", "flags"))
		slab_page = "PG_slab";
	else {
		snprintf(why, len, "no PGTY_slab (enum pagetype) or PG_slab (enum pageflags) in the "
			 "kernel's BTF to tell a slab page by");
		return false;
	}
	/* SLAB_KMALLOC: an enumerator from 6.10, a macro before (the program's fallback, which
	 * the run's first copy freed proves: owner_check) */
	kmalloc_bit = has_enumerator(btf, "_slab_flag_bits", "_SLAB_KMALLOC") ? "_SLAB_KMALLOC" :
		      "SLAB_KMALLOC 0x1000";
	if (!layout_symbols(kallsyms, why, len))
		return false;
	snprintf(why, len, "a second kfree reads what owns the address: page_offset_base, "
		 "vmemmap_base, slab pages by %s, kmalloc caches by %s", slab_page, kmalloc_bit);
	return true;
}
