/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one definition of the BPF witness's capture record and keys, shared by the BPF programs,
 * the loader and the comparator. Byte order is stated per field.
 */
#ifndef SYNTWIN_CAPTURE_H
#define SYNTWIN_CAPTURE_H

#include "copy_readers.h"

/*
 * Largest header block copied per SYN: MAC 14 (+4 per in-band VLAN tag) + IPv4 60 or IPv6 40 +
 * extension headers + TCP 60. 256 leaves IPv6 SYNs 138 bytes of extension headers. Longer SYNs
 * are still recorded, cut at this size, with CAP_F_TRUNCATED set and CNT_TOO_LONG counted.
 */
#define CAPTURE_MAX 256
#define CAPTURE_MAX_EXTHDRS 8	/* IPv6 extension headers followed before giving up */
#define CAPTURE_MAX_COPIES 8	/* copies of one SYN kept (retransmissions, duplicates); more are
				 * counted (CNT_COPIES_CUT) and flagged (CAP_F_COPIES_CUT) */

#define CAPTURE_PIN_DIR "/sys/fs/bpf/syntwin"
/* the drop program's link, pinned there: the loader pins it, the comparator reads which
 * program it holds (capture_drops_with_reason()) */
#define CAPTURE_LINK_DROPS "link_syn_drops"
#define CAPTURE_LINK_DROPS_TWIN "link_syn_drops_twin"
/* the record of which sk_buff is a copy's own (bpf/copy_skbs.bpf.h): its maps, and the links of
 * the programs that end a record (syn_drops.bpf.c's made_*, each pinned as link_<program>) */
#define COPY_SKB_PINS "copy_skbs", "copy_skb_seen", "link_made_skb_clone",		\
	"link_made_skb_clone_twin", "link_made_skb_copy", "link_made_skb_copy_twin",	\
	"link_made___pskb_copy_fclone", "link_made___pskb_copy_fclone_twin",		\
	"link_made_skb_copy_expand", "link_made_skb_copy_expand_twin", "link_made_skb_morph", \
	"link_made_skb_morph_twin"

/* Bytes of the ring buffer that carries bound records to userspace (syn_events), for a run of
 * @entries flow entries: a record (struct bound_rec, about 1.1 KiB with the ring's header) per
 * entry, rounded up to a power of two (the ring's rule), at least 1 MiB and at most 64 MiB (the
 * consumer drains it as it goes: it holds the sockets established and not yet judged). */
#define CAPTURE_RING_MIN (1u << 20)
#define CAPTURE_RING_MAX (1u << 26)

/* Flow of a SYN (or SYN-ACK) as it arrived: s* is its sender, d* its receiver. */
struct capture_key {
	__u8 family;		/* AF_INET or AF_INET6 */
	__u8 pad[3];
	__u32 seq;		/* the sender's ISN (the packet's sequence number), host order */
	__u16 sport;		/* network order */
	__u16 dport;		/* network order */
	__u8 saddr[16];		/* network order; IPv4 uses the first 4 bytes, rest zero */
	__u8 daddr[16];
};

