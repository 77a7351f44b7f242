// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the generators' seeded choices: the socket-knob matrix is reproducible from
 * the seed, differs between seeds, and the default mix reaches every knob value in 10,000
 * connections (what `syntwin run` makes); the socket generator's options and the count of a
 * selection (gen/sock_gen.h); the crafted sequence (gen/walk.h).
 */
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include <stdlib.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include "check.h"
#include "craft.h"
#include "knobs.h"
#include "profile.h"
#include "rng.h"
#include "sock_gen.h"
#include "topology.h"
#include "walk.h"

#define N 10000

static void sequence(uint64_t seed, char (*out)[208], int n)
{
	struct knobs k = { .sack = -1, .timestamps = -1, .wscale = -1, .ecn = -1 };
	uint64_t rng = seed;

	for (int i = 0; i < n; i++) {
		if (i % 64 == 0)
			knobs_pick_sysctls(&rng, &knob_mix_default, &k);
		knobs_pick(&rng, (uint64_t)i, &knob_mix_default, &k);
		knobs_describe(&k, out[i], sizeof(out[i]));
	}
}

static char a[N][208], b[N][208], c[N][208];

static void test_reproducible(void)
{
	int same = 0, differ = 0;

	sequence(1, a, N);
	sequence(1, b, N);
	sequence(2, c, N);
	for (int i = 0; i < N; i++) {
		same += !strcmp(a[i], b[i]);
		differ += !!strcmp(a[i], c[i]);
	}
	CHECK_EQ_INT(same, N);
	CHECK(differ > N / 4, "seed 1 and 2 differ in only %d of %d connections", differ, N);
}

/* Every value of every knob appears in the default mix's 10,000 connections. */
static void test_coverage(void)
{
	static const char *const want[] = {
		"mss=536", "mss=1000", "mss=1220", "mss=1400", "mss=1440",
		"rcvbuf=2048", "rcvbuf=8192", "rcvbuf=65536", "rcvbuf=262144", "rcvbuf=4194304",
		"tos=0x10", "tos=0x28", "tos=0x48", "tos=0xb8", "tos=0xe0",
		"ttl=1 ", "ttl=32", "ttl=64", "ttl=128", "ttl=255",
		"ipopt=nop", "ipopt=rr", "ipopt=ts", "v6ext=hop ", "v6ext=dst", "v6ext=hop+dst",
		"tfo", "md5", "sport=", "vlan=qinq", "vlan=1q", "sack=0", "sack=1", "timestamps=0", "timestamps=1",
		"wscale=0", "wscale=1", "ecn=0", "ecn=1", "ecn=2", "plain",
	};
	char line[256];

	for (size_t w = 0; w < sizeof(want) / sizeof(want[0]); w++) {
		int seen = 0;

		for (int i = 0; i < N && !seen; i++) {
			snprintf(line, sizeof(line), "%.208s ", a[i]); /* "ttl=1 " must not match ttl=128 */
			seen = strstr(line, want[w]) != NULL;
		}
		CHECK(seen, "knob value '%s' never drawn in %d connections", want[w], N);
	}
}

static void test_families_and_modes(void)
{
	struct knobs k = { .sack = -1, .timestamps = -1, .wscale = -1, .ecn = -1 };
	uint64_t rng = 7;
	int seen[2][3] = { { 0 } };

	for (int i = 0; i < 8; i++) {
		knobs_pick(&rng, (uint64_t)i, &knob_mix_default, &k);
		seen[k.family == AF_INET6][k.mode]++;
		CHECK(!(k.family == AF_INET6 && k.ipopt), "IPv4 options on an IPv6 socket");
		CHECK(!(k.family == AF_INET && k.v6ext), "IPv6 extension headers on an IPv4 socket");
		CHECK(!(k.tfo && k.md5), "TFO and MD5 together");
		CHECK(!(k.vlan && k.md5), "MD5 over a VLAN (its address is on c0 only)");
	}
	CHECK(seen[0][1] == 2 && seen[0][2] == 2 && seen[1][1] == 2 && seen[1][2] == 2,
	      "families x modes not spread evenly over 8 connections");
}

