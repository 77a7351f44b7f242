/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the witness needs of the kernel it runs on, read from that kernel before anything is
 * loaded, never assumed from its version: BPF ring buffers (syn_events carries every bound
 * record: 5.8), the drop reason in kfree_skb's BTF tracepoint (syn_drops: why the kernel
 * dropped a copy: 5.17), and BPF trampolines for the memory follower (fentry/fexit on
 * tcp_rcv_state_process(): the tracing program type and the function in the kernel's BTF),
 * and a hash map's lookup-and-delete (every take of a flow entry: 5.14). Each is named with
 * the proofs it carries. Without the ring buffer or the lookup-and-delete, or trampolines
 * where the follower (or the tcp capture point) is asked for, the witness is not attached;
 * without drop reasons it runs and says so, its drops name no reason (DROP_REASON_UNKNOWN),
 * and a verdict that needs one is unexplained: a run never goes on quietly with fewer proofs
 * than it holds its verdicts to.
 */
#ifndef SYNTWIN_WITNESS_FEATURES_H
#define SYNTWIN_WITNESS_FEATURES_H

#include <stdbool.h>
#include <stddef.h>

struct btf;

enum witness_feature { WF_RINGBUF, WF_DROP_REASON, WF_TRAMPOLINE, WF_TAKE, WF_MAX };

struct witness_features {
	bool have[WF_MAX];
};

/* Each feature's name in messages and summary.json, and what the witness proves with it. */
extern const char *const witness_feature_names[WF_MAX];
extern const char *const witness_feature_keys[WF_MAX];
extern const char *const witness_feature_proofs[WF_MAX];

/* The features @btf (the kernel's BTF; NULL: none) shows, with the running kernel's answers
 * to libbpf's probes for the ring buffer map (@ringbuf) and the tracing program type
 * (@tracing), and to a lookup-and-delete on a hash map of its own (@take).
 * SYNTWIN_WITNESS_WITHOUT=KEY[,KEY] (witness_feature_keys) counts those as missing: a test of
 * the refusal on a kernel that has them. Returns 0, or -1 if SYNTWIN_WITNESS_WITHOUT names
 * something that is no feature (said on stderr). */
int witness_features_of(const struct btf *btf, bool ringbuf, bool tracing, bool take,
			struct witness_features *out);

/* The same of the running kernel (its BTF, libbpf's probes). */
int witness_features_here(struct witness_features *out);

/* "ring buffer, kfree_skb drop reasons, BPF trampolines" into @buf: the features present. */
void witness_features_line(const struct witness_features *f, char *buf, size_t len);

#endif