enum capture_flags {
	CAP_F_TRUNCATED = 1 << 0,	/* headers longer than CAPTURE_MAX: data cut */
	CAP_F_PARSE_ERR = 1 << 1,	/* header lengths point past the packet */
	CAP_F_SYNACK = 1 << 2,		/* a SYN-ACK (active direction), not a SYN */
	CAP_F_RECAPTURED = 1 << 3,	/* replaced an earlier copy of the same SYN (same flow and
					 * ISN: a retransmission), now in syn_copies */
	CAP_F_COOKIE_ACK = 1 << 4,	/* the flow's ACK carried a cookie its listener validated
					 * (bpf_tcp_check_syncookie) with no request socket
					 * (cookie_isn): the witness's per-connection syncookie
					 * proof, for the socket whose own ISN is that cookie */
	CAP_F_COPIES_CUT = 1 << 5,	/* more than CAPTURE_MAX_COPIES copies: some not kept */
	/* The fate of this one copy (per copy, not carried from one copy to the next): */
	CAP_F_DROPPED = 1 << 6,		/* the kernel dropped this copy (kfree_skb, fate_reason) */
	CAP_F_SAVED = 1 << 7,		/* the kernel allocated a saved-SYN object (saved_size
					 * bytes, at a saved-SYN call site) while it processed
					 * this copy (bpf/saved_syn_mem.bpf.c) */
	CAP_F_SAVED_AGAIN = 1 << 8,	/* ... and more than one */
	/* Of the flow, carried from copy to copy: */
	CAP_F_SYNACK_TS = 1 << 9,	/* the answer to this SYN (a SYN-ACK, at the server's
					 * egress) or to this SYN-ACK (the client's first ACK,
					 * at its egress) had a timestamp: synack_tsecr */
	CAP_F_RST = 1 << 10,		/* the SYN's (or SYN-ACK's) sender reset the flow:
					 * an RST with seq ISN + 1 arrived after it */
	CAP_F_NO_SYN = 1 << 11,		/* no SYN in this record (cap_len 0, data holds the
					 * struct capture_key): a passive socket made from a
					 * cookie ACK tc validated when the SYN's capture was
					 * already taken (cookie_acks; a duplicated or late
					 * cookie ACK makes a second child of one SYN) */
	CAP_F_SYNACK_COOKIE = 1 << 12,	/* a SYN-ACK answering this SYN carried a syncookie: the
					 * ACK the client would send to it validates against the
					 * listener, which holds no request socket for the flow
					 * (checked at the server's egress) */
	CAP_F_ANSWERED = 1 << 13,	/* the client's first ACK answering this SYN-ACK went
					 * out (its TSecr, if any, in synack_tsecr): later ACKs
					 * are not the handshake's */
	CAP_F_SYNACK_REQ = 1 << 14,	/* a SYN-ACK answering this SYN left while a request
					 * socket held the flow (checked at the server's egress):
					 * the kernel made a request for it, with a saved copy
					 * of its own (a copy that came after its cookie window) */
	CAP_F_CUT_SAVED = 1 << 15,	/* a copy the witness did not keep (CAP_F_COPIES_CUT)
					 * had a saved-SYN allocation: which copy, and whether
					 * the kernel dropped it, is not known */
};

/* Flags that describe the flow rather than one copy: keep_copy() carries them forward. */
#define CAP_F_FLOW (CAP_F_COPIES_CUT | CAP_F_COOKIE_ACK | CAP_F_SYNACK_TS | CAP_F_RST | \
		    CAP_F_SYNACK_COOKIE | CAP_F_ANSWERED | CAP_F_SYNACK_REQ | CAP_F_CUT_SAVED)

/* An earlier copy of a SYN in syn_copies: the flow key and its arrival number (0 first). */
struct copy_key {
	struct capture_key flow;
	__u32 n;
};

struct capture_rec {
	__u64 ts_ns;		/* bpf_ktime_get_ns() at capture */
	__u32 ifindex;		/* device the SYN arrived on */
	__u16 mac_len;		/* bytes of MAC header in data (0 on L3 devices such as tun) */
	__u16 net_len;		/* IPv4 header incl. options, or IPv6 header incl. extension headers */
	__u16 tcp_len;		/* TCP header incl. options (doff * 4) */
	__u16 cap_len;		/* bytes valid in data: mac_len + net_len + tcp_len, or CAPTURE_MAX */
	__u16 vlan_tci;		/* skb VLAN metadata (offloaded tag), host order; valid if vlan_present */
	__u16 vlan_proto;	/* network order */
	__u8 vlan_present;
	__u8 family;		/* AF_INET or AF_INET6 */
	__u16 flags;		/* enum capture_flags */
	__u8 copies;		/* copies of this SYN the witness saw, this one the last (saturates
				 * at 255); the earlier ones are in syn_copies, up to
				 * CAPTURE_MAX_COPIES - 1 of them */
	__u8 synacks;		/* SYN-ACKs answering this SYN the witness saw (saturates) */
	__u16 drop_reason;	/* the kernel's reason (enum skb_drop_reason) for the first copy
				 * of this SYN it dropped (kfree_skb); valid if drops > 0 */
	__u16 drops;		/* copies of this SYN the kernel dropped */
	__u16 fate_reason;	/* this copy's drop reason, valid with CAP_F_DROPPED; either
				 * reason DROP_REASON_UNKNOWN where the kernel gives none */
	__u32 tag;		/* this copy's identity among its copies: copy_tag() of its IP ID
				 * (IPv4) or flow label (IPv6) and TCP header but the checksum */
	__u32 synack_tsecr;	/* TSecr of the last SYN-ACK answering this SYN, or of the
				 * client's first ACK answering this SYN-ACK (host order), valid
				 * with CAP_F_SYNACK_TS: it echoes the copy that made the
				 * request or established the socket */
	__u32 saved_size;	/* bytes the kernel asked kmalloc for while processing this copy,
				 * valid with CAP_F_SAVED */
	__u32 cookie_isn;	/* the cookie tc validated (the ACK's ack_seq - 1, host order),
				 * valid with CAP_F_COOKIE_ACK: of the flow */
	__u32 local_isn;	/* the bound socket's own ISN (sockops: snd_una - 1 at its
				 * ESTABLISHED callback), 0 until bound: a syncookie child's is
				 * the cookie it was made from, a request's child's is not */
	__u64 cookie;		/* the socket sockops bound the flow to (SO_COOKIE), 0 while
				 * none: of the flow, carried from copy to copy */
	__u64 take_state;	/* enum take_state: meant only for the entry in syn_by_flow
				 * (struct take_slot); whatever it says elsewhere means nothing */
	__u8 data[CAPTURE_MAX];	/* wire bytes from the MAC header to the end of the TCP header */
};

