// SPDX-License-Identifier: GPL-2.0
/* The saved-SYN memory follower's userspace half (saved_syn_mem.h). */
#include "saved_syn_mem.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture_client.h"
#include "saved_syn_mem.skel.h"
#include "slab_merge.h"
#include "slab_owner.h"

#define MEM_MAX_SITES 8

static const char *const site_names[] = { "tcp_saved_syn_alloc", "tcp_reqsk_record_syn",
					  "tcp_conn_request", "tcp_rcv_synsent_state_process",
					  "tcp_rcv_state_process" };

/* The follower's programs (saved_syn_mem.bpf.c): kmalloc, kmem_cache_alloc and kfree, and
 * tcp_rcv_state_process()'s entry and exit that name the packet being processed, each a twin
 * pair (kmem_cache_alloc's: cache_progs()). Each is attached by a link pinned as
 * CAPTURE_PIN_DIR/link_mem_<name> (SAVED_SYN_MEM_PINS). */
static const char *const mem_prog_names[] = { SAVED_SYN_MEM_PROGS };
#define MEM_PROGS ((int)(sizeof(mem_prog_names) / sizeof(mem_prog_names[0])))
#define MEM_PROGS_MAX 16

struct saved_syn_mem {
	struct saved_syn_mem_bpf *skel;	/* NULL for a pinned reader */
	int stats_fd, live_fd, double_fd;
	int prog_fd[MEM_PROGS_MAX];	/* the pinned reader's own; the skeleton's otherwise; -1
					 * for a program not attached (cache_progs()) */
	int cache_progs;		/* kmem_cache_alloc's programs attached (cache_progs()) */
	char sites[256];
	char cache_why[320];
};

/* Is program @name kmem_cache_alloc's, and which: 1 the first, 2 its twin; 0 neither. */
static int cache_prog(const char *name)
{
	return !strcmp(name, "on_cache_alloc") ? 1 : !strcmp(name, "on_cache_alloc_twin") ? 2 : 0;
}

/*
 * How many programs follow kmem_cache_alloc: two (a twin pair) where kmalloc caches may share
 * their objects with other caches (slab_caches_may_merge()): there a freed copy's address comes
 * back from kmem_cache_alloc() all the time, in interrupts too. Unmerged, only a slab page given
 * back and taken by another cache hands it out so: none where a second kfree can read which cache
 * owns the address (slab_owner_readable(); the program then reads it, read_owner), else one (a
 * run it skips is counted in missed_runs, which keeps a second kfree from another function
 * unjudged). The reason, for the run's header, into m->cache_why.
 */
static int cache_progs(struct saved_syn_mem *m, bool owner_ok)
{
	const char *follow = getenv("SYNTWIN_FOLLOW_CACHE_ALLOC");
	char why[200];
	size_t n;
	int progs;

	if (slab_caches_may_merge("/proc/cmdline", "/sys/kernel/slab", m->cache_why,
				  sizeof(m->cache_why)))
		return 2;
	/* the guest's environment (a kernel argument, SYNTWIN_VM_APPEND): the program however
	 * readable the owner, to test and measure that way on a kernel that has both; and a
	 * test process's own follower (the conformance suite counts second kfrees itself) */
	if (!owner_ok || (follow && !strcmp(follow, "1"))) {
		snprintf(why, sizeof(why), "%s", owner_ok ?
			 "SYNTWIN_FOLLOW_CACHE_ALLOC=1 in the environment" :
			 "a test process's own follower");
		progs = 1;
	} else {
		struct btf *btf = btf__load_vmlinux_btf();

		if (libbpf_get_error(btf))
			btf = NULL;
		progs = slab_owner_readable("/proc/kallsyms", btf, why, sizeof(why)) ? 0 : 1;
		btf__free(btf);
	}
	n = strlen(m->cache_why);
	snprintf(m->cache_why + n, sizeof(m->cache_why) - n, "; %s", why);
	return progs;
}

_Static_assert(sizeof(mem_prog_names) / sizeof(mem_prog_names[0]) <= MEM_PROGS_MAX,
	       "raise MEM_PROGS_MAX");

static void link_pin_path(int i, char *buf, size_t len)
{
	snprintf(buf, len, "%s/link_mem_%s", CAPTURE_PIN_DIR, mem_prog_names[i]);
}