static void test_option_bytes(void)
{
	uint8_t buf[40];

	CHECK_EQ_INT(knobs_ipopt_bytes(IPOPT_NONE, buf), 0);
	CHECK_EQ_INT(knobs_ipopt_bytes(IPOPT_RR, buf), 12);
	CHECK(buf[1] == 7 && buf[2] == 11 && buf[3] == 4, "RR option bytes");
	CHECK_EQ_INT(knobs_ipopt_bytes(IPOPT_TS, buf) % 4, 0);
	CHECK_EQ_INT(knobs_v6ext_bytes(buf), 8);
}

/* The SYN profile format (profile.h): fields, exact option bytes, and file:line errors. */
static void test_profile(void)
{
	static const uint8_t linux_opts[] = { 2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0,
					      1, 3, 3, 7 };
	struct syn_shape sh[4];
	char err[256], path[] = "/tmp/syntwin-profile-XXXXXX";
	size_t n = 0;
	FILE *f;
	int fd;

	CHECK_EQ_INT(profile_parse_line("linux family=4 ttl=64 win=64240 "
					"tcpopt=mss:1460,sok,ts:1:0,nop,ws:7", "t", &sh[0], err,
					sizeof(err)), 1);
	CHECK(!strcmp(sh[0].name, "t/linux"), "name %s", sh[0].name);
	CHECK_EQ_INT(sh[0].tcpopt_len, sizeof(linux_opts));
	CHECK(!memcmp(sh[0].tcpopt, linux_opts, sizeof(linux_opts)), "option bytes");
	CHECK_EQ_INT(profile_parse_line("edge family=6 flags=SEC res=1 urg=7 flow=5 "
					"ext=hop:010400000000,dst:010400000000 "
					"tcpopt=eol,hex:aabbcc", "t", &sh[1], err, sizeof(err)), 1);
	CHECK_EQ_INT(sh[1].flags, 0x02 | 0x40 | 0x80);
	CHECK_EQ_INT(sh[1].next_ext, 2);
	CHECK_EQ_INT(sh[1].ext[1].type, 60);
	CHECK_EQ_INT(profile_parse_line("  # just a comment", "t", &sh[2], err, sizeof(err)), 0);
	CHECK_EQ_INT(profile_parse_line("", "t", &sh[2], err, sizeof(err)), 0);
	CHECK_EQ_INT(profile_parse_line("x family=4 tcpopt=mss:1460,nop", "t", &sh[2], err,
					sizeof(err)), -1);
	CHECK_STR_CONTAINS(err, "not a multiple of 4");
	CHECK_EQ_INT(profile_parse_line("x family=4 colour=blue", "t", &sh[2], err, sizeof(err)), -1);
	CHECK_STR_CONTAINS(err, "unknown field 'colour'");
	CHECK_EQ_INT(profile_parse_line("x family=6 ipopt=01010100", "t", &sh[2], err,
					sizeof(err)), -1);
	CHECK_STR_CONTAINS(err, "IPv4 fields");
	CHECK_EQ_INT(profile_parse_line("x family=4 flags=A", "t", &sh[2], err, sizeof(err)), -1);
	CHECK_EQ_INT(profile_parse_line("x family=4 tcpopt=wat", "t", &sh[2], err, sizeof(err)), -1);
	CHECK_EQ_INT(profile_parse_line("x family=4 bad=doff-long", "t", &sh[2], err, sizeof(err)), 1);
	CHECK_EQ_INT(sh[2].bad, BAD_DOFF_LONG);
	/* A must-drop shape by a rule of the drop table: made as written, the rule named. */
	CHECK_EQ_INT(profile_parse_line("x family=4 flags=SFPU drop=syn-fin", "t", &sh[2], err,
					sizeof(err)), 1);
	CHECK_EQ_INT(sh[2].flags, 0x02 | 0x01 | 0x08 | 0x20);
	CHECK_EQ_INT(sh[2].bad, BAD_RULE);
	CHECK(!strcmp(sh[2].drop_rule, "syn-fin"), "drop rule %s", sh[2].drop_rule);
	/* since=: the rule holds from a kernel version on (walk_load_profiles() decides) */
	CHECK_EQ_INT(profile_parse_line("x family=4 drop=auth-hdr since=6.7", "t", &sh[2], err,
					sizeof(err)), 1);
	CHECK(sh[2].since_major == 6 && sh[2].since_minor == 7 && sh[2].bad == BAD_RULE, "since");
	CHECK_EQ_INT(profile_parse_line("x family=4 drop=auth-hdr since=6", "t", &sh[2], err,
					sizeof(err)), -1);
	CHECK_STR_CONTAINS(err, "since=6: want the kernel version");
	CHECK_EQ_INT(profile_parse_line("x family=4 since=6.7", "t", &sh[2], err, sizeof(err)), -1);
	CHECK_STR_CONTAINS(err, "since= needs drop=RULE");
	CHECK_EQ_INT(profile_parse_line("x family=4 flags=SR drop=Syn_Rst", "t", &sh[2], err,
					sizeof(err)), -1);
	CHECK_STR_CONTAINS(err, "drop=Syn_Rst: want a rule name");
	/* src=/dst=: the shape's own addresses, of its family, for a drop rule only */
	CHECK_EQ_INT(profile_parse_line("x family=6 src=::ffff:198.19.0.1 drop=src-v4mapped-v6", "t",
					&sh[2], err, sizeof(err)), 1);
	CHECK_EQ_INT(sh[2].addr_family[0], 6);
	CHECK_EQ_INT(sh[2].addr_family[1], 0);
	CHECK_EQ_INT(sh[2].addr[0][10], 0xff);
	CHECK_EQ_INT(sh[2].addr[0][15], 1);
	CHECK_EQ_INT(profile_parse_line("x family=4 dst=fd00::1 drop=x", "t", &sh[2], err,
					sizeof(err)), -1);
	CHECK_STR_CONTAINS(err, "dst= is not an IPv4 address");
	CHECK_EQ_INT(profile_parse_line("x family=4 src=224.0.0.5", "t", &sh[2], err, sizeof(err)),
		     -1);
	CHECK_STR_CONTAINS(err, "src= needs drop=RULE");
	CHECK_EQ_INT(profile_parse_line("x family=4 src=224.0.0 drop=x", "t", &sh[2], err,
					sizeof(err)), -1);
	CHECK_STR_CONTAINS(err, "want an IPv4 or IPv6 address");
	CHECK_EQ_INT(profile_parse_line("x family=4 flags=SX", "t", &sh[2], err, sizeof(err)), -1);
	CHECK_STR_CONTAINS(err, "'X' is not E, C, U, P, F, R or A");
	CHECK_EQ_INT(profile_parse_line("x family=4 flags=SA", "t", &sh[2], err, sizeof(err)), -1);
	CHECK_STR_CONTAINS(err, "flags with A need drop=RULE");
	CHECK_EQ_INT(profile_parse_line("x family=4 flags=SAR drop=syn-ack-to-listener", "t",
					&sh[2], err, sizeof(err)), 1);
	CHECK_EQ_INT(sh[2].flags, 0x02 | 0x10 | 0x04);
	/* Numbers: decimal or 0x hex, never octal; no sign. */
	CHECK_EQ_INT(profile_parse_line("x family=4 ttl=010 tos=0x1c", "t", &sh[2], err,
					sizeof(err)), 1);
	CHECK_EQ_INT(sh[2].ttl, 10);
	CHECK_EQ_INT(sh[2].tos, 0x1c);
	CHECK_EQ_INT(profile_parse_line("x family=4 ttl=-1", "t", &sh[2], err, sizeof(err)), -1);
	CHECK_EQ_INT(profile_parse_line("x family=4 ttl=0x", "t", &sh[2], err, sizeof(err)), -1);
	/* Four 64-byte IPv6 extension headers and 40 bytes of TCP options: 356 header bytes, more
	 * than the crafter holds. The line is refused; 242 exactly is taken. */
	{
		char line[1024], body[125];
		int k = snprintf(line, sizeof(line), "x family=6 ext=");

		memset(body, '0', 124);
		body[124] = 0;
		for (int i = 0; i < 4; i++)
			k += snprintf(line + k, sizeof(line) - (size_t)k, "%sdst:%s", i ? "," : "", body);
		snprintf(line + k, sizeof(line) - (size_t)k, " tcpopt=hex:%080d", 0);
		CHECK_EQ_INT(profile_parse_line(line, "t", &sh[2], err, sizeof(err)), -1);
		CHECK_STR_CONTAINS(err, "headers take 356 bytes, more than 242");
		/* two headers and 40 option bytes: 40 + 128 + 20 + 40 = 228, taken */
		snprintf(line, sizeof(line), "x family=6 ext=dst:%s,dst:%s tcpopt=hex:%080d", body,
			 body, 0);
		CHECK_EQ_INT(profile_parse_line(line, "t", &sh[2], err, sizeof(err)), 1);
		CHECK_EQ_INT((int)shape_header_bytes(&sh[2]), 40 + 128 + 20 + 40);
	}

	fd = mkstemp(path);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	CHECK(f != NULL, "temp profile");
	if (!f)
		return;
	fprintf(f, "# two good, then a bad one\na family=4\nb family=6\nc family=5\n");
	fclose(f);
	CHECK_EQ_INT(profile_load(path, sh, 4, &n, err, sizeof(err)), -1);
	CHECK_EQ_INT(n, 2);
	CHECK_STR_CONTAINS(err, ":4: family=5");
	unlink(path);
}