/* A drop the kernel gave no reason for (a kfree_skb without one: before 5.17): no enum
 * skb_drop_reason value, so it names none. */
#define DROP_REASON_UNKNOWN 0xffff

/* One record of the ring: a capture bound to its socket, and what the in-kernel readers
 * returned of the socket's saved copy then (struct syn_reads, copy_readers.h). */
struct bound_rec {
	struct capture_rec rec;
	struct syn_reads reads;
};

/*
 * The consumer's take of a flow entry without an allocation (bpf/take_flow.bpf.c). bpf()'s map
 * commands copy key and value through kvmalloc() on every call, and the memory follower's
 * kmalloc and kfree programs run for each of those copies: eight runs a connection for the
 * consumer's own take. Instead the consumer writes the key into its slot of syn_take (an array
 * it maps), runs take_flow (BPF_PROG_TEST_RUN with no context: nothing copied in, nothing
 * allocated) and reads the entry back from the slot. The slot is the consumer's thread id
 * modulo TAKE_SLOTS, claimed by writing that id into owner.
 *
 * bpf()'s lookup-and-delete is one step under the bucket's lock; take_flow's is a claim, a copy
 * and a delete, kept apart from the one writer that replaces an entry (keep_copy(), a later copy
 * of the SYN) by the entry's take_state, which each sets with a compare-and-swap from 0:
 * TAKE_REPLACING by keep_copy() before it reads the entry it replaces, TAKE_TAKEN by take_flow
 * before it copies. Whichever comes second sees the other's: a take that finds a replacement
 * under way returns TAKE_BUSY (the consumer calls again, and gets the later copy, as bpf()
 * would after it); a later copy that finds the entry taken waits for the delete and makes the
 * key anew, or, where it cannot wait, is parked in syn_late (the entry is gone as of the claim:
 * where bpf()'s take would have left it a new key), and moved into syn_by_flow by the take
 * behind its delete, by itself once the take is done, or by the consumer (capture_unpark()).
 * Every other writer reads a taken entry as gone (flow_entry()). A claim holds only for the
 * entry it was made on: the map preallocates its elements and hands one given back to the next
 * insert at once, so a claim checks, between its lookup and its swap, that the element is still
 * the key's, in the same incarnation (claim_entry() in syn_maps.bpf.h).
 */
#define TAKE_SLOTS 16
#define CAPTURE_TAKE_PROG "prog_take_flow"

enum take_state {
	TAKE_REPLACING = 1,	/* keep_copy() is replacing the entry with a later copy */
	TAKE_TAKEN = 2,		/* take_flow claimed it: gone for every writer */
	TAKE_CLAIMS = 3,
	/* the bits above: the entry's incarnation, a number tc gives each copy it captures, never
	 * two the same: an element of the map given back and handed to another entry between a
	 * lookup and a claim carries another, and the claim's compare-and-swap fails. The copy
	 * keeps it when a later one moves it to syn_copies: it names that copy exactly, where
	 * the tag names every copy of the same bytes (copy_incarnation()) */
	TAKE_INCARNATION_SHIFT = 2,
};

/* The copy @rec's own number (struct take_slot), never 0 for a copy tc captured: in the
 * witness's maps, and in what a take or the ring hands the consumer, who reads it there
 * (catch_up()) and zeroes take_state in what it passes on. */
#define copy_incarnation(rec) ((rec)->take_state >> TAKE_INCARNATION_SHIFT)

struct take_slot {
	__u32 owner;		/* thread id of the consumer using the slot, 0 while free */
	__u32 pad;
	struct capture_key key;	/* in: the flow to take */
	struct capture_rec rec;	/* out: its entry */
};

