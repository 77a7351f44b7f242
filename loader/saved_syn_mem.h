/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The saved-SYN memory follower (bpf/saved_syn_mem.bpf.c): every kmalloc made from a saved-SYN
 * function, tied to the captured packet it copies, followed to its kfree, counted exactly. A
 * test process loads it for itself (saved_syn_mem_open()); a run attaches it with the witness
 * (saved_syn_mem_attach_pinned(), by the loader) and the comparator reads it
 * (saved_syn_mem_open_pinned()).
 */
#ifndef SYNTWIN_SAVED_SYN_MEM_H
#define SYNTWIN_SAVED_SYN_MEM_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture.h"

struct saved_syn_mem;

/* enum mem_owner's name in summary.json */
static inline const char *mem_owner_name(enum mem_owner o)
{
	return o == MEM_OWNER_KMALLOC ? "kmalloc" : o == MEM_OWNER_OTHER ? "other-cache" :
	       o == MEM_OWNER_NO_SLAB ? "no-slab" : o == MEM_OWNER_NOT_OBJECT ? "not-an-object" :
	       "none";
}

/* The counts since the follower was attached. */
struct mem_counts {
	uint64_t allocs, frees, untracked, double_frees, unattributed;
	uint64_t ctx_overflow;		/* packets named by tc's cur_copy: TCP's stack was full */
	uint64_t missed;		/* the follower's runs the kernel skipped (recursion_misses),
					 * each event then handled by the other twin (a missed
					 * kmem_cache_alloc run where it has no twin: the address
					 * may have been reused unseen) */
	uint64_t ctx_missed;		/* ... of them, tcp_rcv_state_process()'s entries and exits */
	uint64_t outside_ctx;		/* saved-SYN allocations outside tcp_rcv_state_process() */
	int cache_progs;		/* kmem_cache_alloc followed by a twin pair (2: slab caches
					 * may merge), one program (1), or none (0: a second kfree
					 * reads what owns the address, slab_owner.h) */
	uint64_t owner_check;		/* ... with none: what owned the first copy freed (enum
					 * mem_owner; MEM_OWNER_KMALLOC, or 0 before one was) */
	uint64_t double_unrecorded;	/* second kfrees not written to mem_double */
	int64_t live;			/* allocs - frees */
};

/*
 * Resolves the saved-SYN functions present in /proc/kallsyms (tcp_saved_syn_alloc,
 * tcp_reqsk_record_syn, tcp_conn_request, tcp_rcv_synsent_state_process,
 * tcp_rcv_state_process: where the copy is made, inlined or not), loads and attaches the
 * follower with maps of its own. Returns it, or NULL with a message on stderr.
 */
struct saved_syn_mem *saved_syn_mem_open(void);
/* The same on the witness's maps pinned under CAPTURE_PIN_DIR (the flow map @entries long),
 * its maps and links pinned there too, so it outlives the caller. Returns 0 or -1 (message
 * printed). */
int saved_syn_mem_attach_pinned(unsigned int entries, unsigned int ring_bytes);
/* The pinned follower's maps, for reading. NULL with a message if it is not attached. */
struct saved_syn_mem *saved_syn_mem_open_pinned(void);

void saved_syn_mem_read(const struct saved_syn_mem *m, struct mem_counts *out);
/* The call sites followed, for messages ("tcp_conn_request, ..."); "" for a pinned reader. */
const char *saved_syn_mem_sites(const struct saved_syn_mem *m);
/* Each object still live (@dbl 0) or freed twice (@dbl 1), by address; @fn returning nonzero
 * stops. Returns how many were visited, or -errno. */
int saved_syn_mem_each(const struct saved_syn_mem *m, int dbl,
		       int (*fn)(uint64_t addr, const struct mem_obj *o, void *arg), void *arg);
/* "function+0xoff" for kernel text address @addr, from /proc/kallsyms, into @buf. */
const char *saved_syn_mem_symbol(uint64_t addr, char *buf, size_t len);
void saved_syn_mem_close(struct saved_syn_mem *m);

/* The follower's programs, by name; each attached by a link pinned as link_mem_<name>. */
#define SAVED_SYN_MEM_PROGS "on_kmalloc", "on_kmalloc_twin", "on_cache_alloc", \
	"on_cache_alloc_twin", "on_kfree", "on_kfree_twin", "rcv_state_enter", \
	"rcv_state_enter_twin", "rcv_state_exit", "rcv_state_exit_twin"

/* Pins the follower leaves under CAPTURE_PIN_DIR (for detach). */
#define SAVED_SYN_MEM_PINS "mem_live", "mem_freed", "mem_seen", "mem_double", "mem_stats", \
	"cur_copy", "link_mem_on_kmalloc", "link_mem_on_kmalloc_twin", "link_mem_on_cache_alloc", \
	"link_mem_on_cache_alloc_twin", "link_mem_on_kfree", "link_mem_on_kfree_twin", \
	"link_mem_rcv_state_enter", "link_mem_rcv_state_enter_twin", "link_mem_rcv_state_exit", \
	"link_mem_rcv_state_exit_twin"

#endif
