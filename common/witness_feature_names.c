// SPDX-License-Identifier: GPL-2.0
/* The witness features' names (witness_features.h): here, apart from their detection in
 * loader/witness_features.c, so that what reads summaries needs no libbpf. */
#include "witness_features.h"

const char *const witness_feature_names[WF_MAX] = {
	"ring buffer", "kfree_skb drop reasons", "BPF trampolines", "hash map lookup-and-delete" };
const char *const witness_feature_keys[WF_MAX] = { "ring_buffer", "drop_reasons", "trampolines",
						   "lookup_and_delete" };
const char *const witness_feature_proofs[WF_MAX] = {
	"every capture bound to its socket (the ring carries each bound record)",
	"why the kernel dropped a copy (dropped-by-kernel, rejected-by-kernel)",
	"the packet each saved copy was made from, and so every memory proof (the memory "
	"follower's context on tcp_rcv_state_process()), and which drops are a copy's own, not "
	"a clone's (the end of each copy's sk_buff record)",
	"each connection's capture as it is when taken (a flow entry removed in one step with "
	"what came after its bind)" };