/* take_flow's return value. */
enum take_result {
	TAKE_DONE = 1,		/* copied into rec and removed from syn_by_flow */
	TAKE_NONE,		/* no entry for the key */
	TAKE_NOT_OWNER,		/* the slot is not this thread's */
	TAKE_BUSY,		/* a later copy is replacing the entry: call again */
};

/* The size of include/linux/tcp.h's struct saved_syn before its data (three __u32 lengths, the
 * same in 6.1 and 6.12): a saved copy of N header bytes is one kmalloc of this + N. */
#define SAVED_SYN_HDR 12

/* The packet the tc program saw last on this CPU: a saved-SYN allocation made while the kernel
 * processes it (in the same softirq, on the same CPU) belongs to it. */
struct cur_copy {
	struct capture_key flow;
	__u32 tag;
	__u32 valid;
	__u64 incarnation;	/* the copy's copy_incarnation() */
};

/* What owns an address, as the memory follower reads it (slab_owner()): a kmalloc cache's slab,
 * another cache's, a page no slab holds. */
enum mem_owner {
	MEM_OWNER_UNREAD,
	MEM_OWNER_KMALLOC,
	MEM_OWNER_OTHER,
	MEM_OWNER_NO_SLAB,
	MEM_OWNER_NOT_OBJECT,	/* another cache's slab, but no object of it starts there */
};

/* One saved-SYN object the memory follower follows (bpf/saved_syn_mem.bpf.c), by address. */
struct mem_obj {
	__u64 bytes;		/* requested size */
	__u64 call_site;	/* kmalloc's caller */
	__u64 free_site;	/* the first kfree's caller (mem_freed, mem_double) */
	__u64 free2_site;	/* the second kfree's caller (mem_double) */
	__u64 owner2;		/* read_owner: what owned the address at the second kfree
				 * (enum mem_owner), 0 unread */
	struct capture_key flow;	/* the packet being processed; family 0 if none was known */
	__u32 tag;		/* ... and which copy of it */
	__u32 free_runs;	/* follower runs that saw a kfree of it: 2 per call (the twins),
				 * 1 when the kernel skipped one; 3 or more is a second call */
};

struct mem_stats {
	__u64 allocs;		/* saved-SYN objects allocated */
	__u64 frees;		/* ... of them freed */
	__u64 untracked;	/* allocated, but the live map was full: not followed */
	__u64 double_frees;	/* kfree of an object already freed, with no allocation of its
				 * address seen since (mem_double; confirmed in userspace) */
	__u64 unattributed;	/* allocated with no captured packet to tie it to */
	__u64 ctx_overflow;	/* packets TCP took while its per-CPU stack of packets (tcp_ctx)
				 * was full: an allocation then is tied by tc's cur_copy */
	__u64 outside_ctx;	/* saved-SYN allocations made outside tcp_rcv_state_process()
				 * (no packet on tcp_ctx): tied by tc's cur_copy, never on a
				 * correct kernel */
	__u64 double_unrecorded;	/* second kfrees not written to mem_double: the address
					 * had one there, or the map was full */
	__u64 cache_progs;	/* kmem_cache_alloc's programs the loader attached (0-2), set
				 * before the programs run; 0: read_owner */
	__u64 owner_check;	/* read_owner: what owned the run's first saved copy freed
				 * (enum mem_owner), 0 until one was; MEM_OWNER_KMALLOC if the
				 * layout the loader proved is the kernel's */
};

/* Cookie ACKs tc validated for a flow and ISN with no capture left (cookie_acks): how many, and
 * when the last came. sockops takes one per passive socket it finds no capture for. */
struct cookie_ack {
	__u64 ts_ns;
	__u32 acks;
	__u32 cookie_isn;	/* the last cookie validated (ack_seq - 1, host order) */
};

/* Per-device facts the loader supplies: how long the link-layer header is (ARPHRD-based). */
struct dev_info {
	__u32 mac_len;		/* 14 for Ethernet/loopback, 0 for raw-IP (tun) */
};

/* A BPF-side error: where, and what the helper returned (selftests' RET_CG_ERR idea). */
struct bpf_error {
	__u32 line;
	__s32 err;
};

