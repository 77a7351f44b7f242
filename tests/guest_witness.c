// SPDX-License-Identifier: GPL-2.0
/*
 * Guest test of the BPF witness (run in the server netns with the witness attached):
 * N connections per (family, mode) from the client netns, each capture bound to its socket and
 * byte-equal to TCP_SAVED_SYN; SYNs with IPv4 options and an IPv6 destination-options header
 * captured with the right net_len; a SYN written to tun0 captured with mac_len 0; counters
 * consistent.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <linux/if.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <netinet/in.h>
#include <netinet/ip6.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "capture_client.h"
#include "check.h"
#include "inet_csum.h"
#include "list_frames.skel.h"
#include "net_helpers.h"
#include "topology.h"

#define SRV4 TOPO_SERVER4
#define SRV6 TOPO_SERVER6

static struct capture_client cc;

/* The in-kernel readers' regions sockops read when it bound @rec: the ends of the userspace
 * read @native (@n bytes) by the capture's own split; the MAC header only in mode 2. */
static void check_reads(const struct syn_reads *r, const uint8_t *native, int n, int mode,
			const struct capture_rec *rec)
{
	int ip = rec->net_len + rec->tcp_len;

	if (n < ip) {
		CHECK(0, "saved copy of %d bytes, capture's network and TCP headers %d", n, ip);
		return;
	}
	CHECK(r->tcp.len == rec->tcp_len &&
		      !memcmp(r->tcp.b, native + n - rec->tcp_len, rec->tcp_len),
	      "TCP_BPF_SYN returned %d, want the last %u bytes of the saved copy", r->tcp.len,
	      rec->tcp_len);
	CHECK(r->ip.len == ip && !memcmp(r->ip.b, native + n - ip, ip),
	      "TCP_BPF_SYN_IP returned %d, want the last %d bytes of the saved copy", r->ip.len, ip);
	if (mode == 2)
		CHECK(r->mac.len == n && !memcmp(r->mac.b, native, n),
		      "TCP_BPF_SYN_MAC returned %d, want the whole copy (%d)", r->mac.len, n);
	else
		CHECK_EQ_INT(r->mac.len, -ENOENT);
}

/* One connection: connect from the client netns, accept, compare capture and saved SYN.
 * Returns the capture's net_len, or -1. */
static int one_conn(int family, int lfd, int mode, int ipopt_level, int ipopt_name,
		    const void *ipopt, socklen_t ipopt_len)
{
	struct sockaddr_storage ss;
	socklen_t sl = make_sockaddr(family, family == AF_INET ? SRV4 : SRV6, socket_port(lfd), &ss);
	uint8_t native[512];
	struct capture_rec rec;
	struct syn_reads reads;
	__u64 cookie = 0;
	socklen_t clen = sizeof(cookie);
	int cfd, afd, n, rc, net_len = -1;
	size_t off;

	cfd = socket(family, SOCK_STREAM, 0);
	if (ipopt && setsockopt(cfd, ipopt_level, ipopt_name, ipopt, ipopt_len))
		log_err("setsockopt ip option");
	if (connect(cfd, (struct sockaddr *)&ss, sl)) {
		log_err("connect");
		CHECK(0, "connect failed");
		close(cfd);
		return -1;
	}
	afd = accept(lfd, NULL, NULL);
	n = read_saved_syn(afd, native, sizeof(native), NULL);
	getsockopt(afd, SOL_SOCKET, SO_COOKIE, &cookie, &clen);
	rc = capture_take_bound(&cc, cookie, &rec, &reads);
	CHECK(rc == 0, "family %d mode %d: no capture for cookie %llu", family, mode,
	      (unsigned long long)cookie);
	if (rc == 0) {
		off = mode == 1 ? rec.mac_len : 0;
		net_len = rec.net_len;
		/* IPv4 RR/TS are rewritten on receive (the explained difference): length only. */
		if (ipopt && family == AF_INET) {
			CHECK_EQ_INT(n, rec.cap_len - off);
		} else {
			CHECK(n > 0 && (size_t)n == rec.cap_len - off &&
				      memcmp(native, rec.data + off, n) == 0,
			      "family %d mode %d: saved SYN (%d bytes) != capture (%zu bytes)", family,
			      mode, n, rec.cap_len - off);
		}
		CHECK_EQ_INT(rec.mac_len, 14);
		CHECK_EQ_INT(rec.family, family);
		check_reads(&reads, native, n, mode, &rec);
	}
	close(afd);
	close(cfd);
	return net_len;
}

