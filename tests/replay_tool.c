// SPDX-License-Identifier: GPL-2.0
/*
 * replay_tool (host), for guest.replay_round_trip:
 *   replay_tool make FILE.pcap PROFILES_DIR
 *     writes, with libpcap, an Ethernet capture of other hosts' traffic: every profile shape that
 *     must connect (except IPv4 options the kernel rewrites) as a SYN between foreign addresses,
 *     each followed by its SYN-ACK and ACK; one IPv6 SYN the kernel drops (a destination-
 *     options header padded with PadN of 12 bytes: ip6_parse_tlv() allows 7); every shape of
 *     rejected.syn made by a drop rule (drop=: a scanner's SYN|FIN|PSH|URG among them),
 *     unanswered; an ARP frame and one packet with a cut IPv4 header (which replay must name
 *     and skip);
 *   replay_tool bad DIR
 *     writes DIR/truncated.pcap (the capture above cut inside its last SYN), DIR/usb.pcap (a link
 *     type replay does not support) and DIR/nosyn.pcap (an ARP frame only);
 *   replay_tool check FILE.pcap connections.jsonl
 *     every SYN of FILE came back as a record, and the kernel's saved copy equals the SYN in
 *     the file byte for byte except addresses, ports, checksums and the IP length; exactly one
 *     (the padded one) is dropped-by-kernel for IP_INHDR instead, and every SYN whose own bytes
 *     carry a drop rule (FIN, RST, an MD5 option, a source route, a second Record Route, an
 *     IPv6 routing header with segments left) is dropped-by-kernel by that rule.
 */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "craft.h"
#include "hex.h"
#include "pcap_syns.h"
#include "profile.h"

static size_t last_syn_len; /* the last SYN make() wrote: its frame's bytes */

/* Shape @s as an Ethernet frame from host @host (10.1.2.HOST or 2001::HOST) port @sport to
 * 10.9.8.7 (2001::7) port 443, ISN @isn, into @d. Returns the flow. */
static struct flow dump_syn(pcap_dumper_t *d, const struct syn_shape *s, uint8_t host,
			    uint16_t sport, uint32_t isn)
{
	struct flow f = { .family = s->family, .sport = sport, .dport = 443,
			  .src = { 10, 1, 2, host }, .dst = { 10, 9, 8, 7 } };
	uint8_t frame[14 + CRAFT_MAX] = { 0x02, [6] = 0x02, [11] = 1 };
	struct pcap_pkthdr h = { 0 };

	if (f.family == 6) {
		memcpy(f.src, (uint8_t[16]){ 0x20, 0x01, [15] = host }, 16);
		memcpy(f.dst, (uint8_t[16]){ 0x20, 0x01, [15] = 7 }, 16);
	}
	frame[12] = f.family == 4 ? 0x08 : 0x86, frame[13] = f.family == 4 ? 0x00 : 0xdd;
	last_syn_len = 14 + craft_syn(s, &f, isn, frame + 14);
	h.caplen = h.len = (bpf_u_int32)last_syn_len;
	pcap_dump((u_char *)d, &h, frame);
	return f;
}