enum capture_counter {
	CNT_SYN_SEEN,		/* TCP SYN without ACK reached the tc program */
	CNT_CAPTURED,		/* ... and was stored in syn_by_flow */
	CNT_TOO_LONG,		/* headers exceeded CAPTURE_MAX (stored truncated) */
	CNT_PARSE_ERR,		/* lengths inconsistent with the packet (stored flagged) */
	CNT_FRAGMENT,		/* IPv4 fragment or IPv6 fragment header: not a capturable SYN */
	CNT_NO_DEV_INFO,	/* device not registered by the loader */
	CNT_INSERT_FAIL,	/* map update failed */
	CNT_BOUND,		/* sockops bound a capture to a socket cookie and sent it to the
				 * ring (a SYN whose syncookie ACK raced its FIN can be bound to
				 * two children; one is never accepted) */
	CNT_BIND_MISS,		/* sockops found no capture for an established passive socket */
	CNT_BPF_ERRORS,		/* unexpected helper failures (details in the errors map) */
	CNT_SYNACK_SEEN,	/* TCP SYN-ACK reached the tc program (stored like a SYN) */
	CNT_ACTIVE_BOUND,	/* sockops bound a SYN-ACK capture to an active socket */
	CNT_ACTIVE_BIND_MISS,	/* an active socket was established with no SYN-ACK capture (its
				 * device has no tc program: not an error by itself) */
	CNT_RECAPTURED,		/* a capture replaced one with the same key (a retransmitted SYN) */
	CNT_COOKIE_PROVEN,	/* an ACK validated as a syncookie for a captured SYN (CAP_F_COOKIE_ACK) */
	CNT_SYN_DROPPED,	/* the kernel dropped a copy of a captured SYN (kfree_skb) */
	CNT_COPIES_CUT,		/* a copy beyond CAPTURE_MAX_COPIES, not kept */
	CNT_FATE_UNMATCHED,	/* a dropped copy no longer kept (cut, or taken) */
	CNT_SYNACK_MATCHED,	/* a SYN-ACK answering a captured SYN (its TSecr noted) */
	CNT_RST_MATCHED,	/* an RST of a captured SYN's flow (CAP_F_RST) */
	CNT_RING_DROPS,		/* a bound record the ring buffer had no room for: lost */
	CNT_COOKIE_LATE,	/* an ACK validated as a syncookie for a flow whose capture was
				 * already taken (noted in cookie_acks) */
	CNT_COOKIE_CHILD,	/* a passive socket with no capture, bound to such an ACK and
				 * sent to the ring as a CAP_F_NO_SYN record */
	CNT_SYNACK_COOKIE,	/* a SYN-ACK answering a captured SYN carried a syncookie */
	CNT_SYNACK_RST,		/* an RST from a captured SYN-ACK's sender reached its client
				 * (CAP_F_RST on the SYN-ACK: the server reset the connection) */
	CNT_SYNACK_ANSWERED,	/* a client's first ACK answering a captured SYN-ACK went out
				 * (CAP_F_ANSWERED; its TSecr noted) */
	CNT_SYNACK_REQ,		/* a SYN-ACK answering a captured SYN left a request socket
				 * (CAP_F_SYNACK_REQ) */
	CNT_RECAPTURE_NEW,	/* a copy counted in recaptured whose held entry the consumer took
				 * meanwhile: it made the key anew (keep_copy()) */
	CNT_TAKE_PARKED,	/* a copy counted in recaptured whose held entry the consumer was
				 * taking (TAKE_TAKEN): kept in syn_late, a key of its own */
	CNT_DROP_ELSEWHERE,	/* the kernel dropped a packet with a captured flow's headers that
				 * never came in through a device whose tc ingress the witness
				 * holds (a copy lost on the sender's side, say): not the flow's */
	CNT_DROP_NOT_COPY,	/* ... that came in through one, but is not the sk_buff of a copy
				 * tc counted (a clone of one, say: copy_skbs.bpf.h): not the
				 * flow's */
	CNT_COPY_SHARED_CLONE,	/* a copy cloned while shared (skb_share_check()'s clone, say):
				 * which of the two IP went on with is not known, and the run
				 * fails (copy_skbs.bpf.h) */
	CNT_MAX
};

#define CAPTURE_COUNTER_NAMES                                                        \
	"syn_seen", "captured", "too_long", "parse_error", "fragment", "no_dev_info", \
	"insert_fail", "bound", "bind_miss", "bpf_errors", "synack_seen", \
	"active_bound", "active_bind_miss", "recaptured", "cookie_proven", \
	"syn_dropped", "copies_cut", "fate_unmatched", "synack_matched", "rst_matched", \
	"ring_drops", "cookie_late", "cookie_child", "synack_cookie", "synack_rst", \
	"synack_answered", "synack_request", "recapture_new_key", "take_parked", \
	"drop_elsewhere", "drop_not_a_copy", "copy_cloned_shared"

#endif