/* tun0, opened for the peer's side (raw IP, no packet info); -1 on failure. */
static int tun_open(void)
{
	struct ifreq ifr = { .ifr_flags = IFF_TUN | IFF_NO_PI };
	int fd;

	strcpy(ifr.ifr_name, "tun0");
	fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK);
	if (fd < 0 || ioctl(fd, TUNSETIFF, &ifr)) {
		log_err("tun0");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* An IPv4 segment @src:@sport -> @dst:@dport into @pkt (IP ID 0x1234, TTL 64): @flags, @seq,
 * @ack; a SYN carries one MSS option (doff 6). Returns its length. */
static size_t segment4(uint8_t pkt[44], const char *src, const char *dst, uint16_t sport,
		       uint16_t dport, uint8_t flags, uint32_t seq, uint32_t ack)
{
	static const uint8_t ip[12] = { 0x45, 0, 0, 0, 0x12, 0x34, 0x40, 0, 64, 6, 0, 0 };
	uint8_t *tcp = pkt + 20;
	size_t tlen = flags & 0x02 ? 24 : 20;
	uint16_t c;

	memset(pkt, 0, 44);
	memcpy(pkt, ip, sizeof(ip));
	inet_pton(AF_INET, src, pkt + 12);
	inet_pton(AF_INET, dst, pkt + 16);
	pkt[3] = (uint8_t)(20 + tlen);
	tcp[0] = sport >> 8, tcp[1] = sport & 0xff;
	tcp[2] = dport >> 8, tcp[3] = dport & 0xff;
	seq = htonl(seq), ack = htonl(ack);
	memcpy(tcp + 4, &seq, 4);
	memcpy(tcp + 8, &ack, 4);
	tcp[12] = (uint8_t)(tlen / 4) << 4;
	tcp[13] = flags;
	tcp[14] = 0xfa, tcp[15] = 0xf0;
	if (tlen == 24)
		tcp[20] = 2, tcp[21] = 4, tcp[22] = 0x05, tcp[23] = 0xb4;
	c = csum_fold(csum_add(0, pkt, 20));
	memcpy(pkt + 10, &c, 2);
	c = tcp_csum4(pkt + 12, pkt + 16, tcp, tlen);
	memcpy(tcp + 16, &c, 2);
	return 20 + tlen;
}

/* segment4() 198.19.0.1:@sport -> 198.19.0.2:@dport, the peer's side of tun0 */
static size_t tun_packet(uint8_t pkt[44], uint16_t sport, uint16_t dport, uint8_t flags,
			 uint32_t seq, uint32_t ack)
{
	return segment4(pkt, TOPO_TUN_PEER4, TOPO_TUN_SELF4, sport, dport, flags, seq, ack);
}

/* Write tun_packet()'s segment to tun @fd. */
static void tun_write(int fd, uint16_t sport, uint16_t dport, uint8_t flags, uint32_t seq,
		      uint32_t ack)
{
	uint8_t pkt[44];
	size_t len = tun_packet(pkt, sport, dport, flags, seq, ack);

	if (write(fd, pkt, len) != (ssize_t)len)
		log_err("write tun0");
}

/* Write an IPv4 SYN 198.19.0.1:40000 -> 198.19.0.2:@dport (ISN 0x11223344) to tun0. */
static int tun_syn(uint16_t dport)
{
	int fd = tun_open();

	if (fd < 0)
		return -1;
	tun_write(fd, 40000, dport, 0x02, 0x11223344, 0);
	usleep(200000);
	close(fd);
	return 0;
}

/* The ISN of the next SYN-ACK to @sport that tun @fd reads within a second; false if none. */
static bool tun_synack(int fd, uint16_t sport, uint32_t *isn)
{
	uint8_t pkt[1500];

	for (int tries = 0; tries < 100; tries++) {
		ssize_t n = read(fd, pkt, sizeof(pkt));

		if (n < 40) {
			usleep(10000);
			continue;
		}
		if ((pkt[0] >> 4) != 4 || pkt[9] != 6)
			continue;
		const uint8_t *tcp = pkt + (pkt[0] & 15) * 4;

		if ((tcp[2] << 8 | tcp[3]) != sport || (tcp[13] & 0x12) != 0x12)
			continue;
		memcpy(isn, tcp + 4, 4);
		*isn = ntohl(*isn);
		return true;
	}
	return false;
}

/* Swap this netns's sysctl @key to @value, its old value into @old (NULL: not kept). */
static int sysctl_swap(const char *key, const char *value, char *old, size_t n)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/sys/%s", key);
	if (old) {
		f = fopen(path, "re");
		if (!f || !fgets(old, (int)n, f)) {
			log_err("read %s", path);
			if (f)
				fclose(f);
			return -1;
		}
		old[strcspn(old, "\n")] = 0;
		fclose(f);
	}
	f = fopen(path, "we");
	if (!f || fprintf(f, "%s\n", value) < 0 || fclose(f)) {
		log_err("write %s=%s", path, value);
		return -1;
	}
	return 0;
}

