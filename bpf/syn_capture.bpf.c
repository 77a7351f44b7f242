// SPDX-License-Identifier: GPL-2.0
/*
 * tc clsact ingress: copy the header bytes (MAC .. end of TCP header) of every TCP SYN, and of
 * every SYN-ACK (the active direction, flagged CAP_F_SYNACK), into syn_by_flow, keyed by flow
 * and the sender's ISN. Independent of the kernel's saved SYN: this runs
 * before IP receive processing. The ACK of a captured flow is checked for a valid syncookie
 * (prove_syncookie()). The packet always passes on unchanged.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/pkt_cls.h>
#include <linux/tcp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>
#include <stdbool.h>

#include "copy_skbs.bpf.h"
#include "syn_maps.bpf.h"

#define EEXIST 17
#define ENOENT 2

#define AF_INET 2
#define AF_INET6 10
#define ETH_P_8021Q_BE bpf_htons(0x8100)
#define ETH_P_8021AD_BE bpf_htons(0x88A8)

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, struct dev_info);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} dev_info SEC(".maps");

/* The incarnations given so far (struct take_slot in capture.h). */
__u64 incarnations;

/* The record is larger than is wise on the 512-byte BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct capture_rec);
} scratch SEC(".maps");

#define TC_ERR(err) record_error(0, __LINE__, (err))

/* The IP header of the packet in hand, as the syncookie helper takes it. */
union ip_hdr {
	struct iphdr v4;
	struct ipv6hdr v6;
};

/* The socket the flow of @ip (its addresses, swapped if @reverse) with ports @sport and @dport
 * reaches in the packet's netns: a listener, a request, a connection; NULL if none. The
 * caller releases it. */
static __always_inline struct bpf_sock *flow_sock(struct __sk_buff *skb, __u8 family,
						  const union ip_hdr *ip, int reverse,
						  __be16 sport, __be16 dport)
{
	struct bpf_sock_tuple t = {};
	__u32 tlen;

	if (family == AF_INET) {
		t.ipv4.saddr = reverse ? ip->v4.daddr : ip->v4.saddr;
		t.ipv4.daddr = reverse ? ip->v4.saddr : ip->v4.daddr;
		t.ipv4.sport = sport;
		t.ipv4.dport = dport;
		tlen = sizeof(t.ipv4);
	} else {
		__builtin_memcpy(t.ipv6.saddr, reverse ? &ip->v6.daddr : &ip->v6.saddr, 16);
		__builtin_memcpy(t.ipv6.daddr, reverse ? &ip->v6.saddr : &ip->v6.daddr, 16);
		t.ipv6.sport = sport;
		t.ipv6.dport = dport;
		tlen = sizeof(t.ipv6);
	}
	return bpf_skc_lookup_tcp(skb, &t, tlen, BPF_F_CURRENT_NETNS, 0);
}

/* A validated cookie ACK for @key whose capture is gone (taken with its first connection):
 * noted for sockops, which binds the child it makes (bind_cookie_child()). */
static __always_inline void note_late_cookie(struct capture_key *key, __u32 cookie_isn)
{
	struct cookie_ack *a = bpf_map_lookup_elem(&cookie_acks, key);
	struct cookie_ack n = { .ts_ns = bpf_ktime_get_ns(), .acks = 1, .cookie_isn = cookie_isn };

	count(CNT_COOKIE_LATE);
	if (!a && bpf_map_update_elem(&cookie_acks, key, &n, BPF_NOEXIST) == 0)
		return;
	if (!a)
		a = bpf_map_lookup_elem(&cookie_acks, key); /* another CPU's insert won */
	if (!a)
		return;
	a->ts_ns = n.ts_ns;
	a->cookie_isn = cookie_isn;
	__sync_fetch_and_add(&a->acks, 1);
}

