// SPDX-License-Identifier: GPL-2.0
/*
 * unit.fingerprint: JA4T/JA4TS (fingerprint/ja4t.c) on golden values worked out by hand from the
 * spec, one per edge case, and p0f's raw_sig and label (fingerprint/p0f_*.c) against Debian's
 * /etc/p0f/p0f.fp; the database reader's errors.
 * With --write-pcap FILE it writes the same packets (packet i stamped i seconds) for
 * tests/fingerprint_tools.sh, which checks them against tshark and the real p0f.
 */
#include <arpa/inet.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "inet_csum.h"
#include "ja4t.h"
#include "p0f.h"

#define CHECK_STR(actual, expected) \
	CHECK(!strcmp((actual), (expected)), "'%s' but expected '%s'", (actual), (expected))

struct spec {
	const char *name;
	int ver;		/* 4 or 6 */
	uint8_t flags;		/* TCP flags */
	uint16_t win;
	const char *opts;	/* TCP option bytes as hex; padded by the case itself */
	uint8_t ttl, tos;	/* tos: the whole byte (DSCP + ECN) */
	uint16_t id;		/* IPv4 ID; DF is always set unless no_df */
	int no_df;
	uint32_t ack;
	uint16_t payload;	/* bytes of payload the IP length counts */
	const char *ja4t, *p0f_sig, *p0f_label;
};

