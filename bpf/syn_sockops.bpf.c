// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup sockops: when a connection is established, bind its tc capture in syn_by_flow (flow +
 * the peer's ISN) to the socket: the socket's cookie goes into the record, and the record into
 * the syn_events ring buffer, where userspace finds it by getsockopt(SO_COOKIE): for a passive
 * socket the SYN, for an active one the SYN-ACK. The key is the same in both directions: the
 * peer sent the captured packet. With the record goes what the kernel's in-kernel readers
 * return of the socket's saved copy (send_bound()): a read of the kernel's copy for the judge to
 * check against the userspace read, never part of the witness's evidence.
 */
#include <linux/bpf.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "syn_maps.bpf.h"

#define AF_INET 2
#define AF_INET6 10

#define SOCKOPS_ERR(err) record_error(1, __LINE__, (err))

#define SOL_TCP 6

/*
 * @rec, bound to the socket of @skops, into the ring with the three regions of the socket's
 * saved copy the kernel hands BPF (bpf_sock_ops_get_syn(): TCP_BPF_SYN, _IP, _MAC; -ENOENT
 * when there is none), read straight into the record. No wakeup: the consumer reads the ring
 * whenever it takes a record (a wakeup is an irq_work, a self-IPI that TCG emulates at a price
 * per connection). Returns 0, or -1 when the ring had no room (the record is lost to userspace,
 * and the run is partial: counted).
 */
static __always_inline int send_bound(struct bpf_sock_ops *skops, const struct capture_rec *rec)
{
	struct bound_rec *b = bpf_ringbuf_reserve(&syn_events, sizeof(*b), 0);

	if (!b) {
		count(CNT_RING_DROPS);
		return -1;
	}
	__builtin_memcpy(&b->rec, rec, sizeof(*rec));
	b->reads.tcp.len = bpf_getsockopt(skops, SOL_TCP, TCP_BPF_SYN, b->reads.tcp.b, READ_MAX);
	b->reads.ip.len = bpf_getsockopt(skops, SOL_TCP, TCP_BPF_SYN_IP, b->reads.ip.b, READ_MAX);
	b->reads.mac.len = bpf_getsockopt(skops, SOL_TCP, TCP_BPF_SYN_MAC, b->reads.mac.b,
					  READ_MAX);
	bpf_ringbuf_submit(b, BPF_RB_NO_WAKEUP);
	return 0;
}

/* A record for a socket with no SYN (bind_cookie_child()): too large for the BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct capture_rec);
} child_scratch SEC(".maps");

/*
 * A passive socket with no capture for its flow and ISN: if tc validated a cookie ACK for them
 * after the SYN's capture was taken (cookie_acks, prove_syncookie()), this socket is a second
 * child of that SYN, made from a later copy of the ACK. It goes to the ring as a record with no
 * SYN (CAP_F_NO_SYN, the key in data), so the judge can tie it to the SYN's first connection;
 * one noted ACK per socket. Returns 1 if the socket was bound so, else 0.
 */
static __always_inline int bind_cookie_child(struct bpf_sock_ops *skops, struct capture_key *key)
{
	struct cookie_ack *a = bpf_map_lookup_elem(&cookie_acks, key);
	struct capture_rec *r;
	__u32 zero = 0;

	if (!a || !a->acks)
		return 0;
	r = bpf_map_lookup_elem(&child_scratch, &zero);
	if (!r)
		return 0;
	__sync_fetch_and_add(&a->acks, -1);
	__builtin_memset(r, 0, sizeof(*r));
	r->ts_ns = a->ts_ns;
	r->family = key->family;
	r->flags = CAP_F_NO_SYN | CAP_F_COOKIE_ACK;
	r->cookie_isn = a->cookie_isn;
	r->local_isn = skops->snd_una - 1;
	r->cookie = bpf_get_socket_cookie(skops);
	__builtin_memcpy(r->data, key, sizeof(*key));
	if (!send_bound(skops, r))
		count(CNT_COOKIE_CHILD);
	return 1;
}