/*
 * The witness's own syncookie proof, per connection: @th is an ACK (no SYN, no RST) of a flow
 * (@key, with the SYN's ISN = this ACK's seq - 1). If no request or connection socket holds the
 * flow and the listener it reaches validates the ACK's cookie (bpf_tcp_check_syncookie(): the
 * kernel's cookie arithmetic, not the saved-SYN code under test), the connection about to be
 * created is a syncookie child, which keeps no saved SYN. The proof is a flag on the SYN's
 * capture with the cookie validated (cookie_isn), which sockops binds to the child: it holds for
 * the socket whose own ISN is that cookie (a request's child has its request's ISN, whatever
 * ACKs came before it). When the capture was already taken
 * (a duplicated or late copy of the ACK, after the first child was judged), the ACK is noted in
 * cookie_acks instead: the child it makes is the SYN's second.
 *
 * An ACK validates only a cookie its listener sent. Every SYN-ACK the server sent for a held
 * capture went through this device's egress, where prove_synack_cookie() checked it with the
 * same helper: a capture with SYN-ACKs noted (synacks) and none a cookie
 * (no CAP_F_SYNACK_COOKIE) has no cookie for this ACK to carry, and the socket lookup is
 * skipped (a handshake's own ACK, every connection, is such a one).
 */
static __always_inline void prove_syncookie(struct __sk_buff *skb, struct capture_key *key,
					    union ip_hdr *ip, __u32 ip_len, struct tcphdr *th)
{
	struct bpf_sock *sk;
	struct capture_rec *rec;
	long err;

	key->seq = bpf_ntohl(th->seq) - 1;
	rec = flow_entry(key);
	if (rec && (rec->flags & (CAP_F_SYNACK | CAP_F_COOKIE_ACK)))
		return;
	if (rec && rec->synacks && !(rec->flags & CAP_F_SYNACK_COOKIE))
		return;
	sk = flow_sock(skb, key->family, ip, 0, th->source, th->dest);
	if (!sk)
		return;
	/* A request or established socket for the flow means no cookie is involved. */
	if (sk->state == BPF_TCP_LISTEN) {
		__u32 cookie_isn = bpf_ntohl(th->ack_seq) - 1;

		err = bpf_tcp_check_syncookie(sk, ip, ip_len, th, sizeof(*th));
		if (!err && rec) {
			rec->flags |= CAP_F_COOKIE_ACK;
			rec->cookie_isn = cookie_isn;
			count(CNT_COOKIE_PROVEN);
		} else if (!err) {
			note_late_cookie(key, cookie_isn);
		}
	}
	bpf_sk_release(sk);
}

#define EBUSY 16
#define EAGAIN 11
/* keep_copy_once() found the held entry claimed by the consumer's take */
#define TAKEN_MEANWHILE 1000
/* lookups keep_copy() makes while a claim on the held entry ends (another copy's replacement,
 * the consumer's take: a few instructions on another CPU) */
#define CLAIM_WAIT 128

/*
 * A later copy @rec of a SYN whose entry the consumer's take claimed and did not delete in time
 * (a softirq's copy on the taker's own CPU, which runs while the take waits): gone as of the
 * claim, so the copy makes a key of its own (as after bpf()'s take: keep_copy_once()'s -ENOENT),
 * in syn_late until the take moves it into syn_by_flow behind its delete, or it moves itself if
 * the take is done by then (else the consumer, capture_unpark()). A second such copy in the same
 * take is an error (-EEXIST), never written over the first.
 */
static __always_inline long park(struct capture_key *key, struct capture_rec *rec)
{
	long err;

	rec->copies = 2;
	rec->flags |= CAP_F_RECAPTURED;
	err = bpf_map_update_elem(&syn_late, key, rec, BPF_NOEXIST);
	if (err)
		return err;
	count(CNT_TAKE_PARKED);
	/* the take done meanwhile (its move of parked copies behind its delete before this one
	 * was there): the key is free, and the copy makes it now */
	unpark(key);
	return 0;
}

/* What the flow knows, from @old (the entry @rec replaces) to @rec; @old itself into syn_copies
 * under its arrival number. */
static __always_inline void carry_from(struct capture_key *key, const struct capture_rec *old,
				       struct capture_rec *rec)
{
	struct copy_key ck = {};
	__u8 n = old->copies;
	long err;

