// SPDX-License-Identifier: GPL-2.0
/* The saved-SYN memory follower's userspace half (saved_syn_mem.h). */
#include "saved_syn_mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "saved_syn_mem.skel.h"

#define MEM_MAX_SITES 8

static const char *const site_names[] = { "tcp_saved_syn_alloc", "tcp_reqsk_record_syn",
					  "tcp_conn_request", "tcp_rcv_synsent_state_process",
					  "tcp_rcv_state_process" };

struct saved_syn_mem {
	struct saved_syn_mem_bpf *skel;
	char sites[256];
};

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

struct saved_syn_mem *saved_syn_mem_open(void)
{
	struct saved_syn_mem *m = calloc(1, sizeof(*m));
	uint64_t lo[MEM_MAX_SITES + 1] = { 0 }, hi[MEM_MAX_SITES + 1] = { 0 };
	int n;

	if (!m)
		return NULL;
	n = resolve(lo, hi, m->sites, sizeof(m->sites));
	if (n <= 0) {
		fprintf(stderr, "saved_syn_mem: no saved-SYN function in /proc/kallsyms\n");
		goto fail;
	}
	m->skel = saved_syn_mem_bpf__open();
	if (!m->skel)
		goto fail;
	for (int i = 0; i < n; i++) {
		m->skel->rodata->site_lo[i] = lo[i];
		m->skel->rodata->site_hi[i] = hi[i];
	}
	m->skel->rodata->nsites = (__u32)n;
	if (saved_syn_mem_bpf__load(m->skel) || saved_syn_mem_bpf__attach(m->skel)) {
		fprintf(stderr, "saved_syn_mem: cannot load or attach the kmalloc/kfree follower: %s\n",
			strerror(errno));
		goto fail;
	}
	return m;
fail:
	saved_syn_mem_close(m);
	return NULL;
}

void saved_syn_mem_read(const struct saved_syn_mem *m, struct mem_counts *out)
{
	out->allocs = __atomic_load_n(&m->skel->bss->allocs, __ATOMIC_RELAXED);
	out->frees = __atomic_load_n(&m->skel->bss->frees, __ATOMIC_RELAXED);
	out->untracked = __atomic_load_n(&m->skel->bss->untracked, __ATOMIC_RELAXED);
	out->live = (int64_t)(out->allocs - out->frees);
}

const char *saved_syn_mem_sites(const struct saved_syn_mem *m)
{
	return m->sites;
}

void saved_syn_mem_close(struct saved_syn_mem *m)
{
	if (!m)
		return;
	saved_syn_mem_bpf__destroy(m->skel);
	free(m);
}
