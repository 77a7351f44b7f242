// SPDX-License-Identifier: GPL-2.0
/*
 * Follows every saved-SYN copy from kmalloc to kfree (raw_tp/kmalloc, raw_tp/kfree; raw
 * tracepoints, as tp_btf cannot read their void * argument on 6.1). An allocation whose call
 * site lies in one of the saved-SYN functions (ranges userspace resolves from /proc/kallsyms, on
 * stock and patched kernels alike) is kept by address with its requested size, its call site,
 * and the packet the kernel was processing on this CPU (the innermost packet TCP's receive
 * functions hold, tcp_ctx; else cur_copy, the last packet tc saw here). That copy (the one whose
 * sk_buff it is, copy_skbs.bpf.h; none where tc recorded none: unattributed, which fails the
 * run) is marked CAP_F_SAVED with the size, so the comparator can check the size against the
 * bytes read back and which copy the kernel saved. A kfree moves the object to mem_freed; a second kfree of it
 * with no allocation of the address in between is a double free (mem_double). Exact counts, no
 * byte budget, no debug kernel.
 *
 * An allocation of the address is a kmalloc, or a kmem_cache_alloc of a cache that took the
 * freed copy's slab page. Where slab caches merge, kmem_cache_alloc hands out kmalloc caches'
 * objects all the time: a twin pair follows it. Unmerged (loader/slab_merge.h), only a page given
 * back and taken by another cache does, and the loader chooses one of two ways to see that: no
 * program at all where what owns an address can be read (read_owner: loader/slab_owner.h), a
 * second kfree then noting whether a cache other than kmalloc's owns the address by then; one
 * program otherwise.
 *
 * Every other program is attached twice (a twin pair per tracepoint or function). The kernel
 * does not run a program nested in itself on one CPU: an allocation made by an interrupt (a
 * softirq delivering a SYN at irq exit, as netem's timer does) while the program runs for a
 * task's allocation is
 * skipped, counted only as a recursion miss. The twins run one after the other for each event,
 * so a nested event finds at least one of them idle, and that one sees it. Both may see an
 * event, so each step is idempotent: an allocation is taken by whichever twin inserts it first
 * (BPF_NOEXIST), an address handed out again is forgotten as freed by both, and a kfree counts
 * its runs on the object (free_runs): one call gives two runs, or one when a twin was skipped,
 * so three or more prove a second call. Only both twins skipped at once (an event nested three
 * deep: task, softirq, hardirq) escapes, and no saved copy is made in a hardirq.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <stdbool.h>

#include "copy_skbs.bpf.h"
#include "skb_flow.bpf.h"

#define MEM_MAX_SITES 8

const volatile __u64 site_lo[MEM_MAX_SITES];
const volatile __u64 site_hi[MEM_MAX_SITES];
const volatile __u32 nsites;
/* the loader proved page_offset_base, vmemmap_base and the slab fields readable (slab_owner.h) */
const volatile bool read_owner;
/* [sites_lo, sites_hi): from the lowest site's start to the highest's end, one comparison that
 * most allocations (none of them a saved copy's) fail before the loop */
const volatile __u64 sites_lo, sites_hi;