	rec->copies = n < 255 ? n + 1 : 255;
	/* what is known of the flow: its flags, SYN-ACKs, and what the kernel did with the earlier
	 * copies */
	rec->flags |= old->flags & CAP_F_FLOW;
	rec->synacks = old->synacks;
	rec->synack_tsecr = old->synack_tsecr;
	rec->drops = old->drops;
	rec->drop_reason = old->drop_reason;
	rec->cookie = old->cookie;
	rec->cookie_isn = old->cookie_isn;
	rec->local_isn = old->local_isn;
	if (n < CAPTURE_MAX_COPIES) {
		ck.flow = *key;
		ck.n = n - 1;
		err = bpf_map_update_elem(&syn_copies, &ck, old, BPF_ANY);
		if (err)
			TC_ERR(err);
	} else {
		/* @old is not kept: the flow keeps that it had an allocation (its fate is per
		 * copy, and goes with it) */
		rec->flags |= CAP_F_COPIES_CUT | (old->flags & CAP_F_SAVED ? CAP_F_CUT_SAVED : 0);
		count(CNT_COPIES_CUT);
	}
}

/*
 * Another copy of the SYN already held under @key: the held one, claimed (TAKE_REPLACING),
 * moves to syn_copies under its arrival number and @rec (the new copy) takes its place,
 * counting the copies. Returns the map update's error; -EAGAIN if the entry changed under the
 * claim; -EBUSY if another copy is replacing it, TAKEN_MEANWHILE if the consumer's take claimed
 * it.
 */
static __always_inline long keep_copy_once(struct capture_key *key, struct capture_rec *rec)
{
	struct capture_rec *old = bpf_map_lookup_elem(&syn_by_flow, key);
	__u64 was = 0;
	long err;

	rec->copies = 2;
	if (old) {
		int held = claim_entry(key, old, TAKE_REPLACING, &was);

		if (held < 0)
			return -EAGAIN;
		if (held)
			return held == TAKE_TAKEN ? TAKEN_MEANWHILE : -EBUSY;
		carry_from(key, old, rec);
	}
	rec->flags |= CAP_F_RECAPTURED;
	/* In place of the held entry, claimed: still there unless bpf()'s take (which no claim
	 * holds off: capture_take_flow()) or the LRU took it since. Then this copy makes the key
	 * anew: counted apart, so that capture_evictions() does not count it as an entry in place
	 * of another (it would be one short, which hides an eviction); another copy making the key
	 * meanwhile is not written over (BPF_NOEXIST): keep_copy() keeps this one behind it. */
	err = old && bpf_map_lookup_elem(&syn_by_flow, key) == old ?
		bpf_map_update_elem(&syn_by_flow, key, rec, BPF_EXIST) : -ENOENT;
	if (old && err)
		release_entry(old, was, TAKE_REPLACING);
	if ((int)err == -ENOENT) {
		err = bpf_map_update_elem(&syn_by_flow, key, rec, BPF_NOEXIST);
		if (!err)
			count(CNT_RECAPTURE_NEW);
	}
	return err;
}

/* The claim on @key's entry ended (after a bounded wait): the entry unclaimed, or gone. */
static __always_inline bool claim_ended(struct capture_key *key)
{
	struct capture_rec *rec;
	int i;

	for (i = 0; i < CLAIM_WAIT; i++) {
		rec = bpf_map_lookup_elem(&syn_by_flow, key);
		if (!rec || !(*(volatile __u64 *)&rec->take_state & TAKE_CLAIMS))
			return true;
	}
	return false;
}

/* @rec as the copy came, with its own flags @own: nothing of the flow's (what keep_copy()
 * carries from a held entry) in it. */
static __always_inline void fresh(struct capture_rec *rec, __u16 own)
{
	rec->flags = own;
	rec->synacks = 0;
	rec->synack_tsecr = 0;
	rec->drops = 0;
	rec->drop_reason = 0;
	rec->cookie = 0;
	rec->cookie_isn = 0;
	rec->local_isn = 0;
}

/* One keep_copy_once() try, the copy as it came (fresh()) first: true if another is
 * worth making (the entry changed under it, or another copy made the key between its two
 * updates, or a claim on the held entry ended), *@err what it returned. */