SEC("sockops")
int syn_sockops(struct bpf_sock_ops *skops)
{
	struct capture_key key = {};
	struct capture_rec *rec;
	__u16 sport, dport;
	__u64 cookie;
	int active;

	if (skops->op != BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB &&
	    skops->op != BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB)
		return 1;
	active = skops->op == BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB;
	key.family = skops->family;
	if (key.family == AF_INET) {
		__u32 r = skops->remote_ip4, l = skops->local_ip4;

		__builtin_memcpy(key.saddr, &r, 4);
		__builtin_memcpy(key.daddr, &l, 4);
	} else if (key.family == AF_INET6) {
		__u32 r[4], l[4];

		r[0] = skops->remote_ip6[0];
		r[1] = skops->remote_ip6[1];
		r[2] = skops->remote_ip6[2];
		r[3] = skops->remote_ip6[3];
		l[0] = skops->local_ip6[0];
		l[1] = skops->local_ip6[1];
		l[2] = skops->local_ip6[2];
		l[3] = skops->local_ip6[3];
		if (!r[0] && !r[1] && r[2] == bpf_htonl(0xffff)) {
			/* an IPv4 peer on a dual-stack IPv6 socket (::ffff:a.b.c.d): the SYN
			 * was IPv4, and so is its capture's key */
			key.family = AF_INET;
			__builtin_memcpy(key.saddr, &r[3], 4);
			__builtin_memcpy(key.daddr, &l[3], 4);
		} else {
			__builtin_memcpy(key.saddr, r, 16);
			__builtin_memcpy(key.daddr, l, 16);
		}
	} else {
		return 1;
	}
	/* remote_port: network-order port in the upper half (6.1 filter.c); local_port: host order. */
	sport = (__u16)bpf_ntohl(skops->remote_port);
	dport = (__u16)skops->local_port;
	key.sport = bpf_htons(sport);
	key.dport = bpf_htons(dport);
	/* At PASSIVE_ESTABLISHED_CB rcv_nxt is ISN + 1, for 3WHS and Fast Open children alike
	 * (tcp_fastopen_create_child() adds SYN data only after the callback). At
	 * ACTIVE_ESTABLISHED_CB it is the server's ISN + 1: tcp_finish_connect() runs before any
	 * SYN-ACK data is queued. */
	key.seq = skops->rcv_nxt - 1;

	rec = flow_entry(&key);
	if (!rec) {
		if (!active && bind_cookie_child(skops, &key))
			return 1;
		count(active ? CNT_ACTIVE_BIND_MISS : CNT_BIND_MISS);
		return 1;
	}
	cookie = bpf_get_socket_cookie(skops);
	rec->cookie = cookie;
	/* The socket's own ISN: a syncookie child's is the cookie tc validated (the proof binds
	 * to it). At PASSIVE_ESTABLISHED nothing has been acknowledged past it (snd_una is the
	 * request's ISN + 1 from tcp_create_openreq_child(), and the final ACK acks only the
	 * SYN-ACK); at ACTIVE_ESTABLISHED a Fast Open client's acknowledged SYN data moves it on,
	 * but nothing reads an active socket's. Userspace keeps this one, the ring record's, per
	 * socket (the flow entry's is the last socket's: capture_take_bound()). */
	rec->local_isn = skops->snd_una - 1;
	if (send_bound(skops, rec))
		return 1;
	/* The flow entry stays: one SYN can yield two children (a syncookie ACK and the FIN right
	 * behind it racing on two CPUs), and the one accepted may be the second; copies and
	 * fates that come after the bind land there too. The consumer takes the flow entry when it
	 * takes the capture (capture_take_bound()). */
	count(active ? CNT_ACTIVE_BOUND : CNT_BOUND);
	return 1;
}

char LICENSE[] SEC("license") = "GPL";