static int make(const char *out, const char *dir)
{
	static const char *const files[] = { "linux", "windows", "macos", "freebsd", "android",
					     "edge" };
	static struct syn_shape sh[512];
	char path[512], err[300];
	size_t n = 0, count = 0, answered = 0;
	pcap_t *dead = pcap_open_dead(DLT_EN10MB, 65535);
	pcap_dumper_t *d = pcap_dump_open(dead, out);
	uint8_t frame[14 + CRAFT_MAX];
	struct pcap_pkthdr h = { 0 };

	if (!d) {
		fprintf(stderr, "replay_tool: %s\n", pcap_geterr(dead));
		return 2;
	}
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s.syn", dir, files[i]);
		if (profile_load(path, sh, 512, &n, err, sizeof(err))) {
			fprintf(stderr, "replay_tool: %s\n", err);
			return 2;
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct flow f;
		size_t len;

		if (sh[i].ipopt_len && sh[i].ipopt[0] != 1) /* RR/TS: rewritten on receive */
			continue;
		f = dump_syn(d, &sh[i], 3, (uint16_t)(50000 + i), (uint32_t)(1000003u * (i + 1)));
		count++;
		answered++;
		/* the SYN-ACK and the ACK of that flow: not SYNs, replay must pass them by */
		struct flow r = f;

		memcpy(r.src, f.dst, 16), memcpy(r.dst, f.src, 16);
		r.sport = f.dport, r.dport = f.sport;
		memset(frame, 0, 14);
		frame[0] = 0x02, frame[6] = 0x02, frame[11] = 1;
		frame[12] = f.family == 4 ? 0x08 : 0x86, frame[13] = f.family == 4 ? 0x00 : 0xdd;
		len = craft_segment(&sh[i], &r, 0x12, 77, (uint32_t)(1000003u * (i + 1)) + 1, 0, 0,
				    frame + 14);
		h.caplen = h.len = (bpf_u_int32)(14 + len);
		pcap_dump((u_char *)d, &h, frame);
		len = craft_segment(&sh[i], &f, 0x10, (uint32_t)(1000003u * (i + 1)) + 1, 78, 0, 0,
				    frame + 14);
		h.caplen = h.len = (bpf_u_int32)(14 + len);
		pcap_dump((u_char *)d, &h, frame);
	}
	/* the SYN the kernel must drop, given no answer: replay gives up on it and the server
	 * judges it by the kernel's drop reason */
	{
		struct syn_shape pad;

		if (profile_parse_line("pad12 family=6 ext=dst:010c000000000000000000000000 "
				       "tcpopt=mss:1440", "drop", &pad, err, sizeof(err)) != 1) {
			fprintf(stderr, "replay_tool: %s\n", err);
			return 2;
		}
		dump_syn(d, &pad, 3, 49999, 4242);
		count++;
	}
	/* the drop rules' shapes, from foreign hosts, unanswered (a scanner's probes) */
	snprintf(path, sizeof(path), "%s/rejected.syn", dir);
	n = 0;
	if (profile_load(path, sh, 512, &n, err, sizeof(err))) {
		fprintf(stderr, "replay_tool: %s\n", err);
		return 2;
	}
	for (size_t i = 0; i < n; i++) {
		/* (a replay rewrites the addresses: the rules an address decides cannot travel; a
		 * rule that holds from a version on is the crafted run's, on each tree; a replay
		 * reads a SYN with ACK as an answer) */
		if (sh[i].bad != BAD_RULE || sh[i].addr_family[0] || sh[i].addr_family[1] ||
		    sh[i].since_major || (sh[i].flags & 0x10))
			continue;
		dump_syn(d, &sh[i], 4, (uint16_t)(40000 + i), (uint32_t)(7000003u * (i + 1)));
		count++;
	}
	/* ARP, then an IPv4 packet cut after 12 bytes */
	memset(frame, 0, 60);
	frame[12] = 0x08, frame[13] = 0x06;
	h.caplen = h.len = 60;
	pcap_dump((u_char *)d, &h, frame);
	frame[12] = 0x08, frame[13] = 0x00, frame[14] = 0x45;
	h.caplen = h.len = 14 + 12;
	pcap_dump((u_char *)d, &h, frame);
	pcap_dump_close(d);
	pcap_close(dead);
	printf("replay_tool: %s: %zu SYNs among %zu packets\n", out, count,
	       count + 2 * answered + 2); /* (+ the SYN-ACK and ACK of each answered, ARP, cut) */
	return 0;
}

struct check {
	char *jsonl;
	unsigned long syns, found, equal, dropped, ruled, rule_syns;
};

/* The IPv4 option rule @s's header carries, as this file's shapes make them: a source route,
 * or a second Record Route (docs/verdicts.md), or NULL. */
static const char *ipopt_rule_of(const struct pcap_syn *s)
{
	int rr = 0;

	for (size_t i = 20; s->family == 4 && i + 1 < s->net_len && s->ip[i];) {
		if (s->ip[i] == 1) {
			i++;
			continue;
		}
		if (s->ip[i] == 131 || s->ip[i] == 137)
			return "v4-ipopt-srr";
		if (s->ip[i] == 7 && rr++)
			return "v4-ipopt-malformed";
		if (s->ip[i + 1] < 2)
			break;
		i += s->ip[i + 1];
	}
	return NULL;
}