static __always_inline bool keep_try(struct capture_key *key, struct capture_rec *rec, __u16 own,
				     long *err)
{
	fresh(rec, own);
	*err = keep_copy_once(key, rec);
	if ((int)*err == -EAGAIN || (int)*err == -EEXIST)
		return true;
	if ((int)*err != -EBUSY && *err != TAKEN_MEANWHILE)
		return false;
	return claim_ended(key);
}

/*
 * keep_copy_once(), again (three tries in all) where the entry changed under it, where another
 * copy made the key between its two updates (that one is the held entry now), or where a claim
 * on the held entry ended (another copy's replacement: its copy is the held entry now; the
 * consumer's take: the entry is gone, and this copy makes the key anew). A take that does not
 * end (the one this softirq interrupted, on its own CPU) leaves the copy parked; a replacement
 * that does not end, an error (-EBUSY: two copies of one SYN on two CPUs at once, and the other
 * stopped). Written out, not a loop: the verifier of 6.1 takes that loop's fall-through for a
 * back-edge.
 */
static __always_inline long keep_copy(struct capture_key *key, struct capture_rec *rec)
{
	__u16 own = rec->flags; /* the copy's own, before a try carried the flow's */
	long err;

	if (keep_try(key, rec, own, &err) && keep_try(key, rec, own, &err))
		keep_try(key, rec, own, &err);
	if (err != TAKEN_MEANWHILE)
		return err;
	fresh(rec, own);
	return park(key, rec);
}

/* The TCP header of the packet in @rec (at @tcp_off) into @buf, for copy_tag() and options;
 * indexes masked to the record (a truncated capture gives a tag nothing else matches). */
static __always_inline void tcp_bytes(const struct capture_rec *rec, __u32 tcp_off, __u8 *buf)
{
	int i;

	for (i = 0; i < 60; i++)
		buf[i] = rec->data[(tcp_off + i) & (CAPTURE_MAX - 1)];
}

/* The TSecr of the timestamp option in TCP header @t (72 bytes buffered, 60 at most valid);
 * 0 if none. Walks the options at fixed positions (the loop counter bounds every index). */
static __always_inline int tsecr_of(const __u8 *t, __u32 *tsecr)
{
	__u32 len = (t[12] >> 4) * 4, next = 20;
	int i;

	for (i = 20; i < 60; i++) {
		if (i != next)
			continue;
		if (i + 1 >= len || t[i] == 0)
			return 0;
		if (t[i] == 1) {
			next = i + 1;
			continue;
		}
		if (t[i + 1] < 2)
			return 0;
		if (t[i] == 8 && t[i + 1] == 10 && i + 10 <= len) {
			*tsecr = (__u32)t[i + 6] << 24 | (__u32)t[i + 7] << 16 |
				 (__u32)t[i + 8] << 8 | t[i + 9];
			return 1;
		}
		next = i + t[i + 1];
	}
	return 0;
}

/*
 * A SYN-ACK (@t, its TCP header) answering a SYN we captured: the SYN's flow is this one
 * reversed, its ISN this ACK number - 1. Notes on the SYN's record how many SYN-ACKs answered
 * it and the TSecr of the last: the request's ts_recent, i.e. the TSval of the copy of the SYN
 * that created the request (tcp_check_req() does not update it for a retransmitted SYN).
 */
/*
 * Did @th, a SYN-ACK the server sends for the SYN @syn, carry a syncookie? Only a listener with
 * no request socket for the flow answers with one: the ACK the client would send (seq the SYN's
 * ISN + 1, ack this ISN + 1) is built here and checked by bpf_tcp_check_syncookie() (the
 * kernel's cookie arithmetic) against the socket the flow reaches. The proof that a SYN whose
 * ACK never came kept nothing: flagged CAP_F_SYNACK_COOKIE on its capture. A SYN-ACK that
 * leaves while a request socket holds the flow is that request's: CAP_F_SYNACK_REQ (a copy of a
 * cookie-answered SYN that came after the cookie window made a request, and saved a copy, of
 * its own).
 */
static __always_inline void prove_synack_cookie(struct __sk_buff *skb, const struct capture_key *syn,
						const union ip_hdr *ip, const struct tcphdr *th,
						struct capture_rec *rec)
{
	union ip_hdr aip = {};
	struct tcphdr ack = {};
	struct bpf_sock *sk;
	__u32 ip_len;