/* Objects allocated and not yet freed, by address. Preallocated: an element allocated on
 * update would be a kmalloc inside this program, which the tracepoint does not report (a BPF
 * program does not run nested in itself), so its address would escape the reuse check. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, struct mem_obj);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} mem_live SEC(".maps");

/* Objects freed, until their address is allocated again (by anyone). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, struct mem_obj);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} mem_freed SEC(".maps");

/* Objects freed twice: call_site is the second kfree's caller. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, struct mem_obj);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} mem_double SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct mem_stats);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} mem_stats SEC(".maps");

static __always_inline bool saved_syn_site(unsigned long call_site)
{
	int i;

	if (call_site - sites_lo >= sites_hi - sites_lo)
		return false;
	for (i = 0; i < MEM_MAX_SITES; i++)
		if (i < nsites && call_site >= site_lo[i] && call_site < site_hi[i])
			return true;
	return false;
}

/*
 * Addresses ever followed, one bit per hash of the address (2^20 bits, 128 KiB). The invariant
 * the follower rests on: every address in mem_live or mem_freed has its bit set. A bit is set
 * before its object enters mem_live (the only way into mem_freed too) and never cleared.
 * An address whose bit is clear is in neither map, so a kfree or allocation of it returns
 * before any hash-map lookup: these programs run for every kfree and allocation in the kernel,
 * and almost none is a saved copy's. Exact, never a sample: a bit another address shares only
 * costs that address the lookups every address used to cost. The addresses saved copies get are
 * slab objects, reused, so even a long run sets few bits.
 */
#define SEEN_BITS_LOG2 20
/* A map, pinned with the others (not global data): a follower attached again over pinned
 * mem_live and mem_freed finds the bits of the objects in them. An array lookup is inlined by
 * the verifier: an address computation, no call. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1u << (SEEN_BITS_LOG2 - 6));
	__type(key, __u32);
	__type(value, __u64);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} mem_seen SEC(".maps");

/* @k's word of mem_seen, its bit into *@bit (addr_bits.bpf.h) */
static __always_inline __u64 *seen_word(__u64 k, __u64 *bit)
{
	__u32 w = addr_bit(k, SEEN_BITS_LOG2, bit);

	return bpf_map_lookup_elem(&mem_seen, &w);
}

/* false only if @k was never followed (a missing word: followed, to be safe) */
static __always_inline bool maybe_followed(__u64 k)
{
	__u64 bit, *w = seen_word(k, &bit);

	return !w || (*w & bit);
}

static __always_inline void mark_followed(__u64 k)
{
	__u64 bit, *w = seen_word(k, &bit);

	if (w)
		__sync_fetch_and_or(w, bit);
}

/* Address @k was handed out again: it is no longer a freed saved copy. This runs on every
 * allocation in the kernel, almost never for an address in mem_freed: the bit first, then a
 * lookup (lock-free), so the delete (which takes the bucket's lock) runs only when there is
 * something to delete. */
static __always_inline void forget_freed(__u64 k)
{
	if (maybe_followed(k) && bpf_map_lookup_elem(&mem_freed, &k))
		bpf_map_delete_elem(&mem_freed, &k);
}

/*
 * The packets TCP is processing on this CPU, innermost last, each by its skb: fentry on
 * tcp_rcv_state_process, in the softirq and in the socket's backlog, which TCP works through
 * later, in the task that held the socket, after other packets went through tc. The tc
 * program's cur_copy (the last packet tc saw on the CPU) names the wrong packet there: a SYN-ACK
 * that came while connect() held its socket is processed after the packets behind it passed
 * tc. fexit takes an entry off by its skb, with whatever lies above it (an entry whose fexit run
 * the kernel skipped). Only this function: every saved-SYN call site runs inside it, with its
 * skb (tcp_conn_request() from its LISTEN case, the SYN-ACK's save from its SYN_SENT case), so
 * it names the packet of every copy, at a third of the runs tcp_v4_rcv() and tcp_v6_rcv() cost
 * on every segment. The entry is attached twice, as the tracepoint programs are (below): a
 * call nested in it on its CPU (a softirq's packet while the task works through a backlog) is
 * pushed by the other, and a push is idempotent (the twin finds its skb on top). The exit too:
 * its twin pops only its own skb from the top (ctx_exit_top()), a no-op behind the first exit,
 * and the pop of a call whose first exit was skipped (the innermost call, on top as it
 * returns). Their skipped runs are counted apart (ctx_missed_runs). A
 * saved-SYN allocation with no packet on the stack (outside tcp_rcv_state_process(), which a
 * correct kernel never does) is counted (outside_ctx), and fails the run.
 *
 * Only a saved copy's allocation reads the innermost packet's headers (current_packet()): the
 * copy is made from that skb while TCP processes it, after TCP pulled its headers into the
 * linear area, and TCP does not rewrite the headers it received. The entries, taken for every
 * packet tcp_rcv_state_process() receives, cost a push and a pop.
 */