/* An IPv6 routing header with segments left, or of segment routing (type 4), in @s:
 * "v6-rthdr" (docs/verdicts.md), or NULL. */
static const char *rthdr_rule_of(const struct pcap_syn *s)
{
	uint8_t next = s->family == 6 ? s->ip[6] : 6;

	for (size_t o = 40; (next == 0 || next == 43 || next == 60) && o + 8 <= s->net_len;) {
		if (next == 43 && (s->ip[o + 2] == 4 || s->ip[o + 3]))
			return "v6-rthdr";
		next = s->ip[o];
		o += (s->ip[o + 1] + 1u) * 8;
	}
	return NULL;
}

/* The drop rule SYN @s's own bytes carry (docs/verdicts.md), or NULL. */
static const char *rule_of(const struct pcap_syn *s)
{
	const uint8_t *th = s->ip + s->net_len;

	if (ipopt_rule_of(s))
		return ipopt_rule_of(s);
	if (rthdr_rule_of(s))
		return rthdr_rule_of(s);
	if (th[13] & 0x04)
		return "syn-rst";
	if (th[13] & 0x01)
		return "syn-fin";
	for (size_t i = 20; i + 1 < s->tcp_len && th[i];)
		if (th[i] == 1)
			i++;
		else if (th[i] == 19 && th[i + 1] == 18)
			return "md5-unexpected";
		else if (th[i + 1] < 2)
			break;
		else
			i += th[i + 1];
	return NULL;
}

/* The record whose knobs are "replay.pcap#N" (any directory), or NULL. */
static const char *record_of(const char *jsonl, unsigned long packet)
{
	char pat[64];
	const char *p = jsonl;

	snprintf(pat, sizeof(pat), "#%lu\"", packet);
	while ((p = strstr(p, pat))) {
		const char *line = p;

		while (line > jsonl && line[-1] != '\n')
			line--;
		if (strstr(line, "\"gen\":\"replay\"") && strstr(line, "\"direction\":\"passive\""))
			return line;
		p++;
	}
	return NULL;
}

/* @needle occurs in the JSONL line that starts at @line. */
static int in_line(const char *line, const char *needle)
{
	const char *at = strstr(line, needle), *eol = strchr(line, '\n');

	return at && (!eol || at < eol);
}

static int check_one(const struct pcap_syn *s, void *arg)
{
	struct check *c = arg;
	const char *rec = record_of(c->jsonl, s->packet), *nh;
	uint8_t native[600];
	size_t len = s->net_len + s->tcp_len, mac = 0, nlen = 0; /* tun: no MAC header */

	c->syns++;
	if (!rec) {
		fprintf(stderr, "replay_tool: packet %lu has no record\n", s->packet);
		return 0;
	}
	c->found++;
	if (rule_of(s)) {
		char want[64];

		snprintf(want, sizeof(want), ": %s: ", rule_of(s));
		c->rule_syns++;
		if (in_line(rec, "\"reason\":\"dropped-by-kernel\"") && in_line(rec, want))
			c->ruled++;
		else
			fprintf(stderr, "replay_tool: packet %lu: not dropped-by-kernel by its rule "
				"%s\n", s->packet, rule_of(s));
		return 0;
	}
	if (in_line(rec, "\"reason\":\"dropped-by-kernel\"") &&
	    in_line(rec, "dropped by the kernel (IP_INHDR)")) {
		c->dropped++;
		return 0;
	}
	nh = strstr(rec, "\"native\":\"");
	if (!nh || nh > strchr(rec, '\n')) {
		fprintf(stderr, "replay_tool: packet %lu: no native hex (run with --hex-all)\n",
			s->packet);
		return 0;
	}
	nh += 10;
	while (nh[2 * nlen] != '"' && nlen < sizeof(native)) {
		sscanf(nh + 2 * nlen, "%2hhx", &native[nlen]);
		nlen++;
	}
	if (nlen - mac != len) {
		fprintf(stderr, "replay_tool: packet %lu: saved %zu bytes, the SYN has %zu\n",
			s->packet, nlen - mac, len);
		return 0;
	}
	for (size_t i = 0; i < len; i++) {
		int skip;

		if (s->family == 4)
			skip = (i >= 2 && i < 4) || (i >= 10 && i < 20);
		else
			skip = (i >= 4 && i < 6) || (i >= 8 && i < 40);
		skip |= i >= s->net_len && (i - s->net_len < 4 || (i - s->net_len >= 16 &&
								  i - s->net_len < 18));
		if (!skip && native[mac + i] != s->ip[i]) {
			fprintf(stderr, "replay_tool: packet %lu: byte %zu is 0x%02x, the file has "
				"0x%02x\n", s->packet, i, native[mac + i], s->ip[i]);
			return 0;
		}
	}
	c->equal++;
	return 0;
}