	if (syn->family == AF_INET) {
		aip.v4.version = 4;
		aip.v4.ihl = 5;
		aip.v4.saddr = ip->v4.daddr;
		aip.v4.daddr = ip->v4.saddr;
		ip_len = sizeof(aip.v4);
	} else {
		aip.v6.version = 6;
		aip.v6.saddr = ip->v6.daddr;
		aip.v6.daddr = ip->v6.saddr;
		ip_len = sizeof(aip.v6);
	}
	sk = flow_sock(skb, syn->family, ip, 1, th->dest, th->source);
	if (!sk)
		return;
	if (sk->state == BPF_TCP_NEW_SYN_RECV && !(rec->flags & CAP_F_SYNACK_REQ)) {
		rec->flags |= CAP_F_SYNACK_REQ;
		count(CNT_SYNACK_REQ);
	}
	if (sk->state == BPF_TCP_LISTEN && !(rec->flags & CAP_F_SYNACK_COOKIE)) {
		ack.source = th->dest;
		ack.dest = th->source;
		ack.seq = bpf_htonl(syn->seq + 1);
		ack.ack_seq = bpf_htonl(bpf_ntohl(th->seq) + 1);
		ack.doff = 5;
		ack.ack = 1;
		if (!bpf_tcp_check_syncookie(sk, &aip, ip_len, &ack, sizeof(ack))) {
			rec->flags |= CAP_F_SYNACK_COOKIE;
			count(CNT_SYNACK_COOKIE);
		}
	}
	bpf_sk_release(sk);
}

/* The capture key of the segment that segment (@k, TCP header @t) acknowledges: the reversed
 * flow at its ack_seq - 1 (the SYN's or SYN-ACK's ISN). */
static __always_inline void answered_key(const struct capture_key *k, const __u8 *t,
					 struct capture_key *out)
{
	__builtin_memset(out, 0, sizeof(*out));
	out->family = k->family;
	out->sport = k->dport;
	out->dport = k->sport;
	__builtin_memcpy(out->saddr, k->daddr, 16);
	__builtin_memcpy(out->daddr, k->saddr, 16);
	out->seq = ((__u32)t[8] << 24 | (__u32)t[9] << 16 | (__u32)t[10] << 8 | t[11]) - 1;
}

static __always_inline void note_synack(struct __sk_buff *skb, const struct capture_key *k,
					const union ip_hdr *ip, const struct tcphdr *th,
					const __u8 *t)
{
	struct capture_key syn;
	struct capture_rec *rec;
	__u32 tsecr;

	answered_key(k, t, &syn);
	rec = flow_entry(&syn);
	if (!rec || (rec->flags & CAP_F_SYNACK))
		return;
	if (rec->synacks < 255)
		rec->synacks++;
	if (tsecr_of(t, &tsecr)) {
		rec->synack_tsecr = tsecr;
		rec->flags |= CAP_F_SYNACK_TS;
	}
	count(CNT_SYNACK_MATCHED);
	if ((rec->flags & (CAP_F_SYNACK_COOKIE | CAP_F_SYNACK_REQ)) !=
	    (CAP_F_SYNACK_COOKIE | CAP_F_SYNACK_REQ))
		prove_synack_cookie(skb, &syn, ip, th, rec);
}

/*
 * The client's first ACK after a SYN-ACK it captured (the active direction): its TSecr echoes
 * the TSval of the SYN-ACK copy that established the socket (tcp_rcv_synsent_state_process()
 * keeps that copy's TSval as ts_recent, and a later duplicate outside the window does not
 * change it). Only the first ACK: that is the handshake's. @k is the ACK's flow, @t its TCP
 * header; the SYN-ACK's record is the reversed flow at the ACK's ack_seq - 1.
 */
static __always_inline void note_synack_answer(const struct capture_key *k, const __u8 *t)
{
	struct capture_key sa;
	struct capture_rec *rec;
	__u32 tsecr;

	answered_key(k, t, &sa);
	rec = flow_entry(&sa);
	if (!rec || !(rec->flags & CAP_F_SYNACK) || (rec->flags & CAP_F_ANSWERED))
		return;
	rec->flags |= CAP_F_ANSWERED;
	if (tsecr_of(t, &tsecr)) {
		rec->synack_tsecr = tsecr;
		rec->flags |= CAP_F_SYNACK_TS;
	}
	count(CNT_SYNACK_ANSWERED);
}