/* A checksum written differently from common/inet_csum.c: 32-bit words, carries folded last. */
static uint16_t naive_sum(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < alen; i++)
		sum += i % 2 ? a[i] : (uint64_t)a[i] << 8;
	for (size_t i = 0; i < blen; i++)
		sum += i % 2 ? b[i] : (uint64_t)b[i] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* TCP checksum check the long way: the pseudo-header built by hand. */
static int tcp_ok(const uint8_t *p, size_t len)
{
	uint8_t ph[40] = { 0 };
	size_t off, phl;

	if (p[0] >> 4 == 4) {
		off = (p[0] & 0x0f) * 4u;
		memcpy(ph, p + 12, 8);
		ph[9] = 6, ph[10] = (uint8_t)((len - off) >> 8), ph[11] = (uint8_t)(len - off);
		phl = 12;
	} else {
		uint8_t next = p[6];

		for (off = 40; next != 6; off += (p[off + 1] + 1u) * 8u)
			next = p[off];
		memcpy(ph, p + 8, 32);
		ph[34] = (uint8_t)((len - off) >> 8), ph[35] = (uint8_t)(len - off), ph[39] = 6;
		phl = 40;
	}
	return naive_sum(ph, phl, p + off, len - off) == 0xffff;
}

/* Every shipped profile parses; every shape crafts to a packet with right checksums (two
 * independent routines agree) except bad=csum; libpcap reads the bytes back unchanged; the same
 * seed gives the same bytes. */