/* A connection @lfd has ready within @ms, or -1. */
static int accept_within(int lfd, int ms)
{
	struct pollfd p = { .fd = lfd, .events = POLLIN };

	return poll(&p, 1, ms) == 1 ? accept(lfd, NULL, NULL) : -1;
}

#define TH_SYN 0x02
#define TH_RST 0x04
#define TH_ACK 0x10

/*
 * The road a netem run met once: a SYN answered with a cookie while cookies are forced, a later
 * copy of it answered by a request (cookies no longer forced; the request saves a copy), the
 * cookie's ACK while that request holds the flow (the kernel hands it to the listener, which
 * validates the cookie but finds the request in the way of the child it would hash: no child),
 * the request reset, then the cookie's ACK again: a syncookie child. The witness proves that
 * child by its own ISN (the cookie it validated), and records the request's SYN-ACK
 * (CAP_F_SYNACK_REQ) that lets the judge put the request's saved copy down to the request; a
 * third copy after the bind leaves the socket's own ISN as the bind recorded it.
 */
static void cookie_then_request(int self_ns)
{
	const uint16_t sport = 40002;
	const uint32_t isn = 0x55667788;
	uint32_t cookie = 0, req = 0;
	struct capture_rec rec;
	struct syn_reads reads;
	uint8_t native[512];
	socklen_t clen = sizeof(__u64);
	__u64 sk_cookie = 0;
	char old[16];
	int lfd, fd, afd, late;
	uint16_t dport;

	if (netns_set(self_ns, "server"))
		exit(1);
	lfd = start_listener(AF_INET, TOPO_TUN_SELF4, TOPO_CLOSE_PORT + 1, 1, 8);
	fd = tun_open();
	if (lfd < 0 || fd < 0 || sysctl_swap("net/ipv4/tcp_syncookies", "2", old, sizeof(old))) {
		CHECK(0, "cookie-then-request: set-up failed");
		exit(1);
	}
	dport = socket_port(lfd);
	tun_write(fd, sport, dport, TH_SYN, isn, 0);
	CHECK(tun_synack(fd, sport, &cookie), "cookie-then-request: no SYN-ACK to the first copy");
	if (sysctl_swap("net/ipv4/tcp_syncookies", old, NULL, 0))
		exit(1);
	tun_write(fd, sport, dport, TH_SYN, isn, 0);
	CHECK(tun_synack(fd, sport, &req) && req != cookie,
	      "cookie-then-request: the second copy made no request (SYN-ACK isn %u, cookie %u)",
	      req, cookie);
	tun_write(fd, sport, dport, TH_ACK, isn + 1, cookie + 1);
	late = accept_within(lfd, 300);
	CHECK(late < 0, "cookie-then-request: a child was made over the request");
	tun_write(fd, sport, dport, TH_RST, isn + 1, 0);
	tun_write(fd, sport, dport, TH_ACK, isn + 1, cookie + 1);
	afd = accept_within(lfd, 2000);
	CHECK(afd >= 0, "cookie-then-request: the cookie's ACK made no child");
	if (afd >= 0) {
		CHECK_EQ_INT(read_saved_syn(afd, native, sizeof(native), NULL), 0);
		getsockopt(afd, SOL_SOCKET, SO_COOKIE, &sk_cookie, &clen);
		/* a third copy after the bind (the established child drops it): the flow's entry is
		 * replaced, but the socket's own ISN is its ring record's */
		tun_write(fd, sport, dport, TH_SYN, isn, 0);
		usleep(200000);
		CHECK(capture_take_bound(&cc, sk_cookie, &rec, &reads) == 0,
		      "cookie-then-request: no capture bound to the child");
		CHECK((rec.flags & (CAP_F_COOKIE_ACK | CAP_F_SYNACK_REQ | CAP_F_SYNACK_COOKIE)) ==
			      (CAP_F_COOKIE_ACK | CAP_F_SYNACK_REQ | CAP_F_SYNACK_COOKIE),
		      "cookie-then-request: flags 0x%x lack the cookie ACK, the request's SYN-ACK or "
		      "the cookie SYN-ACK", rec.flags);
		CHECK_EQ_INT(rec.cookie_isn, cookie);
		CHECK_EQ_INT(rec.local_isn, cookie);
		CHECK_EQ_INT(rec.copies, 3);
		/* a cookie child has no copy: every in-kernel reader says so */
		CHECK(reads.tcp.len == -ENOENT && reads.ip.len == -ENOENT &&
			      reads.mac.len == -ENOENT,
		      "cookie-then-request: the readers returned %d %d %d, want -ENOENT",
		      reads.tcp.len, reads.ip.len, reads.mac.len);
		close(afd);
	}
	if (late >= 0)
		close(late);
	close(fd);
	close(lfd);
}

