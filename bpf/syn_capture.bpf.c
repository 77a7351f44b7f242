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

#include "syn_maps.bpf.h"

#define EEXIST 17

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

/*
 * The witness's own syncookie proof, per connection: @th is an ACK (no SYN, no RST) of a flow
 * whose SYN we captured (@key, with the SYN's ISN = this ACK's seq - 1). If no request or
 * connection socket holds the flow and the listener it reaches validates the ACK's cookie
 * (bpf_tcp_check_syncookie(): the kernel's cookie arithmetic, not the saved-SYN code under test),
 * the connection about to be created is a syncookie child, which keeps no saved SYN. The proof
 * is a flag on the capture, which sockops then binds to that child's cookie.
 */
static __always_inline void prove_syncookie(struct __sk_buff *skb, struct capture_key *key,
					    union ip_hdr *ip, __u32 ip_len, struct tcphdr *th)
{
	struct bpf_sock_tuple t = {};
	struct bpf_sock *sk;
	struct capture_rec *rec;
	__u32 tlen;
	long err;

	key->seq = bpf_ntohl(th->seq) - 1;
	rec = bpf_map_lookup_elem(&syn_by_flow, key);
	if (!rec || (rec->flags & (CAP_F_SYNACK | CAP_F_COOKIE_ACK)))
		return;
	if (key->family == AF_INET) {
		t.ipv4.saddr = ip->v4.saddr;
		t.ipv4.daddr = ip->v4.daddr;
		t.ipv4.sport = th->source;
		t.ipv4.dport = th->dest;
		tlen = sizeof(t.ipv4);
	} else {
		__builtin_memcpy(t.ipv6.saddr, &ip->v6.saddr, 16);
		__builtin_memcpy(t.ipv6.daddr, &ip->v6.daddr, 16);
		t.ipv6.sport = th->source;
		t.ipv6.dport = th->dest;
		tlen = sizeof(t.ipv6);
	}
	sk = bpf_skc_lookup_tcp(skb, &t, tlen, BPF_F_CURRENT_NETNS, 0);
	if (!sk)
		return;
	/* A request or established socket for the flow means no cookie is involved. */
	if (sk->state == BPF_TCP_LISTEN) {
		err = bpf_tcp_check_syncookie(sk, ip, ip_len, th, sizeof(*th));
		if (!err) {
			rec->flags |= CAP_F_COOKIE_ACK;
			count(CNT_COOKIE_PROVEN);
		}
	}
	bpf_sk_release(sk);
}

/* Every earlier copy of a SYN captured again (a retransmission or a duplicate), by flow and
 * arrival number; userspace takes them with the last copy (capture_take_copies()). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, struct copy_key);
	__type(value, struct capture_rec);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} syn_copies SEC(".maps");

/*
 * Another copy of the SYN already held under @key: the held one moves to syn_copies under its
 * arrival number and @rec (the new copy) takes its place, counting the copies. Returns the
 * map update's error.
 */
static __always_inline long keep_copy(struct capture_key *key, struct capture_rec *rec)
{
	struct capture_rec *old = bpf_map_lookup_elem(&syn_by_flow, key);
	struct copy_key ck = {};
	long err;

	rec->copies = 2;
	if (old) {
		__u8 n = old->copies;

		rec->copies = n < 255 ? n + 1 : 255;
		rec->flags |= old->flags & (CAP_F_COPIES_CUT | CAP_F_COOKIE_ACK);
		rec->drops = old->drops; /* what the kernel did with the earlier copies */
		rec->drop_reason = old->drop_reason;
		if (n < CAPTURE_MAX_COPIES) {
			ck.flow = *key;
			ck.n = n - 1;
			err = bpf_map_update_elem(&syn_copies, &ck, old, BPF_ANY);
			if (err)
				TC_ERR(err);
		} else {
			rec->flags |= CAP_F_COPIES_CUT;
			count(CNT_COPIES_CUT);
		}
	}
	rec->flags |= CAP_F_RECAPTURED;
	return bpf_map_update_elem(&syn_by_flow, key, rec, BPF_ANY);
}

