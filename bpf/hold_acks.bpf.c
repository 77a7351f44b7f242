// SPDX-License-Identifier: GPL-2.0
/*
 * A client's handshake ACKs held back, on purpose: the conformance suite's Fast Open roads
 * (tests/guest_conformance.c, tfo-reset-before-ack and tfo-migrate-before-ack). A Fast Open
 * child is made, and queued for accept(), from the SYN alone; it keeps its request
 * (tcp_sk(child)->fastopen_rsk) until the client's ACK of the SYN-ACK arrives. A real client
 * ACKs at once, so the roads that need a request still held (a reset before that ACK, a
 * listener closing and migrating it) are reached only with those ACKs dropped.
 * tc egress on the client's device: while @port is set, every bare ACK to that server port (the
 * ACK flag alone, no payload) is dropped; a RST, a FIN and data pass. The suite checks the
 * consequence (the server's child still in SYN_RECV), not this program.
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

__u16 port;		/* the server port whose bare ACKs are held (host order); 0: none */

SEC("tc")
int hold_acks(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct tcphdr *th;
	__u32 ip_len, hdr_len;

	if (!port || (void *)(eth + 1) > end)
		return TC_ACT_OK;
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = (void *)(eth + 1);

		if ((void *)(ip + 1) > end || ip->protocol != IPPROTO_TCP || ip->ihl < 5)
			return TC_ACT_OK;
		ip_len = bpf_ntohs(ip->tot_len);
		hdr_len = ip->ihl * 4;
		th = (void *)ip + hdr_len;
	} else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = (void *)(eth + 1);

		/* the suite's clients send no extension headers on these roads */
		if ((void *)(ip6 + 1) > end || ip6->nexthdr != IPPROTO_TCP)
			return TC_ACT_OK;
		ip_len = sizeof(*ip6) + bpf_ntohs(ip6->payload_len);
		hdr_len = sizeof(*ip6);
		th = (void *)(ip6 + 1);
	} else {
		return TC_ACT_OK;
	}
	if ((void *)(th + 1) > end || th->dest != bpf_htons(port))
		return TC_ACT_OK;
	if (!th->ack || th->syn || th->rst || th->fin || ip_len != hdr_len + th->doff * 4)
		return TC_ACT_OK;
	return TC_ACT_SHOT;
}

char LICENSE[] SEC("license") = "GPL";