/*
 * An RST from a captured SYN's sender (seq = its ISN + 1): the request is gone. From a captured
 * SYN-ACK's sender (a server that had sent nothing after its SYN-ACK): the connection the client
 * established was reset, the wire's evidence for the ECONNRESET its socket reports.
 */
static __always_inline void note_rst(struct capture_key *key, const struct tcphdr *th)
{
	struct capture_rec *rec;

	key->seq = bpf_ntohl(th->seq) - 1;
	rec = flow_entry(key);
	if (!rec || (rec->flags & CAP_F_RST))
		return;
	rec->flags |= CAP_F_RST;
	count(rec->flags & CAP_F_SYNACK ? CNT_SYNACK_RST : CNT_RST_MATCHED);
}

/*
 * The link, network and TCP headers of @skb on a device described by @dev: the flow into @key
 * (seq unset), the IP header into @iph, the header offsets, the fixed TCP header into @th.
 * Returns 0 for a TCP segment (not a fragment), -1 for anything else.
 */
static __always_inline int parse_headers(struct __sk_buff *skb, const struct dev_info *dev,
					 struct capture_key *key, union ip_hdr *iph,
					 __u32 *net_off, __u32 *tcp_off, struct tcphdr *th)
{
	__u32 off;
	__be16 proto;

	off = dev->mac_len ? 14 : 0;
	proto = skb->protocol;
	if (dev->mac_len) {
		__be16 et;

		if (bpf_skb_load_bytes(skb, 12, &et, 2))
			return -1;
		/* An in-band tag (offloaded ones live in skb metadata, not in the bytes). */
		if (et == ETH_P_8021Q_BE || et == ETH_P_8021AD_BE) {
			if (bpf_skb_load_bytes(skb, 16, &et, 2))
				return -1;
			off = 18;
		}
		proto = et;
	}
	*net_off = off;

	if (proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = &iph->v4;

		if (bpf_skb_load_bytes(skb, *net_off, ip, sizeof(*ip)) || ip->protocol != IPPROTO_TCP)
			return -1;
		if (ip->ihl < 5)
			return -1;
		if (ip->frag_off & bpf_htons(0x3fff)) {
			count(CNT_FRAGMENT);
			return -1;
		}
		*tcp_off = *net_off + ip->ihl * 4;
		key->family = AF_INET;
		__builtin_memcpy(key->saddr, &ip->saddr, 4);
		__builtin_memcpy(key->daddr, &ip->daddr, 4);
	} else if (proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = &iph->v6;
		__u8 nexthdr;
		int i;

		if (bpf_skb_load_bytes(skb, *net_off, ip6, sizeof(*ip6)))
			return -1;
		nexthdr = ip6->nexthdr;
		*tcp_off = *net_off + sizeof(*ip6);
		for (i = 0; i < CAPTURE_MAX_EXTHDRS; i++) {
			__u8 h[2];

			if (nexthdr == IPPROTO_TCP)
				break;
			if (nexthdr == IPPROTO_FRAGMENT) {
				count(CNT_FRAGMENT);
				return -1;
			}
			if (nexthdr != IPPROTO_HOPOPTS && nexthdr != IPPROTO_ROUTING &&
			    nexthdr != IPPROTO_DSTOPTS && nexthdr != IPPROTO_AH)
				return -1;
			if (bpf_skb_load_bytes(skb, *tcp_off, h, 2))
				return -1;
			/* AH counts 4-byte units minus 2; the others 8-byte units minus 1. */
			*tcp_off += nexthdr == IPPROTO_AH ? (h[1] + 2) * 4 : (h[1] + 1) * 8;
			nexthdr = h[0];
		}
		if (nexthdr != IPPROTO_TCP)
			return -1;
		key->family = AF_INET6;
		__builtin_memcpy(key->saddr, &ip6->saddr, 16);
		__builtin_memcpy(key->daddr, &ip6->daddr, 16);
	} else {
		return -1;
	}

	if (bpf_skb_load_bytes(skb, *tcp_off, th, sizeof(*th)))
		return -1;
	key->sport = th->source;
	key->dport = th->dest;
	return 0;
}

