// SPDX-License-Identifier: GPL-2.0
/*
 * knob_wire_check (host): every socket knob of a `syntwin run --hex-all` actually reached the
 * wire. For each passive record of generator "sockets", the witness's capture (the "bpf" hex)
 * must show what its knobs asked for: MSS option value, TOS / traffic class, TTL / hop limit,
 * IPv4 option kind, IPv6 extension headers, TFO data behind the headers, the MD5 option, the
 * source port, SACK / timestamps / window-scale options present or absent, ECE+CWR for ECN,
 * and a smaller window than plain for small receive buffers. Each knob must be seen at least
 * once. Prints one line per knob; exit 0 only if all hold.
 * --lossy, for a run over a lossy wire (--netem): the copy the witness kept may be a
 * retransmitted SYN, which the kernel sends without ECE+CWR and without Fast Open data, so
 * those two are checked one way only (present only when asked for); every other knob exactly.
 * A record without a SYN (a syncookie child's) names no bytes and is skipped.
 * usage: knob_wire_check [--lossy] connections.jsonl
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "decode.h"

enum { K_MSS, K_RCVBUF, K_TOS, K_TTL, K_IPOPT, K_V6EXT, K_TFO, K_MD5, K_SPORT, K_SACK, K_TS,
       K_WS, K_ECN, K_VLAN, K_MAX };
static const char *const knob_names[K_MAX] = { "mss", "rcvbuf", "tos", "ttl", "ipopt", "v6ext",
					       "tfo", "md5", "sport", "sack", "timestamps",
					       "wscale", "ecn", "vlan" };
static unsigned long seen[K_MAX], bad[K_MAX];
static unsigned long plain_win[2], plain_win_n[2]; /* a plain SYN's window, per family */
static int lossy;	/* --lossy: a kept copy may be a retransmitted SYN */

/* The string value of "key":"..." in @line into @out; 0 if absent. */
static int str_field(const char *line, const char *key, char *out, size_t n)
{
	char pat[64];
	const char *p, *e;

	snprintf(pat, sizeof(pat), "\"%s\":\"", key);
	p = strstr(line, pat);
	if (!p)
		return 0;
	p += strlen(pat);
	e = strchr(p, '"');
	if (!e || (size_t)(e - p) >= n)
		return 0;
	memcpy(out, p, (size_t)(e - p));
	out[e - p] = 0;
	return 1;
}

static long num_field(const char *line, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(line, pat);
	return p ? strtol(p + strlen(pat), NULL, 10) : -1;
}

/* Value of knob @name in the knob text ("mss=1200 tfo ..."): -1 absent, 1 for a bare flag. */
static long knob(const char *knobs, const char *name)
{
	size_t l = strlen(name);

	for (const char *p = knobs; (p = strstr(p, name)); p += l) {
		if (p != knobs && p[-1] != ' ')
			continue;
		if (p[l] == '=')
			return strtol(p + l + 1, NULL, 0);
		if (p[l] == ' ' || !p[l])
			return 1;
	}
	return -1;
}

static const char *knob_str(const char *knobs, const char *name)
{
	const char *p = strstr(knobs, name);

	return p ? p + strlen(name) + 1 : "";
}

/* The TCP option of @kind in the capture, or NULL. */
static const uint8_t *tcp_opt(const uint8_t *b, const struct syn_layout *l, int kind)
{
	const uint8_t *o = b + l->tcp_off + 20, *end = b + l->tcp_off + l->tcp_len;

	while (o < end && *o) {
		if (*o == 1) {
			o++;
			continue;
		}
		if (o + 1 >= end || o[1] < 2)
			return NULL;
		if (*o == kind)
			return o;
		o += o[1];
	}
	return NULL;
}

static void expect(int k, int ok, long line_no, const char *what)
{
	seen[k]++;
	if (!ok && bad[k]++ < 3)
		fprintf(stderr, "knob_wire_check: record %ld: %s\n", line_no, what);
}

/* VLAN: QinQ shows the inner 802.1Q tag in the bytes (18-byte MAC header) and the outer
 * 802.1ad tag in metadata; a single tag only in metadata; no VLAN, no metadata. */
