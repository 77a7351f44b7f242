// SPDX-License-Identifier: GPL-2.0
/*
 * The capture points beside tc ingress (capture_points.h): XDP on the server's devices, and
 * fentry on tcp_rcv_state_process() for a listener (TCP's receive of the SYN, after IP receive
 * processing). Each stores every TCP SYN (no ACK) it sees under its point, flow and copy tag,
 * the bytes from the link-layer header to the end of the TCP header, as tc does. Neither reads
 * anything of the saved copy, tc's maps or the kernel's state beyond the packet itself (and, at
 * TCP, that the socket is a listener).
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "capture_points.h"
#include "copy_tag.bpf.h"

#define AF_INET 2
#define AF_INET6 10
#define EEXIST 17
#define TCP_LISTEN 10

/* The network namespace whose listeners the tcp point watches (its nsfs inode, the loader's
 * --netns); 0: every one. */
const volatile __u32 watched_netns = 0;

/* The loader sets max_entries (CAPTURE_POINTS_ENTRIES of the run's --entries). A plain hash,
 * not an LRU: a copy that finds it full is counted (PC_INSERT_FAIL), never one silently evicted,
 * so a point's missing copy is known to be lost or not. Userspace deletes each copy it takes. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct point_key);
	__type(value, struct point_rec);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} point_syns SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PT_MAX * PC_MAX);
	__type(key, __u32);
	__type(value, __u64);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} point_counts SEC(".maps");

/* The XDP devices' link-layer header lengths, by ifindex (the loader's, like tc's dev_info). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, struct dev_info);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} point_devs SEC(".maps");

/* The record is larger than is wise on the 512-byte BPF stack. The slack behind it is room the
 * verifier needs: an offset checked against the copy's length is, to it, a byte past its end
 * (nothing past the copy is read for a value). */
struct point_scratch {
	struct point_rec rec;
	__u8 slack[8];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct point_scratch);
} point_scratch SEC(".maps");

static __always_inline void point_count(__u32 point, __u32 which)
{
	__u32 i = point * PC_MAX + which;
	__u64 *c = bpf_map_lookup_elem(&point_counts, &i);

	if (c)
		__sync_fetch_and_add(c, 1);
}

/* Where the headers of a SYN start, as read from the packet's first bytes in @rec->data. */
struct syn_spot {
	__u32 net_off, tcp_off, tcp_len;
	struct capture_key key;
};

/*
 * The flow of the IP header at @rec->data + @s->net_off (copied, @limit bytes of it valid) and
 * the offset of its TCP header; @s->tcp_len still unknown. 0, or -1 for anything but
 * unfragmented TCP, or headers past @limit.
 */
static __always_inline int place_net(const struct point_rec *rec, struct syn_spot *s,
				     __u32 limit)
{
	__u32 off = s->net_off & 0xff, i;
	__u8 ver, next;

	if (off > CAPTURE_MAX - 40 || off + 20 > limit)
		return -1;
	ver = rec->data[off] >> 4;
	if (ver == 4) {
		const struct iphdr *ip = (const void *)&rec->data[off];

		if (ip->protocol != IPPROTO_TCP || ip->ihl < 5 || (ip->frag_off & bpf_htons(0x3fff)))
			return -1;
		s->key.family = AF_INET;
		__builtin_memcpy(s->key.saddr, &ip->saddr, 4);
		__builtin_memcpy(s->key.daddr, &ip->daddr, 4);
		s->tcp_off = off + ip->ihl * 4;
		return 0;
	}
	if (ver != 6 || off + 40 > limit)
		return -1;
	s->key.family = AF_INET6;
	__builtin_memcpy(s->key.saddr, &rec->data[off + 8], 16);
	__builtin_memcpy(s->key.daddr, &rec->data[off + 24], 16);
	next = rec->data[off + 6];
	off += 40;
	for (i = 0; i < CAPTURE_MAX_EXTHDRS && next != IPPROTO_TCP; i++) {
		__u32 at = off & 0xff; /* the verifier bounds the register it indexes with */
		__u8 nh, hl;

		if ((next != IPPROTO_HOPOPTS && next != IPPROTO_ROUTING &&
		     next != IPPROTO_DSTOPTS && next != IPPROTO_AH) || at > CAPTURE_MAX - 2 ||
		    off + 2 > limit)
			return -1;
		nh = rec->data[at];
		hl = rec->data[at + 1];
		off += next == IPPROTO_AH ? (hl + 2) * 4 : (hl + 1) * 8;
		next = nh;
	}
	if (next != IPPROTO_TCP)
		return -1;
	s->tcp_off = off;
	return 0;
}