/*
 * The copy in @rec, from @skb (its headers parsed: @key's family, @iph, the network header at
 * @net_off and TCP's at @tcp_off, @th): lengths, VLAN metadata, flags, the bytes, the tag and
 * a new incarnation. False where the bytes cannot be loaded.
 */
static __always_inline bool fill_copy(struct __sk_buff *skb, struct capture_rec *rec,
				      const struct capture_key *key, const union ip_hdr *iph,
				      __u32 net_off, __u32 tcp_off, const struct tcphdr *th)
{
	__u32 len = tcp_off + th->doff * 4;
	__u8 tbuf[60];
	__u64 n;
	long err;

	rec->ts_ns = bpf_ktime_get_ns();
	rec->ifindex = skb->ifindex;
	rec->mac_len = net_off;
	rec->net_len = tcp_off - net_off;
	rec->tcp_len = th->doff * 4;
	rec->vlan_present = skb->vlan_present;
	rec->vlan_tci = skb->vlan_tci;
	rec->vlan_proto = skb->vlan_proto;
	rec->family = key->family;
	rec->flags = th->ack ? CAP_F_SYNACK : 0;
	if (th->doff < 5 || len > skb->len) {
		/* The kernel will drop this SYN; keep what there is, flagged. */
		rec->flags |= CAP_F_PARSE_ERR;
		count(CNT_PARSE_ERR);
		len = tcp_off + sizeof(*th);
	}
	if (len > CAPTURE_MAX) {
		rec->flags |= CAP_F_TRUNCATED;
		count(CNT_TOO_LONG);
		len = CAPTURE_MAX;
	}
	rec->cap_len = len;
	/* The verifier must see the bound on the very register passed to the helper: a 64-bit copy
	 * behind a barrier keeps clang from checking one copy and passing another. */
	n = len;
	asm volatile("" : "+r"(n));
	if (n < 1 || n > CAPTURE_MAX)
		return false;
	err = bpf_skb_load_bytes(skb, 0, rec->data, n);
	if (err) {
		TC_ERR(err);
		return false;
	}
	rec->copies = 1;
	rec->fate_reason = 0;
	rec->saved_size = 0;
	fresh(rec, rec->flags);
	/* its incarnation: never two the same (claim_entry(), copy_incarnation()) */
	rec->take_state = (__sync_fetch_and_add(&incarnations, 1) + 1) << TAKE_INCARNATION_SHIFT;
	tcp_bytes(rec, tcp_off, tbuf);
	rec->tag = tag_tcp(tag_id(TAG_SEED, key->family == AF_INET6 ? ipv6_flow_label(&iph->v6) :
							      bpf_ntohs(iph->v4.id)), tbuf);
	return true;
}

/*
 * Copy @rec of flow @key kept: a new key, or another copy of a SYN already held (keep_copy()),
 * counted apart so that userspace can tell how many entries the LRU map evicted
 * (capture_evictions()); its sk_buff's address @addr recorded as the copy's own, and cur_copy
 * pointed at it. True if the address was recorded.
 */
static __always_inline bool keep_syn(__u64 addr, struct capture_key *key, struct capture_rec *rec)
{
	struct cur_copy *cur;
	__u32 zero = 0;
	long err;

	err = bpf_map_update_elem(&syn_by_flow, key, rec, BPF_NOEXIST);
	/* Compared as int: the helper's error arrives zero-extended (seen: 0xffffffef, so a
	 * 64-bit comparison with -EEXIST failed and every retransmission went uncaptured). */
	if ((int)err == -EEXIST) {
		err = keep_copy(key, rec);
		if (!err)
			count(CNT_RECAPTURED);
	}
	if (err) {
		count(CNT_INSERT_FAIL);
		TC_ERR(err);
		return false;
	}
	count(CNT_CAPTURED);
	/* this sk_buff is the copy's own: a drop of it is the copy's, one of a clone is not
	 * (copy_skbs.bpf.h) */
	err = copy_skb_note(addr, key, rec);
	if (err)
		TC_ERR(err);
	/* the kernel processes this packet next, on this CPU: a saved copy it allocates now is
	 * this copy's */
	cur = bpf_map_lookup_elem(&cur_copy, &zero);
	if (cur) {
		cur->flow = *key;
		cur->tag = rec->tag;
		cur->incarnation = copy_incarnation(rec);
		cur->valid = 1;
	}
	return !err;
}