static void test_craft(const char *dir)
{
	static struct syn_shape sh[512];
	static const char *const files[] = { "linux", "windows", "macos", "freebsd", "android",
					     "edge", "rejected" };
	char path[512], err[300], pc[] = "/tmp/syntwin-craft-XXXXXX";
	size_t n = 0;
	int fd = mkstemp(pc);
	pcap_t *dead = pcap_open_dead(DLT_RAW, 65535);
	pcap_dumper_t *d = fd >= 0 ? pcap_dump_fopen(dead, fdopen(fd, "w")) : NULL;
	uint8_t pkts[512][CRAFT_MAX];
	size_t lens[512];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s.syn", dir, files[i]);
		CHECK(profile_load(path, sh, 512, &n, err, sizeof(err)) == 0, "%s", err);
	}
	CHECK(n >= 25, "only %zu shapes shipped", n);
	CHECK(d != NULL, "pcap dumper");
	for (size_t i = 0; i < n && d; i++) {
		struct flow f = { .family = sh[i].family, .sport = 30000, .dport = 7001,
				  .src = { 198, 19, 0, 1 }, .dst = { 198, 19, 0, 2 } };
		uint64_t r1 = 42, r2 = 42;
		uint8_t again[CRAFT_MAX];
		struct pcap_pkthdr h = { 0 };

		if (sh[i].family == 6) {
			memset(f.src, 0, 16), memset(f.dst, 0, 16);
			f.src[0] = f.dst[0] = 0xfd, f.src[15] = 1, f.dst[15] = 2;
		}
		lens[i] = craft_syn(&sh[i], &f, (uint32_t)rng_next(&r1), pkts[i]);
		CHECK(lens[i] == craft_syn(&sh[i], &f, (uint32_t)rng_next(&r2), again) &&
		      !memcmp(pkts[i], again, lens[i]), "%s: same seed, other bytes", sh[i].name);
		if (sh[i].bad == BAD_CSUM) {
			CHECK(craft_verify(pkts[i], lens[i]) != 0, "%s: checksum not broken", sh[i].name);
			CHECK(!tcp_ok(pkts[i], lens[i]), "%s: naive sum says right", sh[i].name);
		} else {
			CHECK(craft_verify(pkts[i], lens[i]) == 0, "%s: bad checksum", sh[i].name);
			CHECK(tcp_ok(pkts[i], lens[i]), "%s: naive TCP sum disagrees", sh[i].name);
		}
		h.caplen = h.len = (bpf_u_int32)lens[i];
		pcap_dump((u_char *)d, &h, pkts[i]);
	}
	if (d) {
		pcap_dump_close(d);
		pcap_t *p = pcap_open_offline(pc, err);
		struct pcap_pkthdr *h;
		const u_char *data;
		size_t i = 0;

		CHECK(p != NULL, "pcap_open_offline: %s", err);
		while (p && pcap_next_ex(p, &h, &data) == 1 && i < n) {
			CHECK(h->caplen == lens[i] && !memcmp(data, pkts[i], lens[i]),
			      "%s: libpcap read back other bytes", sh[i].name);
			i++;
		}
		CHECK_EQ_INT(i, n);
		if (p)
			pcap_close(p);
	}
	pcap_close(dead);
	unlink(pc);
}