#define TCP_CTX_DEPTH 4
struct tcp_ctx {
	__u64 skb[TCP_CTX_DEPTH];
	__u32 len;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tcp_ctx);
} tcp_ctx SEC(".maps");

/*
 * No clock: an entry stays only if both exits of its call were skipped (nested three deep),
 * until an exit below it pops it; every site allocation has its own packet's entry pushed
 * above it.
 */
/* This CPU's stack, its length into *@len, and whether @skb is on its top. */
static __always_inline struct tcp_ctx *ctx_top(struct sk_buff *skb, __u32 *len, bool *on_top)
{
	__u32 zero = 0, n;
	struct tcp_ctx *t = bpf_map_lookup_elem(&tcp_ctx, &zero);

	if (!t)
		return NULL;
	n = t->len;
	*len = n;
	*on_top = n > 0 && n <= TCP_CTX_DEPTH &&
		  t->skb[(n - 1) & (TCP_CTX_DEPTH - 1)] == (__u64)skb;
	return t;
}

static __always_inline void ctx_enter(struct sk_buff *skb)
{
	struct tcp_ctx *t;
	__u32 zero = 0, len;
	bool on_top;

	t = ctx_top(skb, &len, &on_top);
	/* on top: the twin's run for the same call pushed it already */
	if (!t || on_top)
		return;
	if (len >= TCP_CTX_DEPTH) {
		/* no room: this packet's allocations fall back to cur_copy; counted, and a run
		 * where that happened fails (ctx_overflow) */
		struct mem_stats *st = bpf_map_lookup_elem(&mem_stats, &zero);

		if (st)
			__sync_fetch_and_add(&st->ctx_overflow, 1);
		return;
	}
	/* A softirq can run between these stores (a task's backlog is processed with BHs on)
	 * and push, then pop, its own packet in this slot: written, published, written again,
	 * so the slot is this packet's once the stack holds it. */
	t->skb[len] = (__u64)skb;
	asm volatile("" ::: "memory");
	t->len = len + 1;
	asm volatile("" ::: "memory");
	t->skb[len] = (__u64)skb;
}

/* The exit's twin: pops @skb only if it is on top, so it is a no-op behind the first exit (which
 * popped it) and takes the entry of an exit the first skipped (nested in it on its CPU: the
 * innermost call, on top when it returns). */
static __always_inline void ctx_exit_top(struct sk_buff *skb)
{
	struct tcp_ctx *t;
	bool on_top;
	__u32 len;

	t = ctx_top(skb, &len, &on_top);
	if (t && on_top)
		t->len = len - 1;
}

static __always_inline void ctx_exit(struct sk_buff *skb)
{
	struct tcp_ctx *t;
	__u32 zero = 0;
	int i;

	t = bpf_map_lookup_elem(&tcp_ctx, &zero);
	if (!t)
		return;
	for (i = TCP_CTX_DEPTH - 1; i >= 0; i--)
		if (i < (int)t->len && t->skb[i] == (__u64)skb) {
			t->len = (__u32)i;
			return;
		}
}

struct sock;

SEC("fentry/tcp_rcv_state_process")
int BPF_PROG(rcv_state_enter, struct sock *sk, struct sk_buff *skb)
{
	ctx_enter(skb);
	return 0;
}

SEC("fentry/tcp_rcv_state_process")
int BPF_PROG(rcv_state_enter_twin, struct sock *sk, struct sk_buff *skb)
{
	ctx_enter(skb);
	return 0;
}