#define LINUX_OPTS "020405b40402080a000000010000000001030307"
static const struct spec cases[] = {
	{ "linux", 4, 0x02, 64240, LINUX_OPTS, 64, 0, 1, 0, 0, 0,
	  "64240_2-4-8-1-3_1460_7", "4:64+0:0:1460:mss*44,7:mss,sok,ts,nop,ws:df,id+:0",
	  "os=Linux 2.2.x-3.x" },
	{ "no options", 4, 0x02, 1024, "", 64, 0, 1, 0, 0, 0,
	  "1024_00_00_00", "4:64+0:0:0:1024,0::df,id+:0", "os=???" },
	/* macOS: both end-of-list bytes are kinds */
	{ "macos eol padding", 4, 0x02, 65535, "020405b4010303060101080a000000010000000004020000",
	  64, 0, 1, 0, 0, 0, "65535_2-1-3-1-1-8-4-0-0_1460_6",
	  "4:64+0:0:1460:65535,6:mss,nop,ws,nop,nop,ts,sok,eol+1:df,id+:0", "os=Mac OS X" },
	/* a non-zero byte after the end of list stops the JA4T walk; p0f: "opt+" */
	{ "eol with trailing bytes", 4, 0x02, 64240, "020405b400030307", 64, 0, 1, 0, 0, 0,
	  "64240_2-0_1460_00", "4:64+0:0:1460:mss*44,0:mss,eol+3:df,id+,opt+:0", "os=???" },
	{ "eol then zeros then ws", 4, 0x02, 64240, "0000030307010101", 64, 0, 1, 0, 0, 0,
	  "64240_0-0_00_00", "4:64+0:0:0:64240,0:eol+7:df,id+,opt+:0", "os=???" },
	/* duplicates: the last MSS and the last window scale */
	{ "duplicate mss", 4, 0x02, 64240, "020405b402040218", 64, 0, 1, 0, 0, 0,
	  "64240_2-2_536_00", "4:64+0:0:536:mss*44,0:mss,mss:df,id+:0", "os=???" },
	{ "duplicate wscale", 4, 0x02, 64240, "0303070303020101", 64, 0, 1, 0, 0, 0,
	  "64240_3-3-1-1_00_2", "4:64+0:0:0:64240,2:ws,ws,nop,nop:df,id+:0", "os=???" },
	/* an MSS of the wrong length is a kind without a value; p0f reads it anyway ("bad") */
	{ "mss of length 3", 4, 0x02, 64240, "02030501", 64, 0, 1, 0, 0, 0,
	  "64240_2-1_00_00", "4:64+0:0:1281:mss*44,0:mss:df,id+,bad:0", "os=???" },
	/* a length below 2 stops the walk before the kind */
	{ "length 0", 4, 0x02, 64240, "02000101", 64, 0, 1, 0, 0, 0,
	  "64240_00_00_00", "4:64+0:0:257:mss*44,0:mss:df,id+,bad:0", "os=???" },
	{ "option past the header", 4, 0x02, 64240, "0101080a", 64, 0, 1, 0, 0, 0,
	  "64240_1-1_00_00", "4:64+0:0:0:64240,0:nop,nop,ts:df,id+,bad:0", "os=???" },
	{ "window scale 0", 4, 0x02, 64240, "03030001", 64, 0, 1, 0, 0, 0,
	  "64240_3-1_00_00", "4:64+0:0:0:64240,0:ws,nop:df,id+:0", "os=???" },
	{ "mss 5", 4, 0x02, 64240, "02040005", 64, 0, 1, 0, 0, 0,
	  "64240_2_05_00", "4:64+0:0:5:64240,0:mss:df,id+:0", "os=Linux 2.2.x-3.x (barebone)" },
	{ "window scale 15", 4, 0x02, 64240, "03030f00", 64, 0, 1, 0, 0, 0,
	  "64240_3-0_00_15", "4:64+0:0:0:64240,15:ws,eol+0:df,id+,exws:0", "os=???" },
	{ "unknown kinds", 4, 0x02, 64240, "1e040102fe020101", 64, 0, 1, 0, 0, 0,
	  "64240_30-254-1-1_00_00", "4:64+0:0:0:64240,0:?30,?254,nop,nop:df,id+:0", "os=???" },
	/* ECN setup: ECE+CWR on the SYN; JA4T does not see flags, p0f says "ecn" */
	{ "ecn setup", 4, 0xc2, 64240, LINUX_OPTS, 64, 0, 1, 0, 0, 0,
	  "64240_2-4-8-1-3_1460_7", "4:64+0:0:1460:mss*44,7:mss,sok,ts,nop,ws:df,id+,ecn:0",
	  "os=Linux 2.2.x-3.x" },
	{ "ipv6", 6, 0x02, 64800, "020405a00402080a000000010000000001030307", 64, 0, 0, 0, 0, 0,
	  "64800_2-4-8-1-3_1440_7", "6:64+0:0:1440:mss*45,7:mss,sok,ts,nop,ws::0",
	  "os=Linux 2.2.x-3.x" },
	{ "windows", 4, 0x02, 64240, "020405b40103030801010402", 128, 0, 0x1234, 0, 0, 0,
	  "64240_2-1-3-1-1-4_1460_8", "4:128+0:0:1460:mss*44,8:mss,nop,ws,nop,nop,sok:df,id+:0",
	  "os=Windows NT kernel" },
	/* p0f's "ack+" sees only the lowest bit of the ACK's first byte (p0f.h) */
	{ "ack on a syn, bit 24", 4, 0x02, 64240, LINUX_OPTS, 64, 0, 1, 0, 0x01000000, 0,
	  "64240_2-4-8-1-3_1460_7", "4:64+0:0:1460:mss*44,7:mss,sok,ts,nop,ws:df,id+,ack+:0",
	  "os=???" },
	{ "ack on a syn, bit 0", 4, 0x02, 64240, LINUX_OPTS, 64, 0, 1, 0, 1, 0,
	  "64240_2-4-8-1-3_1460_7", "4:64+0:0:1460:mss*44,7:mss,sok,ts,nop,ws:df,id+:0",
	  "os=Linux 2.2.x-3.x" },
	/* a SYN with data (Fast Open): payload class "+" */
	{ "syn with data", 4, 0x02, 64240, LINUX_OPTS, 64, 0, 1, 0, 0, 100,
	  "64240_2-4-8-1-3_1460_7", "4:64+0:0:1460:mss*44,7:mss,sok,ts,nop,ws:df,id+:+",
	  "os=???" },
	/* a SYN-ACK: JA4TS, matched against [tcp:response] */
	{ "syn-ack", 4, 0x12, 14600, "020405b40402080a000000010000000101030307", 64, 0, 0, 0, 1, 0,
	  "14600_2-4-8-1-3_1460_7", "4:64+0:0:1460:mss*10,7:mss,sok,ts,nop,ws:df:0",
	  "os=Linux 3.x" },
	/* a TTL too far from any initial one ("+?"), no DF and a zero ID: a fuzzy match */
	{ "ttl 200 no df", 4, 0x02, 8192, "020405b4", 200, 0x10, 0, 1, 0, 0,
	  "8192_2_1460_00", "4:200+?:0:1460:8192,0:mss:id-:0", "os=Linux 2.2.x-3.x (barebone)" },
};