struct flow_find {
	uint16_t sport;
	uint32_t isn;
	struct capture_key key;
	struct capture_rec rec;
	bool found;
};

static int find_flow(const struct capture_key *k, const struct capture_rec *r, void *arg)
{
	struct flow_find *f = arg;

	if (k->family != AF_INET || ntohs(k->sport) != f->sport || k->seq != f->isn)
		return 0;
	f->key = *k;
	f->rec = *r;
	f->found = true;
	return 1;
}

/* A port of tun0's own address nothing listens on (bound, then closed); 0 if none was had. */
static uint16_t closed_port(void)
{
	int sfd = start_listener(AF_INET, TOPO_TUN_SELF4, 0, 0, 1);
	uint16_t port = sfd < 0 ? 0 : socket_port(sfd);

	if (sfd >= 0)
		close(sfd);
	return port;
}

/*
 * A drop of a captured SYN's bytes somewhere the witness does not capture is not the flow's.
 * A SYN written to tun0 (through the witness's tc ingress) to a closed port: TCP drops it (no
 * socket), the flow's one drop. The same bytes sent again from this netns, to its own address
 * (over lo, which the witness does not hold), dropped by TCP the same way: counted as dropped
 * elsewhere, not on the flow, whose drops would otherwise read 2 for its one copy -- as a
 * copy a lossy client side drops before it reaches the server would, and a judge counting
 * drops against copies would take it for a copy that was never dropped.
 */
static void drop_elsewhere(int self_ns)
{
	struct sockaddr_in self = { .sin_family = AF_INET };
	struct flow_find f = { .sport = 40003, .isn = 0x0badf00d };
	__u64 c0[CNT_MAX], c1[CNT_MAX];
	int fd, raw;
	uint16_t closed;
	uint8_t pkt[44];
	size_t len;

	inet_pton(AF_INET, TOPO_TUN_SELF4, &self.sin_addr);
	if (netns_set(self_ns, "server"))
		exit(1);
	closed = closed_port();
	fd = tun_open();
	raw = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (!closed || fd < 0 || raw < 0 || capture_counters(&cc, c0)) {
		CHECK(0, "drop elsewhere: set-up failed");
		exit(1);
	}
	len = tun_packet(pkt, f.sport, closed, TH_SYN, f.isn, 0);
	tun_write(fd, f.sport, closed, TH_SYN, f.isn, 0);
	usleep(200000);
	if (sendto(raw, pkt, len, 0, (struct sockaddr *)&self, sizeof(self)) != (ssize_t)len)
		log_err("drop elsewhere: send over lo");
	usleep(200000);
	CHECK(capture_counters(&cc, c1) == 0, "read counters");
	capture_each_unbound(&cc, find_flow, &f);
	CHECK(f.found, "drop elsewhere: the tun SYN was not captured");
	CHECK_EQ_INT(c1[CNT_CAPTURED] - c0[CNT_CAPTURED], 1);
	CHECK_EQ_INT(c1[CNT_SYN_DROPPED] - c0[CNT_SYN_DROPPED], 1);
	CHECK_EQ_INT(c1[CNT_DROP_ELSEWHERE] - c0[CNT_DROP_ELSEWHERE], 1);
	CHECK_EQ_INT(f.rec.copies, 1);
	CHECK_EQ_INT(f.rec.drops, 1);
	CHECK(f.rec.flags & CAP_F_DROPPED, "drop elsewhere: the tun copy is not marked dropped");
	if (f.found)
		capture_take_flow(&cc, &f.key, &f.rec);
	close(raw);
	close(fd);
}

/*
 * A drop of a clone of a copy is not the copy's; the copy's own drop is, clone or not. Two SYNs
 * written to tun0 while a raw IPPROTO_TCP socket is open (it gets a clone of each): one to a
 * listener (a request: TCP consumes the copy), one to a closed port (TCP drops the copy, NO_SOCKET,
 * its flow's one drop). The raw socket closed with both clones queued drops them (its queue
 * purged). A clone has its copy's headers, tag and skb_iif: only its sk_buff is another.
 * Counted apart (drop_not_a_copy), not on the flows: counted there, the first flow would read
 * one copy dropped (a copy the kernel took), the second two drops for one copy, and a judge
 * weighing drops against copies would take a clone's drop for a copy's.
 */