/* One packet at tc ingress: a SYN or SYN-ACK captured (true where its sk_buff's address @addr
 * is recorded as the copy's), or what another segment proves noted (a RST, a cookie ACK). */
static __always_inline bool capture_packet(struct __sk_buff *skb, __u64 addr)
{
	__u32 zero = 0, ifindex = skb->ifindex, net_off, tcp_off;
	struct capture_key key = {};
	struct capture_rec *rec;
	struct dev_info *dev;
	union ip_hdr iph;
	struct tcphdr th;

	dev = bpf_map_lookup_elem(&dev_info, &ifindex);
	if (!dev) {
		count(CNT_NO_DEV_INFO);
		return false;
	}
	if (parse_headers(skb, dev, &key, &iph, &net_off, &tcp_off, &th))
		return false;
	if (!th.syn) {
		if (th.rst)
			note_rst(&key, &th);
		else if (th.ack)
			prove_syncookie(skb, &key, &iph,
					key.family == AF_INET ? sizeof(iph.v4) : sizeof(iph.v6), &th);
		return false;
	}
	count(th.ack ? CNT_SYNACK_SEEN : CNT_SYN_SEEN);
	rec = bpf_map_lookup_elem(&scratch, &zero);
	if (!rec || !fill_copy(skb, rec, &key, &iph, net_off, tcp_off, &th))
		return false;
	key.seq = bpf_ntohl(th.seq);
	return keep_syn(addr, &key, rec);
}

SEC("tc")
int syn_capture(struct __sk_buff *skb)
{
	__u64 addr = addr_of(skb);

	/* A packet came in at this sk_buff: a copy recorded here before is over. A copy captured
	 * now is recorded in its place (one update, where an end first would add a lookup and a
	 * delete: a SYN's sk_buff is most often at a copy's address left by TCP's consume). */
	if (!capture_packet(skb, addr))
		copy_skb_end(addr);
	return TC_ACT_OK;
}

/* The SYN-ACK's TCP header, in a map: the option walk indexes it by a variable offset, which
 * the verifier allows in map values, not on the stack. */
struct tcp_hdr_buf {
	__u8 b[72];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tcp_hdr_buf);
} synack_scratch SEC(".maps");

/*
 * tc egress on the witness's devices: each SYN-ACK the server sends is noted on the record of
 * the SYN it answers (note_synack()): how many, and the TSecr of the last, which names the copy
 * of the SYN that created the request; a client's first ACK on the record of the SYN-ACK it
 * answers (note_synack_answer()), the same proof in the active direction. Nothing is captured
 * here; the packet passes unchanged.
 */
SEC("tc")
int synack_egress(struct __sk_buff *skb)
{
	__u32 ifindex = skb->ifindex, net_off, tcp_off, zero = 0;
	struct capture_key key = {};
	struct tcp_hdr_buf *buf;
	struct dev_info *dev;
	union ip_hdr iph;
	struct tcphdr th;
	__u64 n;

	dev = bpf_map_lookup_elem(&dev_info, &ifindex);
	buf = bpf_map_lookup_elem(&synack_scratch, &zero);
	if (!dev || !buf || parse_headers(skb, dev, &key, &iph, &net_off, &tcp_off, &th) ||
	    !th.ack || th.rst)
		return TC_ACT_OK;
	n = th.doff * 4;
	asm volatile("" : "+r"(n));
	if (n < 20 || n > 60 || bpf_skb_load_bytes(skb, tcp_off, buf->b, n))
		return TC_ACT_OK;
	if (th.syn)
		note_synack(skb, &key, &iph, &th, buf->b);
	else if (!th.fin)
		note_synack_answer(&key, buf->b);
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "GPL";