SEC("fexit/tcp_rcv_state_process")
int BPF_PROG(rcv_state_exit, struct sock *sk, struct sk_buff *skb, int ret)
{
	ctx_exit(skb);
	return 0;
}

SEC("fexit/tcp_rcv_state_process")
int BPF_PROG(rcv_state_exit_twin, struct sock *sk, struct sk_buff *skb, int ret)
{
	ctx_exit_top(skb);
	return 0;
}


/* addr_of_number()'s word */
__u64 skb_base;

/*
 * The packet a saved copy made now belongs to, into *@cur: the innermost one TCP is processing
 * on this CPU if it is a SYN, else (not a SYN, or none: no room) the last one tc saw here. Into
 * the caller's stack, not a per-CPU slot: a twin run nested in this one (an interrupt's
 * allocation) would overwrite a shared slot under it.
 */
static __always_inline bool current_packet(struct cur_copy *cur)
{
	struct tcphdr th = {};
	struct cur_copy *tc;
	struct tcp_ctx *t;
	__u32 zero = 0, len;

	t = bpf_map_lookup_elem(&tcp_ctx, &zero);
	if (t && !t->len) {
		struct mem_stats *st = bpf_map_lookup_elem(&mem_stats, &zero);

		if (st)
			__sync_fetch_and_add(&st->outside_ctx, 1);
	}
	if (t) {
		__u32 top;

		len = t->len;
		top = (len - 1) & (TCP_CTX_DEPTH - 1);
		if (len > 0 && len <= TCP_CTX_DEPTH &&
		    !syn_flow_of_skb((struct sk_buff *)t->skb[top], &cur->flow, &th, &cur->tag)) {
			/* which copy: the one tc recorded at this sk_buff (copy_skbs.bpf.h),
			 * where the tag would name every copy of the same bytes */
			cur->incarnation = copy_skb_at(addr_of_number(t->skb[top], &skb_base),
						       &cur->flow, cur->tag);
			cur->valid = 1;
			return true;
		}
	}
	tc = bpf_map_lookup_elem(&cur_copy, &zero);
	if (!tc || !tc->valid)
		return false;
	*cur = *tc;
	return true;
}

/* Ties @o to the packet this CPU is processing, and marks that copy as saved. */
static __always_inline bool attribute(struct mem_obj *o)
{
	struct capture_rec *copy, *latest;
	struct cur_copy cur = {};

	if (!current_packet(&cur))
		return false;
	o->flow = cur.flow;
	o->tag = cur.tag;
	/* the copy whose sk_buff TCP is processing: none where tc recorded no copy there (a
	 * packet that passed no witness device, a record lost), not another of the same tag.
	 * (Where TCP's stack has no room, or its top is no SYN, cur_copy names the last copy tc
	 * saw on this CPU: counted, ctx_overflow, or a SYN only a fragment carries.) */
	copy = find_copy(&cur.flow, cur.incarnation, &latest);
	if (!copy)
		return false;
	if (copy->flags & CAP_F_SAVED)
		copy->flags |= CAP_F_SAVED_AGAIN;
	copy->flags |= CAP_F_SAVED;
	copy->saved_size = (__u32)o->bytes;
	return true;
}

/*
 * What owns @addr now (enum mem_owner): the struct page of the direct-map address (x86-64: 4 KiB
 * pages, vmemmap), its compound head, whether that page is a slab, and if so whether its
 * cache (struct slab's slab_cache) is a kmalloc cache (SLAB_KMALLOC). The layout by CO-RE: a
 * page type on kernels that have enum pagetype (6.12), PG_slab in the flags before; the
 * loader attaches no reader where it found neither (slab_owner.h). Read only on the rare
 * path: a second kfree of a freed copy's address, and once for the run's first copy freed
 * (owner_check), where a saved copy, a kmalloc cache's object, must read MEM_OWNER_KMALLOC.
 */
extern const void page_offset_base __ksym __weak;
extern const void vmemmap_base __ksym __weak;