/* The skeleton's program @i (by name) and its link slot; -1 if the object lacks it. */
static int skel_prog(struct saved_syn_mem *m, int i, struct bpf_link ***link)
{
	const struct bpf_object_skeleton *sk = m->skel->skeleton;

	for (int j = 0; j < sk->prog_cnt; j++)
		if (!strcmp(sk->progs[j].name, mem_prog_names[i])) {
			*link = sk->progs[j].link;
			return bpf_program__fd(*sk->progs[j].prog);
		}
	return -1;
}

/*
 * Each named text symbol's [start, next symbol) from /proc/kallsyms into @lo/@hi. Returns how
 * many were found.
 */
static int resolve(uint64_t *lo, uint64_t *hi, char *names, size_t nlen)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], sym[256], type;
	unsigned long long addr;
	int n = 0, open_i = -1;

	if (!f)
		return 0;
	names[0] = 0;
	/* kallsyms lists text in address order: a symbol ends where the next one starts */
	while (fgets(line, sizeof(line), f) && n <= MEM_MAX_SITES) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) != 3 || !addr)
			continue;
		if (open_i >= 0) {
			hi[open_i] = addr;
			open_i = -1;
		}
		if (type != 't' && type != 'T')
			continue;
		for (size_t k = 0; k < sizeof(site_names) / sizeof(site_names[0]); k++) {
			if (strcmp(sym, site_names[k]) || n == MEM_MAX_SITES)
				continue;
			lo[n] = addr;
			open_i = n++;
			snprintf(names + strlen(names), nlen - strlen(names), "%s%s",
				 n > 1 ? ", " : "", sym);
		}
	}
	fclose(f);
	return open_i >= 0 ? n - 1 : n; /* the last one had no end */
}

/* Opens the object with its call sites set; @pin_root NULL: every map its own. */
static struct saved_syn_mem *open_skel(const char *pin_root, bool owner_ok)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .pin_root_path = pin_root);
	struct saved_syn_mem *m = calloc(1, sizeof(*m));
	uint64_t lo[MEM_MAX_SITES + 1] = { 0 }, hi[MEM_MAX_SITES + 1] = { 0 };
	struct bpf_map *map;
	int n;

	if (!m)
		return NULL;
	m->stats_fd = m->live_fd = m->double_fd = -1;
	for (int i = 0; i < MEM_PROGS; i++)
		m->prog_fd[i] = -1;
	n = resolve(lo, hi, m->sites, sizeof(m->sites));
	if (n <= 0) {
		fprintf(stderr, "saved_syn_mem: no saved-SYN function in /proc/kallsyms\n");
		goto fail;
	}
	m->skel = saved_syn_mem_bpf__open_opts(&oo);
	if (!m->skel)
		goto fail;
	if (!pin_root)
		bpf_object__for_each_map(map, m->skel->obj)
			bpf_map__set_pin_path(map, NULL);
	m->skel->rodata->sites_lo = lo[0];
	m->skel->rodata->sites_hi = hi[0];
	for (int i = 0; i < n; i++) {
		m->skel->rodata->site_lo[i] = lo[i];
		m->skel->rodata->site_hi[i] = hi[i];
		if (lo[i] < m->skel->rodata->sites_lo)
			m->skel->rodata->sites_lo = lo[i];
		if (hi[i] > m->skel->rodata->sites_hi)
			m->skel->rodata->sites_hi = hi[i];
	}
	m->skel->rodata->nsites = (__u32)n;
	m->cache_progs = cache_progs(m, owner_ok);
	m->skel->rodata->read_owner = m->cache_progs == 0;
	if (m->cache_progs < 2)
		bpf_program__set_autoload(m->skel->progs.on_cache_alloc_twin, false);
	if (m->cache_progs < 1)
		bpf_program__set_autoload(m->skel->progs.on_cache_alloc, false);
	return m;
fail:
	saved_syn_mem_close(m);
	return NULL;
}

/* The mode into the stats map before any program runs, for readers (saved_syn_mem_open_pinned()). */
static int record_mode(struct saved_syn_mem *m)
{
	int fd = bpf_map__fd(m->skel->maps.mem_stats);
	struct mem_stats st = { 0 };
	__u32 zero = 0;

	if (bpf_map_lookup_elem(fd, &zero, &st))
		return -1;
	st.cache_progs = (__u64)m->cache_progs;
	return bpf_map_update_elem(fd, &zero, &st, BPF_ANY);
}

