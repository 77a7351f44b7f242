/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace access to the witness's pinned maps: what the comparator links to. */
#ifndef SYNTWIN_CAPTURE_CLIENT_H
#define SYNTWIN_CAPTURE_CLIENT_H

#include <linux/types.h>
#include <stdbool.h>

#include "capture.h"

struct capture_client {
	int by_cookie_fd, by_flow_fd, counters_fd, errors_fd, copies_fd;
	/* entries this client removed (capture_lookup_cookie() with take), for eviction counts */
	__u64 taken_cookie, taken_flow;
	__u32 capacity;		/* max_entries of each of the two LRU maps */
};

/* Open the maps pinned under CAPTURE_PIN_DIR. Returns 0 or -errno (message printed). */
int capture_client_open(struct capture_client *c);
void capture_client_close(struct capture_client *c);

/* The capture bound to @cookie; with @take, also remove it and its flow entry (each capture is
 * compared once). Returns 0, -ENOENT if there is none, or another -errno. */
int capture_lookup_cookie(struct capture_client *c, __u64 cookie, struct capture_rec *out,
			  bool take);

/* The earlier copies of capture @r (the last of r->copies, flagged CAP_F_RECAPTURED), in
 * arrival order, removed from syn_copies: up to @max into @out. Returns how many were found
 * (fewer than r->copies - 1 if some were cut or evicted), or -errno. */
int capture_take_copies(struct capture_client *c, const struct capture_rec *r,
			struct capture_rec *out, int max);

/* The capture of flow @k still waiting in syn_by_flow (no socket took it), removed. Returns 0,
 * -ENOENT if there is none, or another -errno. */
int capture_take_flow(struct capture_client *c, const struct capture_key *k,
		      struct capture_rec *out);

/* The name of drop reason @v (enum skb_drop_reason in the running kernel's BTF, without its
 * SKB_DROP_REASON_ prefix), or NULL if the kernel has no such value or no BTF. */
const char *capture_drop_reason_name(unsigned int v);

/* The syn_by_flow key of a capture, rebuilt from its bytes. Returns 0 or -EINVAL. */
int capture_key_of(const struct capture_rec *r, struct capture_key *k);

/* Counters summed over CPUs into @out[CNT_MAX]. Returns 0 or -errno. */
int capture_counters(struct capture_client *c, __u64 *out);

/* Visit every entry of syn_by_flow (captures never bound to a socket). @fn returning nonzero
 * stops. Returns the number visited or -errno. */
int capture_each_unbound(struct capture_client *c,
			 int (*fn)(const struct capture_key *, const struct capture_rec *, void *),
			 void *arg);

/*
 * Entries the LRU maps evicted so far: what went in (new flow keys, bindings) less what this
 * client took and what is still there. Exact when nothing is in flight and this client is the
 * only consumer; iterates both maps. Returns the count, or -errno.
 */
long long capture_evictions(struct capture_client *c);

/* Kernel memory charged to the two capture maps (fdinfo memlock; preallocated, so constant for
 * a run), or -1 if unreadable. */
long long capture_map_bytes(struct capture_client *c);

/* The last BPF-side error of program kind @slot (0 tc, 1 sockops); line 0 means none. */
int capture_error(struct capture_client *c, __u32 slot, struct bpf_error *out);

extern const char *const capture_counter_names[CNT_MAX];

#endif