SEC("tc")
int syn_capture(struct __sk_buff *skb)
{
	__u32 zero = 0, ifindex = skb->ifindex, off, net_off, tcp_off, len;
	struct capture_key key = {};
	struct capture_rec *rec;
	struct dev_info *dev;
	union ip_hdr iph;
	struct tcphdr th;
	__be16 proto;
	__u64 n;
	long err;

	dev = bpf_map_lookup_elem(&dev_info, &ifindex);
	if (!dev) {
		count(CNT_NO_DEV_INFO);
		return TC_ACT_OK;
	}
	off = dev->mac_len ? 14 : 0;
	proto = skb->protocol;
	if (dev->mac_len) {
		__be16 et;

		if (bpf_skb_load_bytes(skb, 12, &et, 2))
			return TC_ACT_OK;
		/* An in-band tag (offloaded ones live in skb metadata, not in the bytes). */
		if (et == ETH_P_8021Q_BE || et == ETH_P_8021AD_BE) {
			if (bpf_skb_load_bytes(skb, 16, &et, 2))
				return TC_ACT_OK;
			off = 18;
		}
		proto = et;
	}
	net_off = off;

	if (proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = &iph.v4;

		if (bpf_skb_load_bytes(skb, net_off, ip, sizeof(*ip)) || ip->protocol != IPPROTO_TCP)
			return TC_ACT_OK;
		if (ip->ihl < 5)
			return TC_ACT_OK;
		if (ip->frag_off & bpf_htons(0x3fff)) {
			count(CNT_FRAGMENT);
			return TC_ACT_OK;
		}
		tcp_off = net_off + ip->ihl * 4;
		key.family = AF_INET;
		__builtin_memcpy(key.saddr, &ip->saddr, 4);
		__builtin_memcpy(key.daddr, &ip->daddr, 4);
	} else if (proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = &iph.v6;
		__u8 nexthdr;
		int i;

		if (bpf_skb_load_bytes(skb, net_off, ip6, sizeof(*ip6)))
			return TC_ACT_OK;
		nexthdr = ip6->nexthdr;
		tcp_off = net_off + sizeof(*ip6);
		for (i = 0; i < CAPTURE_MAX_EXTHDRS; i++) {
			__u8 h[2];

			if (nexthdr == IPPROTO_TCP)
				break;
			if (nexthdr == IPPROTO_FRAGMENT) {
				count(CNT_FRAGMENT);
				return TC_ACT_OK;
			}
			if (nexthdr != IPPROTO_HOPOPTS && nexthdr != IPPROTO_ROUTING &&
			    nexthdr != IPPROTO_DSTOPTS && nexthdr != IPPROTO_AH)
				return TC_ACT_OK;
			if (bpf_skb_load_bytes(skb, tcp_off, h, 2))
				return TC_ACT_OK;
			/* AH counts 4-byte units minus 2; the others 8-byte units minus 1. */
			tcp_off += nexthdr == IPPROTO_AH ? (h[1] + 2) * 4 : (h[1] + 1) * 8;
			nexthdr = h[0];
		}
		if (nexthdr != IPPROTO_TCP)
			return TC_ACT_OK;
		key.family = AF_INET6;
		__builtin_memcpy(key.saddr, &ip6->saddr, 16);
		__builtin_memcpy(key.daddr, &ip6->daddr, 16);
	} else {
		return TC_ACT_OK;
	}

	if (bpf_skb_load_bytes(skb, tcp_off, &th, sizeof(th)))
		return TC_ACT_OK;
	key.sport = th.source;
	key.dport = th.dest;
	if (!th.syn) {
		if (th.ack && !th.rst)
			prove_syncookie(skb, &key, &iph,
					key.family == AF_INET ? sizeof(iph.v4) : sizeof(iph.v6), &th);
		return TC_ACT_OK;
	}
	count(th.ack ? CNT_SYNACK_SEEN : CNT_SYN_SEEN);

	rec = bpf_map_lookup_elem(&scratch, &zero);
	if (!rec)
		return TC_ACT_OK;
	rec->ts_ns = bpf_ktime_get_ns();
	rec->ifindex = ifindex;
	rec->mac_len = net_off;
	rec->net_len = tcp_off - net_off;
	rec->tcp_len = th.doff * 4;
	rec->vlan_present = skb->vlan_present;
	rec->vlan_tci = skb->vlan_tci;
	rec->vlan_proto = skb->vlan_proto;
	rec->family = key.family;
	rec->flags = th.ack ? CAP_F_SYNACK : 0;
	key.seq = bpf_ntohl(th.seq);

	len = tcp_off + th.doff * 4;
	if (th.doff < 5 || len > skb->len) {
		/* The kernel will drop this SYN; keep what there is, flagged. */
		rec->flags |= CAP_F_PARSE_ERR;
		count(CNT_PARSE_ERR);
		len = tcp_off + sizeof(th);
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
		return TC_ACT_OK;
	err = bpf_skb_load_bytes(skb, 0, rec->data, n);
	if (err) {
		TC_ERR(err);
		return TC_ACT_OK;
	}
	/* A new key, or another copy of a SYN already held (keep_copy()): counted apart, so
	 * that userspace can tell how many entries the LRU map evicted (capture_evictions()). */
	rec->copies = 1;
	rec->drops = 0;
	rec->drop_reason = 0;
	err = bpf_map_update_elem(&syn_by_flow, &key, rec, BPF_NOEXIST);
	/* Compared as int: the helper's error arrives zero-extended (seen: 0xffffffef, so a
	 * 64-bit comparison with -EEXIST failed and every retransmission went uncaptured). */
	if ((int)err == -EEXIST) {
		err = keep_copy(&key, rec);
		if (!err)
			count(CNT_RECAPTURED);
	}
	if (err) {
		count(CNT_INSERT_FAIL);
		TC_ERR(err);
		return TC_ACT_OK;
	}
	count(CNT_CAPTURED);
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "GPL";