static int load_attach(struct saved_syn_mem *m)
{
	if (saved_syn_mem_bpf__load(m->skel) || record_mode(m) ||
	    saved_syn_mem_bpf__attach(m->skel)) {
		fprintf(stderr, "saved_syn_mem: cannot load or attach the kmalloc/kfree follower: %s\n",
			strerror(errno));
		return -1;
	}
	m->stats_fd = bpf_map__fd(m->skel->maps.mem_stats);
	m->live_fd = bpf_map__fd(m->skel->maps.mem_live);
	m->double_fd = bpf_map__fd(m->skel->maps.mem_double);
	for (int i = 0; i < MEM_PROGS; i++) {
		struct bpf_link **link;

		if (cache_prog(mem_prog_names[i]) > m->cache_progs)
			continue;
		m->prog_fd[i] = skel_prog(m, i, &link);
		if (m->prog_fd[i] < 0) {
			fprintf(stderr, "saved_syn_mem: no program %s in the object\n",
				mem_prog_names[i]);
			return -1;
		}
	}
	return 0;
}

struct saved_syn_mem *saved_syn_mem_open(void)
{
	struct saved_syn_mem *m = open_skel(NULL, false);

	if (m && load_attach(m)) {
		saved_syn_mem_close(m);
		return NULL;
	}
	return m;
}

int saved_syn_mem_attach_pinned(unsigned int entries, unsigned int ring_bytes)
{
	struct saved_syn_mem *m = open_skel(CAPTURE_PIN_DIR, true);
	int err = -1;

	if (!m)
		return -1;
	/* the shared maps are reused from their pins: the sizes must match */
	if (bpf_map__set_max_entries(m->skel->maps.syn_by_flow, entries) ||
	    bpf_map__set_max_entries(m->skel->maps.syn_events, ring_bytes)) {
		fprintf(stderr, "saved_syn_mem: failed to size maps\n");
		goto out;
	}
	if (load_attach(m))
		goto out;
	for (int i = 0; i < MEM_PROGS; i++) {
		struct bpf_link **link;
		char path[256];

		if (cache_prog(mem_prog_names[i]) > m->cache_progs)
			continue;
		link_pin_path(i, path, sizeof(path));
		if (skel_prog(m, i, &link) < 0 || !*link || bpf_link__pin(*link, path)) {
			fprintf(stderr, "saved_syn_mem: failed to pin %s: %s\n", path,
				strerror(errno));
			goto out;
		}
	}
	printf("memory follower: kmalloc and kfree from %s; kmem_cache_alloc %s (%s)\n",
	       m->sites, m->cache_progs == 2 ? "by a twin pair" : m->cache_progs ? "by one program" :
	       "not followed", m->cache_why);
	err = 0;
out:
	saved_syn_mem_close(m); /* the pins keep it attached */
	return err;
}

/* The program behind pinned link @path, as an fd, or -1. */
static int prog_of_link(const char *path)
{
	struct bpf_link_info info = { 0 };
	__u32 len = sizeof(info);
	int link = bpf_obj_get(path), prog = -1;

	if (link >= 0 && !bpf_obj_get_info_by_fd(link, &info, &len))
		prog = bpf_prog_get_fd_by_id(info.prog_id);
	if (link >= 0)
		close(link);
	return prog;
}

/* Every program attached, kmem_cache_alloc's as many as the mode the loader recorded in the
 * stats map (record_mode()) says: none where it reads the owner, the first, or both. */
static bool pinned_progs(struct saved_syn_mem *m)
{
	struct mem_stats st = { 0 };
	__u32 zero = 0;

	if (bpf_map_lookup_elem(m->stats_fd, &zero, &st) || st.cache_progs > 2)
		return false;
	m->cache_progs = (int)st.cache_progs;
	for (int i = 0; i < MEM_PROGS; i++) {
		bool want = cache_prog(mem_prog_names[i]) <= m->cache_progs;

		if (want != (m->prog_fd[i] >= 0)) {
			fprintf(stderr, "saved_syn_mem: %s %s, with kmem_cache_alloc followed by %d "
				"program(s)\n", mem_prog_names[i], want ? "not attached" : "attached",
				m->cache_progs);
			return false;
		}
	}
	return true;
}

struct saved_syn_mem *saved_syn_mem_open_pinned(void)
{
	struct saved_syn_mem *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	for (int i = 0; i < MEM_PROGS; i++) {
		char path[256];