/* The socket generator's options, as syntwin-client --count and the run's plan give them. */
static void test_sock_gen_opts(void)
{
	struct sock_gen_opts o;
	char err[256] = "";
	uint64_t cnt = 99;

	sock_gen_opts_init(&o);
	CHECK(o.n == 1000 && o.seed == 1 && o.parallel == 1 && !o.active && o.cookie_at == -1 &&
	      o.test_reset == -1 && o.mix == &knob_mix_default && !strcmp(o.netns, "client"),
	      "defaults");
	CHECK(sock_gen_flag(&o, "active") && o.active, "--active is a flag");
	CHECK(!sock_gen_flag(&o, "connections"), "--connections is no flag");
	CHECK_EQ_INT(sock_gen_opt(&o, "parallel", "16", err, sizeof(err)), 1);
	CHECK_EQ_INT((int)o.parallel, 16);
	CHECK_EQ_INT(sock_gen_opt(&o, "parallel", "65", err, sizeof(err)), -1);
	CHECK(strstr(err, "--parallel") != NULL, "the bad option named: %s", err);
	CHECK_EQ_INT(sock_gen_opt(&o, "connections", "0", err, sizeof(err)), -1);
	CHECK_EQ_INT(sock_gen_opt(&o, "mix", "plain", err, sizeof(err)), 1);
	CHECK(o.mix == &knob_mix_plain, "--mix plain");
	CHECK_EQ_INT(sock_gen_opt(&o, "mix", "fancy", err, sizeof(err)), 0);
	CHECK_EQ_INT(sock_gen_opt(&o, "out", "/tmp", err, sizeof(err)), 0);
	CHECK_EQ_INT(sock_gen_opt(&o, "test-reset", "5", err, sizeof(err)), 1);
	CHECK_EQ_INT((int)o.test_reset, 5);

	/* the syncookie phase: the last N by default, else from I on, inside the run */
	CHECK_EQ_INT(sock_gen_opt(&o, "connections", "100", err, sizeof(err)), 1);
	CHECK_EQ_INT(sock_gen_opt(&o, "syncookie-tail", "10", err, sizeof(err)), 1);
	CHECK_EQ_INT(sock_gen_opts_check(&o, err, sizeof(err)), 0);
	CHECK_EQ_INT((int)o.cookie_at, 90);
	o.cookie_at = 91;
	CHECK_EQ_INT(sock_gen_opts_check(&o, err, sizeof(err)), -1);
	CHECK(!strcmp(err, "--syncookie-at 91 + --syncookie-tail 10 exceeds --connections"),
	      "%s", err);

	/* a shard's count: the indexes i % N == I of the whole sequence */
	CHECK_EQ_INT(sock_gen_opt(&o, "connections", "10", err, sizeof(err)), 1);
	CHECK_EQ_INT(sock_gen_opt(&o, "shard", "1/4", err, sizeof(err)), 1);
	CHECK_EQ_INT(sock_gen_count(&o, &cnt), 0);
	CHECK_EQ_INT((int)cnt, 3);
	o.shard = "4/4";
	CHECK_EQ_INT(sock_gen_count(&o, &cnt), -1);
	o.shard = NULL;
	CHECK_EQ_INT(sock_gen_count(&o, &cnt), 0);
	CHECK_EQ_INT((int)cnt, 10);
}