static void clone_drop(int self_ns)
{
	struct flow_find fa = { .sport = 40004, .isn = 0x0c10ed00 };
	struct flow_find fb = { .sport = 40005, .isn = 0x0c10ed01 };
	__u64 c0[CNT_MAX], c1[CNT_MAX];
	int fd, raw, lfd;
	uint16_t closed;
	char peek[64];

	if (netns_set(self_ns, "server"))
		exit(1);
	lfd = start_listener(AF_INET, TOPO_TUN_SELF4, 0, 0, 8);
	closed = closed_port();
	fd = tun_open();
	raw = socket(AF_INET, SOCK_RAW, IPPROTO_TCP);
	if (lfd < 0 || !closed || fd < 0 || raw < 0 || capture_counters(&cc, c0)) {
		CHECK(0, "clone drop: set-up failed");
		exit(1);
	}
	tun_write(fd, fa.sport, socket_port(lfd), TH_SYN, fa.isn, 0);
	tun_write(fd, fb.sport, closed, TH_SYN, fb.isn, 0);
	usleep(200000);
	CHECK(recv(raw, peek, sizeof(peek), MSG_PEEK | MSG_DONTWAIT) > 0,
	      "clone drop: the raw socket holds no clone of the SYNs");
	close(raw);
	usleep(200000);
	CHECK(capture_counters(&cc, c1) == 0, "read counters");
	capture_each_unbound(&cc, find_flow, &fa);
	capture_each_unbound(&cc, find_flow, &fb);
	CHECK(fa.found && fb.found, "clone drop: the tun SYNs were not captured");
	CHECK_EQ_INT(c1[CNT_CAPTURED] - c0[CNT_CAPTURED], 2);
	CHECK_EQ_INT(c1[CNT_SYNACK_REQ] - c0[CNT_SYNACK_REQ], 1);
	CHECK_EQ_INT(c1[CNT_SYN_DROPPED] - c0[CNT_SYN_DROPPED], 1);
	CHECK_EQ_INT(c1[CNT_DROP_NOT_COPY] - c0[CNT_DROP_NOT_COPY], 2);
	CHECK_EQ_INT(c1[CNT_DROP_ELSEWHERE] - c0[CNT_DROP_ELSEWHERE], 0);
	CHECK_EQ_INT(c1[CNT_COPY_SHARED_CLONE] - c0[CNT_COPY_SHARED_CLONE], 0);
	CHECK_EQ_INT(fa.rec.copies, 1);
	CHECK_EQ_INT(fa.rec.drops, 0);
	CHECK(!(fa.rec.flags & CAP_F_DROPPED), "clone drop: the request's copy is marked dropped");
	CHECK_EQ_INT(fb.rec.copies, 1);
	CHECK_EQ_INT(fb.rec.drops, 1);
	CHECK(fb.rec.flags & CAP_F_DROPPED, "clone drop: the closed port's copy is not dropped");
	if (fa.found)
		capture_take_flow(&cc, &fa.key, &fa.rec);
	if (fb.found)
		capture_take_flow(&cc, &fb.key, &fb.rec);
	close(fd);
	close(lfd);
}

/*
 * A copy cloned while shared: a packet socket bound to tun0 for IPv4 alone is delivered the
 * frame beside IP, so IP gets it shared, clones it (skb_share_check()) and goes on with the
 * clone, while the copy's own sk_buff waits in the packet socket. Counted (by each twin of the
 * clone program): the run fails on it
 * ("copies cloned while shared"), for which of the two TCP had, and so which drop is the
 * copy's, is not known.
 */
static void shared_clone(int self_ns)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_IP) };
	__u64 c0[CNT_MAX], c1[CNT_MAX];
	struct flow_find f = { .sport = 40006, .isn = 0x5ba2ed00 };
	struct ifreq ifr = { .ifr_name = "tun0" };
	int fd, pfd, lfd;

	if (netns_set(self_ns, "server"))
		exit(1);
	lfd = start_listener(AF_INET, TOPO_TUN_SELF4, 0, 0, 8);
	fd = tun_open();
	pfd = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_IP));
	if (pfd >= 0 && !ioctl(pfd, SIOCGIFINDEX, &ifr))
		sll.sll_ifindex = ifr.ifr_ifindex;
	if (lfd < 0 || fd < 0 || pfd < 0 || !sll.sll_ifindex ||
	    bind(pfd, (struct sockaddr *)&sll, sizeof(sll)) || capture_counters(&cc, c0)) {
		CHECK(0, "shared clone: set-up failed");
		exit(1);
	}
	tun_write(fd, f.sport, socket_port(lfd), TH_SYN, f.isn, 0);
	usleep(200000);
	CHECK(capture_counters(&cc, c1) == 0, "read counters");
	CHECK_EQ_INT(c1[CNT_CAPTURED] - c0[CNT_CAPTURED], 1);
	CHECK_EQ_INT(c1[CNT_SYNACK_REQ] - c0[CNT_SYNACK_REQ], 1);
	CHECK_EQ_INT(c1[CNT_COPY_SHARED_CLONE] - c0[CNT_COPY_SHARED_CLONE], 2);
	close(pfd);
	capture_each_unbound(&cc, find_flow, &f);
	if (f.found)
		capture_take_flow(&cc, &f.key, &f.rec);
	close(fd);
	close(lfd);
}