/* The copy tag of @rec (placed by @s) with its TCP header in @t (60 bytes). */
static __always_inline __u32 point_tag(const struct point_rec *rec, const struct syn_spot *s,
				       const __u8 *t)
{
	__u32 off = s->net_off & 0xff, id;

	if (off > CAPTURE_MAX - 8)
		return 0;
	if (s->key.family == AF_INET)
		id = (__u32)rec->data[off + 4] << 8 | rec->data[off + 5];
	else
		id = (__u32)(rec->data[off + 1] & 0x0f) << 16 | (__u32)rec->data[off + 2] << 8 |
		     rec->data[off + 3];
	return tag_tcp(tag_id(TAG_SEED, id), t);
}

/* @rec (@s placed, its TCP header @t) stored as point @point's copy. */
static __always_inline void point_store(__u32 point, struct point_rec *rec, struct syn_spot *s,
					const __u8 *t)
{
	struct point_key k = { .point = point };
	struct point_rec *old;
	long err;

	point_count(point, PC_SYN_SEEN);
	k.flow = s->key;
	k.flow.sport = *(const __u16 *)&t[0];
	k.flow.dport = *(const __u16 *)&t[2];
	k.flow.seq = bpf_ntohl(*(const __u32 *)&t[4]);
	k.tag = point_tag(rec, s, t);
	rec->ts_ns = bpf_ktime_get_ns();
	rec->seen = 1;
	err = bpf_map_update_elem(&point_syns, &k, rec, BPF_NOEXIST);
	if ((int)err == -EEXIST) {
		/* the same copy again (same tag: the same bytes but the checksum) */
		old = bpf_map_lookup_elem(&point_syns, &k);
		if (old && old->seen < 0xffff)
			old->seen++;
		return;
	}
	point_count(point, err ? PC_INSERT_FAIL : PC_STORED);
}

/*
 * The TCP header of the frame at @s->tcp_off into @t (60 bytes, zero past what the frame has),
 * read from the frame itself, not the copy (which may end first), its length into @s. 0, or -1
 * if it is no SYN without ACK or the frame does not hold its fixed part.
 */
static __always_inline int tcp_from_frame(struct xdp_md *ctx, __u32 avail, struct syn_spot *s,
					  __u8 *t)
{
	__u64 tl = avail > s->tcp_off ? avail - s->tcp_off : 0;

	tl = tl < 60 ? tl : 60;
	asm volatile("" : "+r"(tl));
	if (tl < 20 || tl > 60 || bpf_xdp_load_bytes(ctx, s->tcp_off, t, tl))
		return -1;
	if ((t[13] & 0x12) != 0x02)
		return -1;
	s->tcp_len = (t[12] >> 4) * 4;
	return s->tcp_len < 20 ? -1 : 0;
}

/*
 * XDP: the frame as the driver (native) or the generic hook hands it over, before tc and before
 * any VLAN tag the driver left in the frame is taken out. Always passes the frame on.
 */
SEC("xdp")
int point_xdp(struct xdp_md *ctx)
{
	__u32 zero = 0, ifindex = ctx->ingress_ifindex, len, avail;
	struct syn_spot s = {};
	struct point_rec *rec;
	struct dev_info *dev;
	__u8 t[60] = {};
	__u64 n;

	dev = bpf_map_lookup_elem(&point_devs, &ifindex);
	rec = bpf_map_lookup_elem(&point_scratch, &zero);
	if (!dev || !rec)
		return XDP_PASS;
	avail = ctx->data_end - ctx->data;
	n = avail < CAPTURE_MAX ? avail : CAPTURE_MAX;
	asm volatile("" : "+r"(n));
	if (n < 34 || n > CAPTURE_MAX || bpf_xdp_load_bytes(ctx, 0, rec->data, n))
		return XDP_PASS;
	s.net_off = dev->mac_len;
	if (dev->mac_len) {
		__u16 et = *(__u16 *)&rec->data[12];

		/* in-band tags, up to two (QinQ with neither in metadata), as the wire's parser */
		for (int k = 0; k < 2; k++) {
			if (et != bpf_htons(ETH_P_8021Q) && et != bpf_htons(ETH_P_8021AD))
				break;
			et = *(__u16 *)&rec->data[16 + 4 * k];
			s.net_off = 18 + 4 * k;
		}
		if (et != bpf_htons(ETH_P_IP) && et != bpf_htons(ETH_P_IPV6))
			return XDP_PASS;
	}
	if (place_net(rec, &s, n) || tcp_from_frame(ctx, avail, &s, t))
		return XDP_PASS;
	len = s.tcp_off + s.tcp_len;
	rec->flags = 0;
	if (len > n) {
		rec->flags = len > CAPTURE_MAX ? PT_F_TRUNCATED : 0;
		if (len <= CAPTURE_MAX) {
			point_count(PT_XDP, PC_NOT_PARSED);
			return XDP_PASS;
		}
		len = n;
	}
	rec->ifindex = ifindex;
	rec->mac_len = s.net_off;
	rec->cap_len = len;
	point_store(PT_XDP, rec, &s, t);
	return XDP_PASS;
}

