// SPDX-License-Identifier: GPL-2.0
/*
 * syntwin-memory (guest): what keeping a SYN costs, as the article argued it.
 *
 * For N accepted, unread connections held open, per family and per TCP_SAVE_SYN setting
 * (off, 1, 2): the growth of all slab caches and of the kmalloc caches, per connection. The saved
 * SYN's cost is mode N minus off. For comparison, what holding the SYN's skb would cost (the
 * design of seeds 001/002): a packet socket on s0 that never reads keeps N SYN skbs; once the
 * connections are closed, the slab growth per SYN is that cost. If the BPF witness is attached, its maps' memlock (from fdinfo)
 * per entry is the witness's cost per record.
 *
 * Prints one JSON object on stdout. Needs compare/topology.sh's netns; run in the guest only.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "net_helpers.h"
#include "parse_num.h"
#include "map_memory.h"
#include "slabinfo.h"
#include "topology.h"

struct family {
	int af;
	const char *name, *server;
};

static const struct family families[] = {
	{ AF_INET, "ipv4", TOPO_SERVER4 },
	{ AF_INET6, "ipv6", TOPO_SERVER6 },
};

static void must_netns(const char *name)
{
	if (enter_netns(name) < 0)
		exit(2);
}

struct held {
	int cfd, afd;
};

/* Opens @n connections to @lfd (listening in the server netns) and keeps them. */
static struct held *hold(const struct family *f, int lfd, unsigned int n)
{
	struct held *h = calloc(n, sizeof(*h));
	uint16_t port = socket_port(lfd);

	if (!h)
		exit(2);
	must_netns("client");
	for (unsigned int i = 0; i < n; i++) {
		h[i].cfd = connect_to(f->af, f->server, port);
		h[i].afd = h[i].cfd < 0 ? -1 : accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (h[i].afd < 0) {
			log_err("connection %u of %u", i, n);
			exit(2);
		}
	}
	return h;
}

static void release(struct held *h, unsigned int n)
{
	struct linger lin = { .l_onoff = 1, .l_linger = 0 };

	for (unsigned int i = 0; i < n; i++) {
		setsockopt(h[i].afd, SOL_SOCKET, SO_LINGER, &lin, sizeof(lin));
		close(h[i].afd);
		close(h[i].cfd);
	}
	free(h);
	usleep(100 * 1000);
}

#define MAX_CACHES 256

/* Prints "kmalloc_objects_per_conn": {cache: delta / n} for caches that moved by >= n / 4. */
static void print_object_deltas(const struct slab_cache *a, int na, const struct slab_cache *b,
				int nb, unsigned int n)
{
	int first = 1;

	printf(", \"kmalloc_objects_per_conn\": {");
	for (int i = 0; i < nb; i++)
		for (int j = 0; j < na; j++) {
			long long d = b[i].active - a[j].active;

			if (strcmp(a[j].name, b[i].name) || (d < (long long)n / 4 && -d < (long long)n / 4))
				continue;
			printf("%s\"%s\": %.2f", first ? "" : ", ", b[i].name, (double)d / n);
			first = 0;
		}
	printf("}");
}

/* One configuration: N held connections; prints its JSON members. */
static void measure_save(const struct family *f, int save, unsigned int n, int first)
{
	static struct slab_cache k0[MAX_CACHES], k1[MAX_CACHES];
	long long all0, km0, all1, km1;
	struct held *h;
	int lfd, len = 0, n0, n1;

	must_netns("server");
	lfd = start_listener(f->af, f->server, 0, save ? save : -1, (int)n + 16);
	if (lfd < 0)
		exit(2);
	/* one read tells how many header bytes this setting stores */
	if (save) {
		uint8_t buf[512];

		h = hold(f, lfd, 1);
		len = read_saved_syn(h[0].afd, buf, sizeof(buf), NULL);
		release(h, 1);
	}
	all0 = slab_bytes("");
	km0 = slab_bytes("kmalloc-");
	n0 = slab_read("kmalloc-", k0, MAX_CACHES);
	h = hold(f, lfd, n);
	all1 = slab_bytes("");
	km1 = slab_bytes("kmalloc-");
	n1 = slab_read("kmalloc-", k1, MAX_CACHES);
	release(h, n);
	close(lfd);
	printf("%s\"%s\": {\"slab_bytes_per_conn\": %.1f, \"kmalloc_bytes_per_conn\": %.1f, "
	       "\"header_bytes_saved\": %d",
	       first ? "" : ", ", save ? (save == 1 ? "mode1" : "mode2") : "off",
	       (double)(all1 - all0) / n, (double)(km1 - km0) / n, len);
	print_object_deltas(k0, n0, k1, n1, n);
	printf("}");
}