		link_pin_path(i, path, sizeof(path));
		m->prog_fd[i] = prog_of_link(path);
	}
	m->stats_fd = bpf_obj_get(CAPTURE_PIN_DIR "/mem_stats");
	m->live_fd = bpf_obj_get(CAPTURE_PIN_DIR "/mem_live");
	m->double_fd = bpf_obj_get(CAPTURE_PIN_DIR "/mem_double");
	if (m->stats_fd < 0 || m->live_fd < 0 || m->double_fd < 0 || !pinned_progs(m)) {
		fprintf(stderr, "saved_syn_mem: the memory follower is not attached (%s/mem_*)\n",
			CAPTURE_PIN_DIR);
		saved_syn_mem_close(m);
		return NULL;
	}
	return m;
}

void saved_syn_mem_read(const struct saved_syn_mem *m, struct mem_counts *out)
{
	struct mem_stats st = { 0 };
	__u32 zero = 0;

	bpf_map_lookup_elem(m->stats_fd, &zero, &st);
	out->allocs = st.allocs;
	out->frees = st.frees;
	out->untracked = st.untracked;
	out->double_frees = st.double_frees;
	out->unattributed = st.unattributed;
	out->ctx_overflow = st.ctx_overflow;
	out->cache_progs = m->cache_progs;
	out->owner_check = st.owner_check;
	out->double_unrecorded = st.double_unrecorded;
	out->outside_ctx = st.outside_ctx;
	out->live = (int64_t)(out->allocs - out->frees);
	/* runs the kernel skipped: a traced call nested in one of these programs on its CPU (an
	 * interrupt's allocation while the program ran in task context), handled by its twin */
	out->missed = out->ctx_missed = 0;
	for (int i = 0; i < MEM_PROGS; i++) {
		struct bpf_prog_info info = { 0 };
		__u32 len = sizeof(info);

		if (m->prog_fd[i] < 0 || bpf_obj_get_info_by_fd(m->prog_fd[i], &info, &len))
			continue;
		out->missed += info.recursion_misses;
		if (!strncmp(mem_prog_names[i], "rcv_state_", 10))
			out->ctx_missed += info.recursion_misses;
	}
}

const char *saved_syn_mem_sites(const struct saved_syn_mem *m)
{
	return m->sites;
}

int saved_syn_mem_each(const struct saved_syn_mem *m, int dbl,
		       int (*fn)(uint64_t addr, const struct mem_obj *o, void *arg), void *arg)
{
	int fd = dbl ? m->double_fd : m->live_fd, n = 0;
	__u64 key, next, *prev = NULL;
	struct mem_obj o;

	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &o))
			continue;
		n++;
		if (fn(key, &o, arg))
			break;
	}
	return errno == ENOENT || n ? n : -errno;
}

/* The kernel's text symbols, read from /proc/kallsyms once (in address order) for naming call
 * sites: a run with many leaks names each without reading the file again. */
struct ksym {
	unsigned long long addr;
	char name[128];
};
static struct ksym *ksyms;
static size_t nksyms;

static void load_ksyms(void)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], sym[128], type;
	unsigned long long a;
	size_t cap = 0;

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %127s", &a, &type, sym) != 3 || (type != 't' && type != 'T'))
			continue;
		if (nksyms == cap) {
			struct ksym *n = realloc(ksyms, (cap = cap ? 2 * cap : 4096) * sizeof(*n));

			if (!n)
				break;
			ksyms = n;
		}
		ksyms[nksyms].addr = a;
		snprintf(ksyms[nksyms++].name, sizeof(ksyms->name), "%s", sym);
	}
	if (f)
		fclose(f);
}

const char *saved_syn_mem_symbol(uint64_t addr, char *buf, size_t len)
{
	const struct ksym *best = NULL;

	if (!ksyms)
		load_ksyms();
	for (size_t i = 0; i < nksyms; i++)
		if (ksyms[i].addr <= addr && (!best || ksyms[i].addr >= best->addr))
			best = &ksyms[i];
	if (best)
		snprintf(buf, len, "%s+0x%llx", best->name, (unsigned long long)(addr - best->addr));
	else
		snprintf(buf, len, "0x%llx", (unsigned long long)addr);
	return buf;
}

void saved_syn_mem_close(struct saved_syn_mem *m)
{
	if (!m)
		return;
	if (m->skel) {
		saved_syn_mem_bpf__destroy(m->skel);
	} else {
		if (m->stats_fd >= 0)
			close(m->stats_fd);
		if (m->live_fd >= 0)
			close(m->live_fd);
		if (m->double_fd >= 0)
			close(m->double_fd);
		for (int i = 0; i < MEM_PROGS; i++)
			if (m->prog_fd[i] >= 0)
				close(m->prog_fd[i]);
	}
	free(m);
}