static int check(const char *pcap, const char *jsonl)
{
	struct check c = { 0 };
	struct pcap_syn_stats st;
	char err[512];
	FILE *f = fopen(jsonl, "r");
	long sz;

	if (!f)
		return 2;
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	rewind(f);
	c.jsonl = calloc(1, (size_t)sz + 1);
	if (!c.jsonl || fread(c.jsonl, 1, (size_t)sz, f) != (size_t)sz)
		return 2;
	fclose(f);
	if (pcap_syns_each(pcap, check_one, &c, &st, err, sizeof(err))) {
		fprintf(stderr, "replay_tool: %s\n", err);
		return 2;
	}
	printf("replay_tool: %lu SYNs in the file, %lu replayed records, %lu byte-identical but "
	       "for addresses, ports, checksums and IP length, %lu dropped for IP_INHDR, %lu of %lu "
	       "dropped by the rule their bytes carry\n", c.syns, c.found, c.equal, c.dropped,
	       c.ruled, c.rule_syns);
	free(c.jsonl);
	return c.syns && c.dropped == 1 && c.rule_syns && c.ruled == c.rule_syns &&
		       c.equal + c.dropped + c.ruled == c.syns ? 0 : 1;
}

/* Bad inputs for replay (see the top). */
static int bad(const char *dir, const char *profiles)
{
	char path[512], cut[512];
	uint8_t frame[60] = { [12] = 0x08, [13] = 0x06 };
	struct pcap_pkthdr h = { .caplen = 60, .len = 60 };
	pcap_t *dead;
	pcap_dumper_t *d;
	FILE *f;
	long sz;

	snprintf(path, sizeof(path), "%s/full.pcap", dir);
	if (make(path, profiles))
		return 2;
	/* cut 20 bytes into the last SYN's record (its 16-byte record header and 4 bytes): drop
	 * the ARP and the cut packet (16 + 60 and 16 + 26 bytes) and the rest of that SYN */
	f = fopen(path, "rb");
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	rewind(f);
	char *buf = malloc((size_t)sz);

	if (!buf || fread(buf, 1, (size_t)sz, f) != (size_t)sz)
		return 2;
	fclose(f);
	snprintf(cut, sizeof(cut), "%s/truncated.pcap", dir);
	f = fopen(cut, "wb");
	fwrite(buf, 1, (size_t)sz - (16 + 60) - (16 + 26) - (16 + last_syn_len - 20), f);
	fclose(f);
	free(buf);
	for (int i = 0; i < 2; i++) {
		dead = pcap_open_dead(i ? DLT_EN10MB : DLT_USB_LINUX, 65535);
		snprintf(path, sizeof(path), "%s/%s.pcap", dir, i ? "nosyn" : "usb");
		d = pcap_dump_open(dead, path);
		if (!d)
			return 2;
		pcap_dump((u_char *)d, &h, frame);
		pcap_dump_close(d);
		pcap_close(dead);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "bad"))
		return bad(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "make"))
		return make(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "check"))
		return check(argv[2], argv[3]);
	fprintf(stderr, "usage: replay_tool make FILE.pcap PROFILES_DIR | bad DIR PROFILES_DIR |\n"
			"       check FILE.pcap JSONL\n");
	return 2;
}