struct ns_common {
	unsigned int inum;
} __attribute__((preserve_access_index));

struct net {
	struct ns_common ns;
} __attribute__((preserve_access_index));

typedef struct {
	struct net *net;
} __attribute__((preserve_access_index)) possible_net_t;

struct sock_common {
	volatile unsigned char skc_state;
	possible_net_t skc_net;
} __attribute__((preserve_access_index));

struct sock {
	struct sock_common __sk_common;
} __attribute__((preserve_access_index));

struct sk_buff {
	unsigned int len, data_len;
	__u16 mac_header, network_header, transport_header;
	unsigned char *head, *data;
	int skb_iif;
} __attribute__((preserve_access_index));

/*
 * TCP's receive of a SYN at a listener (tcp_rcv_state_process(), which tcp_conn_request() and
 * the saved copy come from): the bytes from the MAC header (if the skb has one) to the end of
 * the TCP header, as the skb holds them then.
 */
SEC("fentry/tcp_rcv_state_process")
int BPF_PROG(point_tcp, struct sock *sk, struct sk_buff *skb)
{
	__u32 zero = 0, start, nh, th_off, linear, len;
	struct syn_spot s = {};
	struct point_rec *rec;
	unsigned char *head;
	__u8 t[60] = {};
	__u16 mac;
	__u64 n;

	if (BPF_CORE_READ(sk, __sk_common.skc_state) != TCP_LISTEN ||
	    (watched_netns && BPF_CORE_READ(sk, __sk_common.skc_net.net, ns.inum) != watched_netns))
		return 0;
	rec = bpf_map_lookup_elem(&point_scratch, &zero);
	if (!rec)
		return 0;
	head = BPF_CORE_READ(skb, head);
	nh = BPF_CORE_READ(skb, network_header);
	th_off = BPF_CORE_READ(skb, transport_header);
	mac = BPF_CORE_READ(skb, mac_header);
	/* the linear data ends at data + (len - data_len) */
	linear = (__u32)(BPF_CORE_READ(skb, data) - head) + BPF_CORE_READ(skb, len) -
		 BPF_CORE_READ(skb, data_len);
	start = mac != 0xffff && mac <= nh ? mac : nh;
	if (th_off < nh || th_off - start > CAPTURE_MAX - 20 ||
	    bpf_probe_read_kernel(t, sizeof(t), head + th_off))
		return 0;
	if ((t[13] & 0x12) != 0x02)
		return 0;
	s.tcp_len = (t[12] >> 4) * 4;
	len = th_off + s.tcp_len - start;
	rec->flags = 0;
	if (th_off + s.tcp_len > linear) {
		rec->flags |= PT_F_NONLINEAR;
		len = linear > start ? linear - start : 0;
	}
	if (len > CAPTURE_MAX) {
		rec->flags |= PT_F_TRUNCATED;
		len = CAPTURE_MAX;
	}
	n = len;
	asm volatile("" : "+r"(n));
	if (n < 20 || n > CAPTURE_MAX || bpf_probe_read_kernel(rec->data, n, head + start)) {
		point_count(PT_TCP, PC_NOT_PARSED);
		return 0;
	}
	s.net_off = nh - start;
	if (place_net(rec, &s, len) || s.tcp_off != th_off - start) {
		point_count(PT_TCP, PC_NOT_PARSED);
		return 0;
	}
	rec->ifindex = BPF_CORE_READ(skb, skb_iif);
	rec->mac_len = s.net_off;
	rec->cap_len = len;
	point_store(PT_TCP, rec, &s, t);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
