// SPDX-License-Identifier: GPL-2.0
/*
 * take_flow: the consumer's take of a flow entry, with nothing allocated on the way (struct
 * take_slot in capture.h says why and how it keeps out of keep_copy()'s way). The consumer
 * runs it with BPF_PROG_TEST_RUN and no context; it finds the consumer's slot by its thread id,
 * claims the entry of the slot's key (TAKE_TAKEN), copies it into the slot and deletes it.
 *
 * The claim is the take: from it on every writer reads the entry as gone (flow_entry()), as
 * after bpf()'s lookup-and-delete, and a later copy of the SYN waits for the delete and makes
 * the key anew, or, where it cannot wait (a softirq on this CPU, between the claim and the
 * delete), is parked in syn_late, which the take moves into syn_by_flow behind its delete. A
 * writer that found the entry before the claim and writes after the copy writes into an entry
 * taken, as one that found it before bpf()'s take does.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "syn_maps.bpf.h"

SEC("syscall")
int take_flow(void *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), i = tid % TAKE_SLOTS;
	struct take_slot *s = bpf_map_lookup_elem(&syn_take, &i);
	struct capture_rec *rec;
	struct capture_key key;
	__u64 was;

	if (!s || !tid || s->owner != tid)
		return TAKE_NOT_OWNER;
	/* the key read once, into this program's stack */
	__builtin_memcpy(&key, &s->key, sizeof(key));
	rec = bpf_map_lookup_elem(&syn_by_flow, &key);
	if (!rec)
		return TAKE_NONE;
	/* a later copy replacing it (its copy is the entry then), or the entry changed under the
	 * claim: the consumer calls again */
	if (claim_entry(&key, rec, TAKE_TAKEN, &was))
		return TAKE_BUSY;
	__builtin_memcpy(&s->rec, rec, sizeof(*rec));
	/* its incarnation, no claim (the consumer's catch_up() names the bound copy by it) */
	s->rec.take_state = was;
	/* Still the key's, as claimed: the claim holds off every writer but the LRU, whose
	 * eviction of the element (then handed to another entry's insert, maybe as the copy was
	 * being made) the claim does not see. An element still linked under the key has not been
	 * given to another insert: the copy is of this entry. Otherwise the consumer calls again
	 * and finds none (an eviction, which it counts), or the key made anew. */
	if (bpf_map_lookup_elem(&syn_by_flow, &key) != rec ||
	    *(volatile __u64 *)&rec->take_state != (was | TAKE_TAKEN))
		return TAKE_BUSY;
	bpf_map_delete_elem(&syn_by_flow, &key);
	unpark(&key);
	return TAKE_DONE;
}

char LICENSE[] SEC("license") = "GPL";