/* A SYN @frame into s0 twice in one list (list_frames.bpf.c: live XDP frames, TTL @ttl[0] then
 * @ttl[1]), as a NAPI batch reaches the stack; s0 has XDP on (a program that passes every
 * frame) only meanwhile. Returns 0, or -1 with the failure said. */
static int list_pair(const uint8_t *frame, size_t len, const uint8_t ttl[2])
{
	struct xdp_md md = { .data_end = (__u32)len, .ingress_ifindex = TOPO_IFINDEX_S0 };
	LIBBPF_OPTS(bpf_test_run_opts, run, .data_in = frame, .data_size_in = (__u32)len,
		    .ctx_in = &md, .ctx_size_in = sizeof(md), .repeat = 2, .batch_size = 2,
		    .flags = BPF_F_TEST_XDP_LIVE_FRAMES);
	struct list_frames_bpf *lf = list_frames_bpf__open_and_load();
	int err = -1;

	if (!lf || bpf_xdp_attach(TOPO_IFINDEX_S0, bpf_program__fd(lf->progs.pass),
				  XDP_FLAGS_DRV_MODE, NULL)) {
		log_err("list_frames");
		list_frames_bpf__destroy(lf);
		return -1;
	}
	memcpy(lf->bss->ttl, ttl, 2);
	err = bpf_prog_test_run_opts(bpf_program__fd(lf->progs.list_frames), &run);
	if (err || lf->bss->frames != 2)
		fprintf(stderr, "list_frames: run %d, %u frames\n", err, lf->bss->frames);
	err = err || lf->bss->frames != 2 ? -1 : 0;
	if (bpf_xdp_detach(TOPO_IFINDEX_S0, XDP_FLAGS_DRV_MODE, NULL)) {
		log_err("list_frames: XDP left on s0");
		err = -1;
	}
	list_frames_bpf__destroy(lf);
	return err;
}

/* s0's MAC address into @mac (the server netns); false on failure. */
static bool s0_mac(uint8_t mac[6])
{
	struct ifreq ifr = { .ifr_name = "s0" };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	bool ok = fd >= 0 && !ioctl(fd, SIOCGIFHWADDR, &ifr);

	if (ok)
		memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	if (fd >= 0)
		close(fd);
	return ok;
}

/*
 * Which copy the kernel dropped and which it saved, where two copies share a tag: one SYN twice,
 * with TTL 63 and 64 (the tag covers the IP ID and the TCP header, not the TTL), into s0 as one
 * list, so tc captures both before TCP sees the first. The listener (IP_MINTTL 64, TCP_SAVE_SYN)
 * drops the TTL 63 copy and makes its request of the TTL 64 one, saving it; with TTL 64 first,
 * the second copy is dropped as a retransmission of the request's SYN. Each mark must land on the
 * copy it is of, which the copy's own sk_buff names (copy_skbs.bpf.h): by the tag, the first
 * copy's drop or save lands on the second (the latest not yet marked), and the judges would read
 * a save of the copy the kernel dropped.
 */