static void check_vlan(const char *knobs, size_t mac, const char *vlan, long no)
{
	const char *kind = strstr(knobs, "vlan=") ? knob_str(knobs, "vlan") : "";

	if (!strncmp(kind, "qinq", 4))
		expect(K_VLAN, mac == 18 && !strcmp(vlan, "88a8:10"), no,
		       "vlan=qinq: want an in-band tag and 88a8:10 in metadata");
	else if (!strncmp(kind, "1q", 2))
		expect(K_VLAN, mac == 14 && !strcmp(vlan, "8100:30"), no,
		       "vlan=1q: want no in-band tag and 8100:30 in metadata");
	else if (vlan[0] || mac != 14)
		expect(K_VLAN, 0, no, "no vlan knob, but VLAN metadata or an in-band tag");
}

static void check(const char *knobs, const uint8_t *b, size_t n, size_t mac, long no)
{
	struct syn_layout l;
	const uint8_t *ip = b + mac, *tcp, *o;
	int v6;
	long v;
	char msg[160];

	if (syn_layout(b, n, mac, &l) || !l.family)
		return;
	v6 = l.family == AF_INET6;
	tcp = b + l.tcp_off;
	if (!strcmp(knobs, "plain")) {
		plain_win[v6] += (unsigned long)(tcp[14] << 8 | tcp[15]);
		plain_win_n[v6]++;
	}
	if ((v = knob(knobs, "mss")) > 0) {
		o = tcp_opt(b, &l, 2);
		snprintf(msg, sizeof(msg), "mss=%ld but the SYN's MSS option is %d", v,
			 o ? o[2] << 8 | o[3] : -1);
		expect(K_MSS, o && (o[2] << 8 | o[3]) == v, no, msg);
	}
	if ((v = knob(knobs, "tos")) >= 0) {
		int got = v6 ? ((ip[0] & 0x0f) << 4 | ip[1] >> 4) : ip[1];

		snprintf(msg, sizeof(msg), "tos=0x%02lx but the header says 0x%02x", v, got);
		expect(K_TOS, got == v, no, msg);
	}
	if ((v = knob(knobs, "ttl")) >= 0) {
		int got = v6 ? ip[7] : ip[8];

		snprintf(msg, sizeof(msg), "ttl=%ld but the header says %d", v, got);
		expect(K_TTL, got == v, no, msg);
	}
	if (knob(knobs, "ipopt") > 0 || strstr(knobs, "ipopt=")) {
		const char *kind = knob_str(knobs, "ipopt");
		int want = !strncmp(kind, "rr", 2) ? 7 : !strncmp(kind, "ts", 2) ? 68 : 1;
		int found = 0;

		for (size_t i = 20; i < l.net_len && !found; i++)
			found = ip[i] == want;
		expect(K_IPOPT, !v6 && l.net_len > 20 && found, no, "ipopt: option kind not in the header");
	}
	if (strstr(knobs, "v6ext=")) {
		const char *kind = knob_str(knobs, "v6ext");
		int first = !strncmp(kind, "dst", 3) ? 60 : 0;
		int two = strstr(kind, "+") != NULL;

		expect(K_V6EXT, v6 && ip[6] == first && l.net_len == 40u + 8u * (1 + two) &&
				(!two || ip[40] == 60),
		       no, "v6ext: extension headers not as asked");
	}
	{
		size_t total = v6 ? 40u + (size_t)(ip[4] << 8 | ip[5]) : (size_t)(ip[2] << 8 | ip[3]);
		int data = total > l.net_len + l.tcp_len, tfo = knob(knobs, "tfo") == 1;

		if (tfo && !lossy)
			expect(K_TFO, data, no, "tfo: no data behind the SYN's headers");
		else if (tfo || data) /* lossy: a retransmitted TFO SYN carries no data */
			expect(K_TFO, tfo, no, "tfo: data behind the SYN's headers without tfo");
	}
	if (knob(knobs, "md5") == 1)
		expect(K_MD5, tcp_opt(b, &l, 19) != NULL, no, "md5: no TCP-MD5 option (kind 19)");
	if ((v = knob(knobs, "sport")) > 0) {
		snprintf(msg, sizeof(msg), "sport=%ld but the SYN is from %d", v, tcp[0] << 8 | tcp[1]);
		expect(K_SPORT, (tcp[0] << 8 | tcp[1]) == v, no, msg);
	}
	if ((v = knob(knobs, "sack")) >= 0)
		expect(K_SACK, !!tcp_opt(b, &l, 4) == v, no, "sack: SACK-permitted option wrong");
	/* 6.1's tcp_syn_options() sends no timestamps on an MD5 SYN ("&& !*md5"). */
	if ((v = knob(knobs, "timestamps")) >= 0)
		expect(K_TS, !!tcp_opt(b, &l, 8) == (v && knob(knobs, "md5") != 1), no,
		       "timestamps: TS option wrong");
	if ((v = knob(knobs, "wscale")) >= 0)
		expect(K_WS, !!tcp_opt(b, &l, 3) == v, no, "wscale: window-scale option wrong");
	if ((v = knob(knobs, "ecn")) >= 0) {
		int ece_cwr = (tcp[13] & 0xc0) == 0xc0;

		if (lossy) /* a retransmitted SYN has them cleared */
			expect(K_ECN, !ece_cwr || v == 1, no, "ecn: ECE+CWR on the SYN without tcp_ecn=1");
		else
			expect(K_ECN, ece_cwr == (v == 1), no,
			       "ecn: ECE+CWR on the SYN exactly when tcp_ecn=1");
	}
}