static size_t hex_bytes(const char *h, uint8_t *out)
{
	size_t n = 0;

	for (; h[0] && h[1]; h += 2)
		out[n++] = (uint8_t)strtoul((char[]){ h[0], h[1], 0 }, NULL, 16);
	return n;
}

/* The packet of @s, as far as its headers go (payload bytes are counted, not written). */
static size_t build(const struct spec *s, uint8_t *p)
{
	uint8_t o[40];
	size_t ol = hex_bytes(s->opts, o), ih = s->ver == 4 ? 20 : 40, tl = 20 + ol;
	uint8_t *t = p + ih;

	memset(p, 0, ih + tl);
	if (s->ver == 4) {
		p[0] = 0x45, p[1] = s->tos;
		p[2] = (uint8_t)((ih + tl + s->payload) >> 8), p[3] = (uint8_t)(ih + tl + s->payload);
		p[4] = (uint8_t)(s->id >> 8), p[5] = (uint8_t)s->id;
		p[6] = s->no_df ? 0 : 0x40, p[8] = s->ttl, p[9] = 6;
		memcpy(p + 12, (uint8_t[]){ 198, 18, 0, 1, 198, 18, 0, 2 }, 8);
	} else {
		p[0] = 0x60 | s->tos >> 4, p[1] = (uint8_t)(s->tos << 4);
		p[4] = (uint8_t)((tl + s->payload) >> 8), p[5] = (uint8_t)(tl + s->payload);
		p[6] = 6, p[7] = s->ttl;
		p[8] = 0xfd, p[23] = 1, p[24] = 0xfd, p[39] = 2;
	}
	t[0] = 0x9c, t[1] = 0x40, t[2] = 0x1b, t[3] = 0x59, t[7] = 1;
	t[8] = (uint8_t)(s->ack >> 24), t[9] = (uint8_t)(s->ack >> 16);
	t[10] = (uint8_t)(s->ack >> 8), t[11] = (uint8_t)s->ack;
	t[12] = (uint8_t)(tl / 4) << 4, t[13] = s->flags;
	t[14] = (uint8_t)(s->win >> 8), t[15] = (uint8_t)s->win;
	memcpy(t + 20, o, ol);
	return ih + tl;
}

static int write_pcap(const char *path)
{
	pcap_t *dead = pcap_open_dead(DLT_RAW, 65535);
	pcap_dumper_t *d = dead ? pcap_dump_open(dead, path) : NULL;
	uint8_t p[65536];

	if (!d) {
		fprintf(stderr, "cannot write %s\n", path);
		return 1;
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len = build(&cases[i], p);
		struct pcap_pkthdr h = { .ts.tv_sec = (time_t)i };

		/* the payload as zeros: tools drop a packet shorter than its IP length */
		memset(p + len, 0, cases[i].payload);
		h.caplen = h.len = (bpf_u_int32)(len + cases[i].payload);
		/* a port of its own per packet: p0f skips a SYN that repeats a flow's */
		p[(cases[i].ver == 4 ? 20 : 40) + 1] = (uint8_t)i;
		pcap_dump((u_char *)d, &h, p);
	}
	pcap_dump_close(d);
	pcap_close(dead);
	return 0;
}