static void same_tag_pair(int self_ns, uint8_t first, uint16_t sport)
{
	const uint8_t ttl[2] = { first, first == 63 ? 64 : 63 };
	struct flow_find f = { .sport = sport, .isn = 0x7a9c0000u + sport };
	struct capture_rec copy[2] = { { .cap_len = 0 } };
	uint8_t frame[14 + 44] = { [12] = 0x08, [6] = 0x02, [11] = 0x01 };
	__u64 c0[CNT_MAX], c1[CNT_MAX];
	int lfd, minttl = 64, i;
	size_t len;

	if (netns_set(self_ns, "server"))
		exit(1);
	lfd = start_listener(AF_INET, SRV4, 0, 1, 8);
	if (lfd < 0 || setsockopt(lfd, IPPROTO_IP, IP_MINTTL, &minttl, sizeof(minttl)) ||
	    !s0_mac(frame) || capture_counters(&cc, c0)) {
		CHECK(0, "same tag: set-up failed");
		exit(1);
	}
	len = 14 + segment4(frame + 14, TOPO_CLIENT4, SRV4, sport, socket_port(lfd), TH_SYN,
			    f.isn, 0);
	CHECK(list_pair(frame, len, ttl) == 0, "same tag: the frames were not sent");
	usleep(200000);
	CHECK(capture_counters(&cc, c1) == 0, "read counters");
	CHECK_EQ_INT(c1[CNT_CAPTURED] - c0[CNT_CAPTURED], 2);
	CHECK_EQ_INT(c1[CNT_SYN_DROPPED] - c0[CNT_SYN_DROPPED], 1);
	CHECK_EQ_INT(c1[CNT_FATE_UNMATCHED] - c0[CNT_FATE_UNMATCHED], 0);
	CHECK_EQ_INT(c1[CNT_DROP_NOT_COPY] - c0[CNT_DROP_NOT_COPY], 0);
	capture_each_unbound(&cc, find_flow, &f);
	CHECK(f.found, "same tag (TTL %u first): the SYN was not captured", first);
	if (!f.found) {
		close(lfd);
		return;
	}
	CHECK_EQ_INT(f.rec.copies, 2);
	CHECK_EQ_INT(f.rec.drops, 1);
	copy[1] = f.rec;
	CHECK_EQ_INT(capture_take_copies(&cc, &f.rec, &copy[0], 1), 1);
	capture_take_flow(&cc, &f.key, &f.rec);
	for (i = 0; i < 2; i++) {
		bool low = copy[i].data[14 + 8] == 63;

		CHECK(copy[i].cap_len == len && copy[i].data[14 + 8] == ttl[i],
		      "same tag: copy %d has TTL %u, sent %u", i, copy[i].data[14 + 8], ttl[i]);
		CHECK(!!(copy[i].flags & CAP_F_DROPPED) == low,
		      "same tag (TTL %u first): copy %d (TTL %u) %s dropped", first, i,
		      copy[i].data[14 + 8], low ? "not" : "marked");
		CHECK(!!(copy[i].flags & CAP_F_SAVED) == !low,
		      "same tag (TTL %u first): copy %d (TTL %u) %s saved", first, i,
		      copy[i].data[14 + 8], low ? "marked" : "not");
	}
	CHECK_EQ_INT(copy[0].tag, copy[1].tag);
	close(lfd);
}

/* A TCP_SAVE_SYN 1 listener on [::], any port, taking IPv4 connections too (IPV6_V6ONLY 0,
 * set before bind as it must be). Returns the fd or -1. */