enum pageflags { PG_slab = 7 };
enum pagetype { PGTY_slab = 0xf5 };
/* SLAB_KMALLOC: a bit of this enum where the kernel has it (6.10 on), else the macro's value
 * (include/linux/slab.h: 0x00001000U, 6.1), which owner_check proves on every run */
enum _slab_flag_bits { _SLAB_KMALLOC = 12 };
#define SLAB_KMALLOC_6_1 0x00001000U

struct page {
	unsigned long flags;
	unsigned long compound_head;
	unsigned int page_type;
} __attribute__((preserve_access_index));

struct kmem_cache {
	unsigned int flags;
	unsigned int size;
	unsigned int red_left_pad;
} __attribute__((preserve_access_index));

struct slab {
	struct kmem_cache *slab_cache;
	unsigned int objects:15;
} __attribute__((preserve_access_index));

static __always_inline bool page_is_slab(struct page *pg)
{
	if (bpf_core_enum_value_exists(enum pagetype, PGTY_slab) &&
	    bpf_core_field_exists(pg->page_type))
		return BPF_CORE_READ(pg, page_type) >> 24 ==
		       (unsigned int)bpf_core_enum_value(enum pagetype, PGTY_slab);
	if (bpf_core_enum_value_exists(enum pageflags, PG_slab) && bpf_core_field_exists(pg->flags))
		return BPF_CORE_READ(pg, flags) >> bpf_core_enum_value(enum pageflags, PG_slab) & 1;
	return false;
}

static __always_inline unsigned int slab_kmalloc_flag(void)
{
	if (bpf_core_enum_value_exists(enum _slab_flag_bits, _SLAB_KMALLOC))
		return 1u << bpf_core_enum_value(enum _slab_flag_bits, _SLAB_KMALLOC);
	return SLAB_KMALLOC_6_1;
}

/* Another cache's object at @addr in slab @pg of cache @s: an object's start (SLUB: the slab's
 * address + red_left_pad + k * size, k below the slab's objects); MEM_OWNER_NOT_OBJECT
 * otherwise, unread on a failed read. */
static __always_inline __u64 other_object(__u64 addr, struct page *pg, struct kmem_cache *s,
					  __u64 base, __u64 vmemmap)
{
	__u64 start = base + (((__u64)pg - vmemmap) / bpf_core_type_size(struct page) << 12);
	struct slab *sl = (struct slab *)pg;
	unsigned int size, pad, objects;

	if (bpf_core_read(&size, sizeof(size), &s->size) ||
	    bpf_core_read(&pad, sizeof(pad), &s->red_left_pad))
		return MEM_OWNER_UNREAD;
	objects = (unsigned int)BPF_CORE_READ_BITFIELD_PROBED(sl, objects);
	if (!size || addr < start + pad || (addr - start - pad) % size ||
	    (addr - start - pad) / size >= objects)
		return MEM_OWNER_NOT_OBJECT;
	return MEM_OWNER_OTHER;
}

/* After the reads of @s: the page is still a slab of @s (no page freed and taken meanwhile:
 * 6.1 clears PG_slab, then the slab_cache word, with nothing between for a reader). */
static __always_inline bool still_slab_of(struct page *pg, struct kmem_cache *s)
{
	struct kmem_cache *again;

	return page_is_slab(pg) &&
	       !bpf_core_read(&again, sizeof(again), &((struct slab *)pg)->slab_cache) && again == s;
}