static void golden(const struct p0f_db *db)
{
	char ja4t[JA4T_MAX], sig[P0F_SIG_MAX], label[P0F_LABEL_MAX];
	uint8_t p[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct spec *s = &cases[i];
		size_t len = build(s, p);

		CHECK(ja4t_of(p, len, ja4t, sizeof(ja4t)), "%s", s->name);
		CHECK_STR(ja4t, s->ja4t);
		CHECK(p0f_fingerprint(db, p, len, sig, label), "%s", s->name);
		CHECK_STR(sig, s->p0f_sig);
		CHECK_STR(label, s->p0f_label);
		if (strcmp(ja4t, s->ja4t) || strcmp(sig, s->p0f_sig) || strcmp(label, s->p0f_label))
			fprintf(stderr, "  in case '%s'\n", s->name);
	}
}

/* Near misses: what is not a whole TCP header, or what p0f does not fingerprint. */
static void not_fingerprinted(const struct p0f_db *db)
{
	char ja4t[JA4T_MAX], sig[P0F_SIG_MAX], label[P0F_LABEL_MAX];
	uint8_t p[256];
	size_t len = build(&cases[0], p);

	CHECK(!ja4t_of(p, 30, ja4t, sizeof(ja4t)), "%s", ja4t);	/* cut inside the TCP header */
	CHECK_STR(ja4t, "");
	CHECK(!p0f_fingerprint(db, p, 30, sig, label), "%s", "");
	CHECK_STR(sig, "");
	CHECK_STR(label, "");
	p[20 + 13] = 0x03;				/* SYN+FIN: p0f drops it */
	CHECK(!p0f_fingerprint(db, p, len, sig, label), "%s", "");
	CHECK(ja4t_of(p, len, ja4t, sizeof(ja4t)), "%s", "");	/* JA4T does not look at flags */
	p[20 + 13] = 0x10;				/* a bare ACK: neither SYN nor SYN-ACK */
	CHECK(!p0f_fingerprint(db, p, len, sig, label), "%s", "");
	p[20 + 13] = 0x02;
	p[9] = 17;					/* not TCP */
	CHECK(!ja4t_of(p, len, ja4t, sizeof(ja4t)), "%s", "");
	CHECK(!p0f_fingerprint(db, p, len, sig, label), "%s", "");
}

static void db_errors(void)
{
	static const struct {
		const char *text, *err;
	} bad[] = {
		{ "classes = unix\n[tcp:request]\nlabel = s:unix:Linux:x\nsig = 4:64:0:*:mss*20,7:"
		  "mss,sok,ts,nop,ws:df,id+:\n", "line 4: malformed payload class" },
		{ "classes = unix\n[tcp:request]\nlabel = s:win:Windows:x\n", "line 3: unknown class" },
		{ "classes = unix\n[tcp:sideways]\n", "line 2: unknown traffic direction" },
		{ "classes = unix\n[tcp:request]\nlabel = s:unix:Linux:x\nsig = 6:64:0:*:*,*:mss:df:0\n",
		  "line 4: quirk not valid for this IP version" },
		{ "classes = unix\n[http:request]\n", "no [tcp:request] signature" },
	};
	char path[] = "/tmp/test_fingerprint.XXXXXX", err[512];
	struct p0f_db db;
	int fd = mkstemp(path);

	CHECK(fd >= 0, "%s", path);
	close(fd);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		FILE *f = fopen(path, "w");

		fputs(bad[i].text, f);
		fclose(f);
		CHECK(p0f_db_load(&db, path, err, sizeof(err)) == -1, "case %zu", i);
		CHECK_STR_CONTAINS(err, bad[i].err);
	}
	unlink(path);
	CHECK(p0f_db_load(&db, "/nonexistent/p0f.fp", err, sizeof(err)) == -1, "%s", err);
	CHECK_STR_CONTAINS(err, "/nonexistent/p0f.fp: No such file");
}

int main(int argc, char **argv)
{
	struct p0f_db db;
	char err[512];

	if (argc == 3 && !strcmp(argv[1], "--write-pcap"))
		return write_pcap(argv[2]);
	if (p0f_db_load(&db, "/etc/p0f/p0f.fp", err, sizeof(err))) {
		fprintf(stderr, "FAIL: %s\n", err);
		return 1;
	}
	golden(&db);
	not_fingerprinted(&db);
	db_errors();
	p0f_db_free(&db);
	return check_report("fingerprint");
}
