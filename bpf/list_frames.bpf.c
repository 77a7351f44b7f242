// SPDX-License-Identifier: GPL-2.0
/*
 * Test only (tests/guest_witness.c, same_tag_pair()): frames handed to the stack as one list, as
 * a NAPI driver's GRO batch is (netif_receive_skb_list()), so that tc ingress sees every frame
 * of the list before IP and TCP see the first. BPF_PROG_TEST_RUN in live-frames mode runs this
 * once for each frame of a batch, each made from the same bytes, and passes them on together;
 * frame i leaves with IPv4 TTL ttl[i % 2], its header checksum made anew.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_helpers.h>

__u8 ttl[2];
__u32 frames;

SEC("xdp")
int list_frames(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct iphdr *ip = data + sizeof(struct ethhdr);
	__u16 *w = (__u16 *)ip;
	__u32 sum = 0;
	int i;

	if ((void *)(ip + 1) > end)
		return XDP_PASS;
	ip->ttl = ttl[frames++ & 1];
	ip->check = 0;
	for (i = 0; i < 10; i++)
		sum += w[i];
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	ip->check = (__u16)~sum;
	return XDP_PASS;
}

/* On s0 while the test runs its frames: a device's receive queue takes XDP frames only while
 * XDP is on (veth registers the queue's XDP information then) */
SEC("xdp")
int pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