/* Every read checked: a failed one is MEM_OWNER_UNREAD, which excuses nothing. */
static __always_inline __u64 slab_owner(__u64 addr)
{
	__u64 base, vmemmap, head;
	struct kmem_cache *s;
	unsigned int flags;
	struct page *pg;

	if (bpf_probe_read_kernel(&base, sizeof(base), &page_offset_base) ||
	    bpf_probe_read_kernel(&vmemmap, sizeof(vmemmap), &vmemmap_base) || addr < base)
		return MEM_OWNER_UNREAD;
	pg = (struct page *)(vmemmap + ((addr - base) >> 12) * bpf_core_type_size(struct page));
	if (bpf_core_read(&head, sizeof(head), &pg->compound_head))
		return MEM_OWNER_UNREAD;
	if (head & 1) {
		pg = (struct page *)(head - 1);
		if (bpf_core_read(&head, sizeof(head), &pg->compound_head))
			return MEM_OWNER_UNREAD;
	}
	if (!page_is_slab(pg))
		return MEM_OWNER_NO_SLAB;
	/* a kmem_cache is aligned; a page that stopped being a slab holds a mapping there (6.1:
	 * anon_vma | 1) or a list link */
	if (bpf_core_read(&s, sizeof(s), &((struct slab *)pg)->slab_cache) || !s || ((__u64)s & 7))
		return MEM_OWNER_UNREAD;
	/* 6.12: slab_cache is compound_head's word, which holds a list link while a page becomes
	 * or stops being a slab: the two reads must agree */
	if (bpf_core_field_offset(struct slab, slab_cache) ==
	    bpf_core_field_offset(struct page, compound_head) && (__u64)s != head)
		return MEM_OWNER_UNREAD;
	if (bpf_core_read(&flags, sizeof(flags), &s->flags))
		return MEM_OWNER_UNREAD;
	if (flags & slab_kmalloc_flag())
		return MEM_OWNER_KMALLOC;
	return still_slab_of(pg, s) ? other_object(addr, pg, s, base, vmemmap) : MEM_OWNER_UNREAD;
}

/*
 * The address the last saved-SYN allocation's first run followed (on any CPU), so that its
 * twin's run, right after it on the same CPU, returns without a lookup. A kfree of the address
 * clears it (handle_kfree(), in both runs, before the address can be handed out again), so it
 * never names an earlier object at the same address: the twin returns early only behind the
 * first run of its own event. Another CPU's allocation in between only costs the lookup.
 */
__u64 last_followed;

/* One run (of either twin) for a kmalloc: the first to insert the object takes it. */
static __always_inline void handle_kmalloc(unsigned long call_site, const void *ptr,
					   __u64 bytes_req, bool twin)
{
	struct mem_obj o = { .bytes = bytes_req, .call_site = call_site };
	struct mem_stats *st;
	__u64 k = (__u64)ptr;
	__u32 zero = 0;

	/* the address is in use again: a later kfree of it is no double free */
	forget_freed(k);
	if (!saved_syn_site(call_site))
		return;
	if (twin && *(volatile __u64 *)&last_followed == k)
		return;
	/* the twin's run for this same allocation finds it there */
	if (bpf_map_lookup_elem(&mem_live, &k))
		return;
	st = bpf_map_lookup_elem(&mem_stats, &zero);
	if (!st)
		return;
	if (!attribute(&o))
		__sync_fetch_and_add(&st->unattributed, 1);
	mark_followed(k);
	if (bpf_map_update_elem(&mem_live, &k, &o, BPF_NOEXIST)) {
		if (!bpf_map_lookup_elem(&mem_live, &k))
			__sync_fetch_and_add(&st->untracked, 1);
	} else {
		__sync_fetch_and_add(&st->allocs, 1);
	}
	if (!twin)
		*(volatile __u64 *)&last_followed = k;
}