/*
 * What holding each SYN's skb costs: a packet socket that takes only SYNs (a filter compiled by
 * libpcap) and is never read keeps them queued.
 */
static void measure_skb(const struct family *f, unsigned int n)
{
	static const char filter[] =
		"(ip and tcp[13] & 0x12 = 2) or (ip6 and ip6[6] = 6 and ip6[53] & 0x12 = 2)";
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	struct tpacket_stats st;
	socklen_t stlen = sizeof(st);
	struct bpf_program prog;
	struct sock_fprog fprog;
	pcap_t *dead = pcap_open_dead(DLT_EN10MB, 65535);
	long long all0, all1;
	int pfd, lfd, big = 1 << 30;
	struct held *h;

	must_netns("server");
	if (!dead || pcap_compile(dead, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) < 0) {
		fprintf(stderr, "syntwin-memory: pcap_compile '%s': %s\n", filter,
			dead ? pcap_geterr(dead) : "pcap_open_dead failed");
		exit(2);
	}
	pcap_close(dead);
	fprog.len = (unsigned short)prog.bf_len;
	fprog.filter = (struct sock_filter *)prog.bf_insns;
	pfd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
	sll.sll_ifindex = (int)if_nametoindex("s0");
	if (pfd < 0 || setsockopt(pfd, SOL_SOCKET, SO_ATTACH_FILTER, &fprog, sizeof(fprog)) < 0 ||
	    setsockopt(pfd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)) < 0 ||
	    bind(pfd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		log_err("packet socket on s0");
		exit(2);
	}
	pcap_freecode(&prog);
	getsockopt(pfd, SOL_PACKET, PACKET_STATISTICS, &st, &stlen); /* resets the counters */
	lfd = start_listener(f->af, f->server, 0, -1, (int)n + 16);
	if (lfd < 0)
		exit(2);
	all0 = slab_bytes("");
	h = hold(f, lfd, n);
	release(h, n);
	close(lfd);
	/* the connections are gone; what is left is the queued SYNs */
	all1 = slab_bytes("");
	stlen = sizeof(st);
	getsockopt(pfd, SOL_PACKET, PACKET_STATISTICS, &st, &stlen);
	close(pfd);
	printf(", \"skb_held\": {\"slab_bytes_per_syn\": %.1f, \"syns_queued\": %u, \"drops\": %u}",
	       (double)(all1 - all0) / n, st.tp_packets, st.tp_drops);
}

int main(int argc, char **argv)
{
	struct rlimit nofile = { 1 << 20, 1 << 20 };
	uint64_t n = 2000;
	char err[128];

	if (argc > 2 || (argc == 2 && parse_u64_range("connections", argv[1], 10, 100000, &n, err,
						      sizeof(err)) < 0)) {
		fprintf(stderr, "usage: syntwin-memory [CONNECTIONS (10..100000, default 2000)]\n");
		exit(2);
	}
	if (setrlimit(RLIMIT_NOFILE, &nofile) < 0) {
		log_err("setrlimit(RLIMIT_NOFILE)");
		exit(2);
	}
	struct utsname u;

	uname(&u);
	printf("{\"kernel\": \"%s\", \"connections_held\": %llu, \"families\": {", u.release,
	       (unsigned long long)n);
	for (int fi = 0; fi < 2; fi++) {
		const struct family *f = &families[fi];

		printf("%s\"%s\": {", fi ? ", " : "", f->name);
		for (int save = 0; save <= 2; save++)
			measure_save(f, save, (unsigned int)n, save == 0);
		measure_skb(f, (unsigned int)n);
		printf("}");
	}
	printf("}, \"bpf_maps\": {");
	if (print_map_memory("syn_by_flow", 1)) {
		print_map_memory("syn_events", 0); /* the ring buffer: bytes, not entries */
		print_map_memory("syn_copies", 0); /* earlier copies of retransmitted SYNs */
	}
	printf("}}\n");
	return 0;
}