/* Small receive buffers must shrink the SYN's window below a plain SYN's (a second pass). */
static void check_rcvbuf(const char *knobs, const uint8_t *b, size_t n, size_t mac, long no)
{
	struct syn_layout l;
	long v = knob(knobs, "rcvbuf");

	if (v <= 0 || v > 8192 || syn_layout(b, n, mac, &l) || !l.family)
		return;
	int v6 = l.family == AF_INET6;
	unsigned long win = (unsigned long)(b[l.tcp_off + 14] << 8 | b[l.tcp_off + 15]);

	if (plain_win_n[v6])
		expect(K_RCVBUF, win < plain_win[v6] / plain_win_n[v6], no,
		       "rcvbuf: a small receive buffer did not shrink the window");
}

static int pass(FILE *f, int second)
{
	static char line[8192];
	long no = 0;

	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		char knobs[256], dir[16], gen[16], hex[1100];
		uint8_t b[540];
		size_t n;

		no++;
		if (!str_field(line, "direction", dir, sizeof(dir)) || strcmp(dir, "passive") ||
		    !str_field(line, "gen", gen, sizeof(gen)) || strcmp(gen, "sockets") ||
		    !str_field(line, "knobs", knobs, sizeof(knobs)) ||
		    !str_field(line, "bpf", hex, sizeof(hex)))
			continue;
		n = strlen(hex) / 2;
		if (!n)
			continue; /* no SYN: a syncookie child's record */
		for (size_t i = 0; i < n; i++)
			sscanf(hex + 2 * i, "%2hhx", &b[i]);
		if (second) {
			check_rcvbuf(knobs, b, n, (size_t)num_field(line, "bpf_mac_len"), no);
		} else {
			char vlan[16] = "";

			str_field(line, "bpf_vlan", vlan, sizeof(vlan));
			check(knobs, b, n, (size_t)num_field(line, "bpf_mac_len"), no);
			check_vlan(knobs, (size_t)num_field(line, "bpf_mac_len"), vlan, no);
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	int fail = 0;
	FILE *f;

	lossy = argc == 3 && !strcmp(argv[1], "--lossy");
	f = argc == 2 + lossy ? fopen(argv[1 + lossy], "r") : NULL;
	if (!f) {
		fprintf(stderr, "usage: knob_wire_check [--lossy] connections.jsonl (of a run with "
			"--hex-all)\n");
		return 2;
	}
	pass(f, 0);
	pass(f, 1);
	fclose(f);
	for (int k = 0; k < K_MAX; k++) {
		int ok = seen[k] && !bad[k];

		printf("%s %-10s %lu SYNs checked, %lu wrong\n", ok ? "PASS" : "FAIL", knob_names[k],
		       seen[k], bad[k]);
		fail |= !ok;
	}
	return fail;
}
