/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The saved-SYN memory follower (bpf/saved_syn_mem.bpf.c), for a test process: every kmalloc
 * made from a saved-SYN function, followed to its kfree, counted exactly.
 */
#ifndef SYNTWIN_SAVED_SYN_MEM_H
#define SYNTWIN_SAVED_SYN_MEM_H

#include <stdint.h>

struct saved_syn_mem;

/* The counts since the follower was attached. */
struct mem_counts {
	uint64_t allocs, frees, untracked;
	int64_t live;			/* allocs - frees */
};

/*
 * Resolves the saved-SYN functions present in /proc/kallsyms (tcp_saved_syn_alloc,
 * tcp_reqsk_record_syn, tcp_conn_request, tcp_rcv_synsent_state_process,
 * tcp_rcv_state_process: where the copy is made, inlined or not), loads and attaches the
 * follower. Returns it, or NULL with a message on stderr.
 */
struct saved_syn_mem *saved_syn_mem_open(void);
void saved_syn_mem_read(const struct saved_syn_mem *m, struct mem_counts *out);
/* The call sites followed, for messages ("tcp_conn_request, ..."). */
const char *saved_syn_mem_sites(const struct saved_syn_mem *m);
void saved_syn_mem_close(struct saved_syn_mem *m);

#endif