/* The crafted sequence: good shapes round robin for N connections, each must-drop shape once in
 * its turn, a shard's selection marked, the ports and ISNs from the seed alone. */
static void test_walk(void)
{
	static struct shape_set set;
	struct rerun_set all = { 0 }, shard = { 0 };
	struct walk w;
	struct walk_syn ws;
	char got[128] = "", err[64];
	uint32_t isn1[8];
	int k = 0;

	set.n = 3;
	for (int i = 0; i < 3; i++)
		snprintf(set.shapes[i].name, sizeof(set.shapes[i].name), "t/%c", 'a' + i);
	set.shapes[1].bad = 1;
	walk_init(&w, &set, 5, 7, false, &all);
	while (walk_next(&w, &ws)) {
		char one[80];

		snprintf(one, sizeof(one), "%.8s@%llu%s ", ws.s.name + 2, (unsigned long long)ws.index,
			 ws.selected ? "" : "-");
		strcat(got, one);
		CHECK(ws.sport == TOPO_CRAFTED_SPORT_BASE + ws.index, "port of #%llu",
		      (unsigned long long)ws.index);
		CHECK(ws.dport == TOPO_PORT_BASE + ws.index % 2, "listener of #%llu",
		      (unsigned long long)ws.index);
		if (k < 8)
			isn1[k++] = ws.isn;
	}
	/* 5 good connections (a, c in turn) and the must-drop b once, at its first turn */
	CHECK(!strcmp(got, "a@0 b@1 c@2 a@3 c@5 a@6 "), "sequence: %s", got);
	CHECK_EQ_INT(k, 6);
	/* a shard walks the same sequence (same ISNs), marking what it makes */
	CHECK_EQ_INT(shard_parse("1/2", &shard, err, sizeof(err)), 0);
	walk_init(&w, &set, 5, 7, false, &shard);
	got[0] = 0;
	k = 0;
	while (walk_next(&w, &ws)) {
		char one[80];

		snprintf(one, sizeof(one), "%.8s@%llu%s ", ws.s.name + 2, (unsigned long long)ws.index,
			 ws.selected ? "" : "-");
		strcat(got, one);
		CHECK(ws.isn == isn1[k++], "ISN of #%llu differs in the shard",
		      (unsigned long long)ws.index);
	}
	CHECK(!strcmp(got, "a@0- b@1 c@2- a@3 c@5 a@6- "), "shard 1/2: %s", got);
}

/* A shape whose drop rule holds from a version on: must-drop on a tree of that version or
 * later, must-connect before it, refused without a tree. */
static void test_walk_tree(void)
{
	static struct shape_set set;
	static const struct tree_facts t61 = { 6, 1, false }, t612 = { 6, 12, false };
	char dir[] = "/tmp/test_gen.XXXXXX", path[64];
	FILE *f;

	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/t.syn", dir);
	f = fopen(path, "w");
	fputs("a family=4\nb family=4 drop=auth-hdr since=6.7\nc family=4 drop=syn-fin\n", f);
	fclose(f);
	set.n = 0;
	CHECK_EQ_INT(walk_load_profiles(dir, &t61, &set), 0);
	CHECK(set.n == 3 && set.shapes[1].bad == BAD_NONE && !set.shapes[1].drop_rule[0] &&
	      set.shapes[2].bad == BAD_RULE, "6.1: b must connect, c must drop");
	set.n = 0;
	CHECK_EQ_INT(walk_load_profiles(dir, &t612, &set), 0);
	CHECK(set.shapes[1].bad == BAD_RULE && !strcmp(set.shapes[1].drop_rule, "auth-hdr"),
	      "6.12: b must drop");
	set.n = 0;
	CHECK_EQ_INT(walk_load_profiles(dir, NULL, &set), -1);
	unlink(path);
	rmdir(dir);
}

int main(int argc, char **argv)
{
	test_reproducible();
	test_coverage();
	test_families_and_modes();
	test_option_bytes();
	test_profile();
	test_craft(argc > 1 ? argv[1] : "gen/profiles");
	test_sock_gen_opts();
	test_walk();
	test_walk_tree();
	return check_report("test_gen");
}