/* One run (of either twin) for a kfree. */
static __always_inline void handle_kfree(unsigned long call_site, const void *ptr)
{
	struct mem_obj *o, d;
	struct mem_stats *st;
	__u64 k = (__u64)ptr;
	__u32 zero = 0;

	if (!maybe_followed(k))
		return;
	/* the address may be handed out again from now on (last_followed) */
	if (*(volatile __u64 *)&last_followed == k)
		*(volatile __u64 *)&last_followed = 0;
	st = bpf_map_lookup_elem(&mem_stats, &zero);
	if (!st)
		return;
	o = bpf_map_lookup_elem(&mem_live, &k);
	if (o) {
		d = *o;
		d.free_site = call_site;
		d.free_runs = 1;
		/* the run's first copy freed (of a size kmalloc serves from a cache): still its
		 * kmalloc cache's object, in its slab, until kfree() returns */
		if (read_owner && !st->owner_check && d.bytes <= 4096) {
			__u64 v = slab_owner(k);

			/* the first reading kept, whichever CPU made it: a later one never hides
			 * it (an unread one is made again at the next copy freed) */
			if (v)
				__sync_val_compare_and_swap(&st->owner_check, 0, v);
		}
		bpf_map_update_elem(&mem_freed, &k, &d, BPF_ANY);
		/* only the run whose delete succeeds counts the free (the twins may race) */
		if (!bpf_map_delete_elem(&mem_live, &k))
			__sync_fetch_and_add(&st->frees, 1);
		return;
	}
	o = bpf_map_lookup_elem(&mem_freed, &k);
	if (!o)
		return;
	/* the twin's run for the same call makes 2; a third run is a second kfree call (the two
	 * runs of one call are on one CPU, one after the other: no atomic needed) */
	if (++o->free_runs != 3)
		return;
	d = *o;
	d.free2_site = call_site;
	/* another cache owns the address now if it took the page since: the judge's to weigh */
	if (read_owner)
		d.owner2 = slab_owner(k);
	/* the first second kfree at an address stays: a later one is never written over it (a
	 * reuse after a double free must not hide it), and counted unless it is another cache's
	 * object's own (a reuse again, which the entry there says nothing against) */
	if (bpf_map_update_elem(&mem_double, &k, &d, BPF_NOEXIST) && d.owner2 != MEM_OWNER_OTHER)
		__sync_fetch_and_add(&st->double_unrecorded, 1);
	__sync_fetch_and_add(&st->double_frees, 1);
}

SEC("raw_tp/kmalloc")
int BPF_PROG(on_kmalloc, unsigned long call_site, const void *ptr, __u64 bytes_req,
	     __u64 bytes_alloc, unsigned int gfp_flags, int node)
{
	if (ptr)
		handle_kmalloc(call_site, ptr, bytes_req, false);
	return 0;
}

SEC("raw_tp/kmalloc")
int BPF_PROG(on_kmalloc_twin, unsigned long call_site, const void *ptr, __u64 bytes_req,
	     __u64 bytes_alloc, unsigned int gfp_flags, int node)
{
	if (ptr)
		handle_kmalloc(call_site, ptr, bytes_req, true);
	return 0;
}

/* Any cache allocation can reuse a freed saved copy's address: where slab caches merge, a
 * kmalloc cache serves other caches of its size, whose objects come from kmem_cache_alloc()
 * (the twin is attached then); unmerged, a slab page given back to the page allocator and taken
 * by another cache (this program alone, or none where read_owner). */
SEC("raw_tp/kmem_cache_alloc")
int BPF_PROG(on_cache_alloc, unsigned long call_site, const void *ptr)
{
	if (ptr)
		forget_freed((__u64)ptr);
	return 0;
}

SEC("raw_tp/kmem_cache_alloc")
int BPF_PROG(on_cache_alloc_twin, unsigned long call_site, const void *ptr)
{
	if (ptr)
		forget_freed((__u64)ptr);
	return 0;
}

SEC("raw_tp/kfree")
int BPF_PROG(on_kfree, unsigned long call_site, const void *ptr)
{
	if (ptr)
		handle_kfree(call_site, ptr);
	return 0;
}

SEC("raw_tp/kfree")
int BPF_PROG(on_kfree_twin, unsigned long call_site, const void *ptr)
{
	if (ptr)
		handle_kfree(call_site, ptr);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