static int dual_stack_listener(void)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6 };
	int fd = socket(AF_INET6, SOCK_STREAM, 0), off = 0, save = 1;

	if (fd < 0 || setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off)) ||
	    setsockopt(fd, IPPROTO_TCP, TCP_SAVE_SYN, &save, sizeof(save)) ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 8)) {
		log_err("dual-stack listener");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static int find_tun(const struct capture_key *k, const struct capture_rec *r, void *arg)
{
	if (k->family == AF_INET && ntohs(k->sport) == 40000 && k->seq == 0x11223344) {
		*(struct capture_rec *)arg = *r;
		return 1;
	}
	return 0;
}

/*
 * --ring-drops N (the witness attached with --ring-bytes 4096): N connections bound while
 * nothing reads the ring, then each taken by its cookie. Exactly as many records as fit stay
 * (4096 bytes over each record's size with the ring's 8-byte header, rounded up to 8); every
 * other is counted in ring_drops, found by no cookie, and counted as lost by
 * capture_evictions(), while its flow entry waits in the map.
 */
static int ring_drops(int n)
{
	const size_t slot = (sizeof(struct bound_rec) + 8 + 7) & ~(size_t)7;
	const int fit = (int)(4096 / slot);
	int lfd, cfd[64], afd[64], found = 0, i;
	__u64 cookie[64], cnt[CNT_MAX];
	struct capture_rec rec;
	socklen_t clen;

	if (n < fit + 1 || n > 64 || capture_client_open(&cc) || enter_netns("server") ||
	    (lfd = start_listener(AF_INET, SRV4, 0, 1, 64)) < 0 || enter_netns("client"))
		return 2;
	for (i = 0; i < n; i++) {
		cfd[i] = connect_to(AF_INET, SRV4, socket_port(lfd));
		afd[i] = cfd[i] < 0 ? -1 : accept(lfd, NULL, NULL);
		clen = sizeof(cookie[i]);
		if (afd[i] < 0 || getsockopt(afd[i], SOL_SOCKET, SO_COOKIE, &cookie[i], &clen))
			return 2;
	}
	for (i = 0; i < n; i++)
		found += capture_take_bound(&cc, cookie[i], &rec, NULL) == 0;
	CHECK(capture_counters(&cc, cnt) == 0, "read counters");
	CHECK_EQ_INT(found, fit);
	/* bound counts the records the ring took; every socket had a capture */
	CHECK_EQ_INT(cnt[CNT_BOUND], fit);
	CHECK_EQ_INT(cnt[CNT_RING_DROPS], n - fit);
	CHECK_EQ_INT(cnt[CNT_BIND_MISS], 0);
	CHECK_EQ_INT(capture_evictions(&cc), n - fit);
	printf("%d connections, %d records of %zu bytes fit a 4096-byte ring, %llu dropped\n", n,
	       fit, slot, (unsigned long long)cnt[CNT_RING_DROPS]);
	for (i = 0; i < n; i++) {
		close(afd[i]);
		close(cfd[i]);
	}
	capture_client_close(&cc);
	return check_report("guest_witness ring drops");
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "--ring-drops"))
		return ring_drops(atoi(argv[2]));
	int per = argc > 1 ? atoi(argv[1]) : 250;
	int l[2][2], self_ns, total = 0, i, f, m;
	struct capture_rec tun_rec = { .cap_len = 0 };
	__u64 cnt[CNT_MAX];
	struct bpf_error e;

	if (capture_client_open(&cc) || enter_netns("server"))
		return 1;
	self_ns = netns_here();
	for (f = 0; f < 2; f++)
		for (m = 0; m < 2; m++)
			l[f][m] = start_listener(f ? AF_INET6 : AF_INET, f ? SRV6 : SRV4, TOPO_PORT_BASE + m,
						 m + 1, 128);
	int ltun = start_listener(AF_INET, TOPO_TUN_SELF4, TOPO_CLOSE_PORT, 1, 8);
	int ldual = dual_stack_listener();

	if (enter_netns("client"))
		return 1;
	for (i = 0; i < per; i++)
		for (f = 0; f < 2; f++)
			for (m = 0; m < 2; m++, total++)
				one_conn(f ? AF_INET6 : AF_INET, l[f][m], m + 1, 0, 0, NULL, 0);
	printf("%d connections over veth compared\n", total);

	/* NOP + Record Route with two slots: 12 bytes of IPv4 options. */
	uint8_t rr[12] = { 1, 7, 11, 4 };
	CHECK_EQ_INT(one_conn(AF_INET, l[0][0], 1, IPPROTO_IP, IP_OPTIONS, rr, sizeof(rr)), 32);
	/* A destination-options header holding one 4-byte PadN: 8 bytes. */
	uint8_t dst[8] = { 0, 0, 1, 4, 0, 0, 0, 0 };
	CHECK_EQ_INT(one_conn(AF_INET6, l[1][0], 1, IPPROTO_IPV6, IPV6_DSTOPTS, dst, sizeof(dst)), 48);
	total += 2;
	/* An IPv4 connection accepted by a dual-stack IPv6 listener: the socket is AF_INET6 with
	 * v4-mapped addresses, the SYN and its saved copy are IPv4, and the witness binds it. */
	CHECK(ldual >= 0, "dual-stack listener");
	if (ldual >= 0)
		CHECK_EQ_INT(one_conn(AF_INET, ldual, 1, 0, 0, NULL, 0), 20);
	total++;

	if (self_ns < 0 || netns_set(self_ns, "server"))
		return 1;
	tun_syn(socket_port(ltun));
	capture_each_unbound(&cc, find_tun, &tun_rec);
	CHECK(tun_rec.cap_len == 44, "tun capture length %u, want 44", tun_rec.cap_len);
	CHECK_EQ_INT(tun_rec.mac_len, 0);
	CHECK_EQ_INT(tun_rec.net_len, 20);
	CHECK_EQ_INT(tun_rec.tcp_len, 24);

	CHECK(capture_counters(&cc, cnt) == 0, "read counters");
	CHECK_EQ_INT(cnt[CNT_BOUND], total);
	CHECK_EQ_INT(cnt[CNT_SYN_SEEN], cnt[CNT_CAPTURED]);
	CHECK_EQ_INT(cnt[CNT_CAPTURED], total + 1);
	CHECK_EQ_INT(cnt[CNT_BIND_MISS], 0);
	CHECK_EQ_INT(cnt[CNT_INSERT_FAIL] + cnt[CNT_RING_DROPS] + cnt[CNT_PARSE_ERR], 0);
	CHECK_EQ_INT(cnt[CNT_BPF_ERRORS], 0);
	cookie_then_request(self_ns);
	drop_elsewhere(self_ns);
	clone_drop(self_ns);
	shared_clone(self_ns);
	same_tag_pair(self_ns, 63, 40007);
	same_tag_pair(self_ns, 64, 40008);
	for (__u32 s = 0; s < 2; s++)
		if (capture_error(&cc, s, &e) == 0 && e.line)
			CHECK(0, "BPF error in %s at line %u: %d", s ? "sockops" : "tc", e.line, e.err);
	capture_client_close(&cc);
	return check_report("guest_witness");
}
