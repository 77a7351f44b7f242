// SPDX-License-Identifier: GPL-2.0
/*
 * syntwin-crafted (guest, server netns): the tun peer (tun_peer.h) as a process of its own. It
 * writes SYNs built from the shapes of gen/profiles/NAME.syn (walk.h; with --fuzz, mutated),
 * completes each handshake and labels each flow for the server over the channel
 * (client_msg.h): "crafted" for shapes that must connect, "rejected" for those that must not
 * (sent once each, no answer awaited). With --replay FILE it sends instead every SYN of a
 * capture file (pcap_syns.h), rewriting only addresses, ports and checksums (and the IP length,
 * as the payload is not sent): "replay".
 * usage: syntwin-crafted --connections N [--seed S] [--profiles DIR] [--dev tun0] [--fuzz]
 *        syntwin-crafted --tap --dev tap0 ...   (Ethernet frames on a tap device instead)
 *        syntwin-crafted --replay FILE [--count]
 *        syntwin-crafted --held-back H --abandoned A --dup-synack D [--seed S]
 *                                                  (planned handshakes: gen/planned.c)
 * With --rerun JSONL only the connections that were not identical in that earlier run are made
 * (their indexes, or packet numbers for a replay); --count prints how many would connect.
 * In a default run syntwin-server makes the crafted, fuzzed and tap connections itself
 * (gen/crafted_gen.h); this program makes the planned handshakes and replays, and counts.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_msg.h"
#include "inet_csum.h"
#include "net_helpers.h"
#include "parse_num.h"
#include "pcap_syns.h"
#include "rerun.h"
#include "tcp_opts.h"
#include "topology.h"
#include "tun_peer.h"
#include "walk.h"

#define SPORT_BASE TOPO_CRAFTED_SPORT_BASE

static struct shape_set shapes;
static uint64_t made, failed, rejected_sent;
static struct rerun_set only;
static const char *rerun_file;
static bool fuzz_mode;

struct replay {
	const char *file;
	uint64_t i, sent, skipped, given_up;
	int count_only;
};

/* The capture's SYN with our addresses and ports, lengths and checksums fixed; its TS value. */
static size_t readdress(const struct pcap_syn *p, uint16_t sport, uint16_t dport, uint8_t *out,
			uint32_t *isn, uint32_t *tsval, const char **why)
{
	size_t len = p->net_len + p->tcp_len, o;
	uint8_t *tcp = out + p->net_len;
	uint16_t c;

	if (len > CRAFT_MAX) {
		*why = "headers longer than 256 bytes";
		return 0;
	}
	memcpy(out, p->ip, len);
	if (p->family == 4) {
		for (o = 20; o < p->net_len && out[o];)
			if (out[o] == 131 || out[o] == 137) {
				*why = "IPv4 source routing (the kernel drops it)";
				return 0;
			} else {
				o += out[o] == 1 ? 1 : (out[o + 1] ? out[o + 1] : p->net_len);
			}
		memcpy(out + 12, peer4, 4);
		memcpy(out + 16, self4, 4);
		out[2] = (uint8_t)(len >> 8), out[3] = (uint8_t)len;
		out[10] = out[11] = 0;
		c = csum_fold(csum_add(0, out, p->net_len));
		memcpy(out + 10, &c, 2);
	} else {
		uint8_t next = out[6];

		for (o = 40; o < p->net_len; o += (out[o + 1] + 1u) * 8u) {
			if (next == 43) {
				*why = "an IPv6 routing header";
				return 0;
			}
			next = out[o];
		}
		memcpy(out + 8, peer6, 16);
		memcpy(out + 24, self6, 16);
		out[4] = (uint8_t)((len - 40) >> 8), out[5] = (uint8_t)(len - 40);
	}
	tcp[0] = (uint8_t)(sport >> 8), tcp[1] = (uint8_t)sport;
	tcp[2] = (uint8_t)(dport >> 8), tcp[3] = (uint8_t)dport;
	tcp[16] = tcp[17] = 0;
	c = p->family == 4 ? tcp_csum4(out + 12, out + 16, tcp, p->tcp_len) :
			     tcp_csum6(out + 8, out + 24, tcp, p->tcp_len);
	memcpy(tcp + 16, &c, 2);
	*isn = (uint32_t)tcp[4] << 24 | tcp[5] << 16 | tcp[6] << 8 | tcp[7];
	*tsval = 0;
	tcp_last_tsval(tcp + 20, p->tcp_len - 20, tsval);
	return len;
}

static int replay_one(const struct pcap_syn *p, void *arg)
{
	struct replay *r = arg;
	uint16_t sport = (uint16_t)(SPORT_BASE + r->i % 30000), dport = (uint16_t)(TOPO_PORT_BASE + r->i % 2);
	struct active_msg m = { .index = p->packet };
	uint8_t pkt[CRAFT_MAX];
	uint32_t isn, tsval;
	const char *why = NULL;
	size_t len = readdress(p, sport, dport, pkt, &isn, &tsval, &why);
	char name[64];
	int rc;

	if (!len) {
		fprintf(stderr, "syntwin: %s: packet %lu: %s; skipped\n", r->file, p->packet, why);
		r->skipped++;
		return 0;
	}
	r->i++;
	if (rerun_active(&only) && !rerun_has(&only, p->packet)) {
		r->i--;
		return 0;
	}
	if (r->count_only)
		return 0;
	snprintf(name, sizeof(name), "packet %lu", p->packet);
	snprintf(m.gen, sizeof(m.gen), "replay");
	snprintf(m.knobs, sizeof(m.knobs), "%s#%lu", r->file, p->packet);
	if (tell_flow(CLIENT_GEN, p->family, sport, dport, isn, &m)) {
		log_err("telling the server about %s", name);
		return -1;
	}
	/* A replayed SYN declares nothing: one the kernel drops is given up on and judged by the
	 * server from the kernel's drop reason, not counted as a failure here. */
	rc = one_syn(&(struct syn_out){ .pkt = pkt, .len = len, .family = p->family, .sport = sport,
					.dport = dport, .isn = isn, .tsval = tsval, .name = name });
	if (rc < 0)
		failed++;
	else if (rc > 0)
		r->given_up++;
	else
		r->sent++;
	return 0;
}

/* Replays @file; with @count_only prints how many SYNs would be sent and sends none. */
static int replay(const char *file, int count_only)
{
	struct replay r = { .file = file, .count_only = count_only };
	struct pcap_syn_stats st;
	char err[512];

	if (pcap_syns_each(file, replay_one, &r, &st, err, sizeof(err))) {
		fprintf(stderr, "syntwin: %s\n", err);
		return 2;
	}
	if (count_only) {
		printf("%llu\n", (unsigned long long)r.i);
		return 0;
	}
	pump_closes(1500);
	printf("replay: %lu packets, %lu SYNs: %llu replayed, %llu got no SYN-ACK (judged by the "
	       "server), %llu skipped (%lu malformed)%s%s\n",
	       st.packets, st.syns, (unsigned long long)r.sent, (unsigned long long)r.given_up,
	       (unsigned long long)r.skipped, st.malformed, st.truncated ? "; the file is truncated" : "",
	       st.syns ? "" : "; no SYNs in this file, nothing to compare");
	return failed ? 1 : 0;
}

/*
 * The crafted or fuzzed run (walk.h): the selected SYNs written and their handshakes made, one at
 * a time. With @dry nothing is sent: returns how many connections the selection makes.
 * Otherwise returns 0, or -1 on a failure to go on.
 */
static int64_t walk(uint64_t n, uint64_t seed, bool dry)
{
	struct walk w;
	struct walk_syn ws;
	int64_t counted = 0;

	walk_init(&w, &shapes, n, seed, fuzz_mode, &only);
	while (walk_next(&w, &ws)) {
		const struct syn_shape *s = &ws.s;
		struct syn_out out;
		struct flow f;
		uint8_t pkt[CRAFT_MAX];

		if (dry) {
			counted += ws.selected && !s->bad;
			continue;
		}
		if (!ws.selected)
			continue; /* walked past as the whole run does, its draws made */
		if (tell_shape(s, fuzz_mode, ws.sport, ws.dport, ws.isn, ws.index)) {
			log_err("telling the server about %s", s->name);
			return -1;
		}
		syn_out_of_walk(&ws, &f, pkt, &out);
		if (one_syn(&out)) {
			failed++;
			continue;
		}
		if (s->bad)
			rejected_sent++;
		else
			made++;
	}
	return dry ? counted : 0;
}

int main(int argc, char **argv)
{
	const char *dir = "/src/gen/profiles", *dev = "tun0", *replay_file = NULL;
	int count_only = 0, fuzz = 0;
	uint64_t n = 100, seed = 1;
	struct planned pl = { 0 };
	int plan = 0;
	char err[256];

	for (int i = 1; i < argc; i += 2) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int rc = 0;

		if (!strcmp(a, "--count") || !strcmp(a, "--fuzz") || !strcmp(a, "--tap")) {
			*(a[2] == 'c' ? &count_only : a[2] == 'f' ? &fuzz : &tap_mode) = 1;
			i--;
			continue;
		}
		if (!v) {
			fprintf(stderr, "syntwin-crafted: %s: missing value\n", a);
			return 2;
		}
		if (!strcmp(a, "--connections"))
			rc = parse_u64_range(a, v, 0, 1000000, &n, err, sizeof(err));
		else if (!strcmp(a, "--held-back") || !strcmp(a, "--abandoned") ||
			 !strcmp(a, "--dup-synack")) {
			plan = 1;
			rc = parse_u64_range(a, v, 0, PLAN_MAX, a[2] == 'h' ? &pl.held_back :
					     a[2] == 'a' ? &pl.abandoned : &pl.dup_synack, err,
					     sizeof(err));
		}
		else if (!strcmp(a, "--seed"))
			rc = parse_u64_range(a, v, 0, UINT64_MAX, &seed, err, sizeof(err));
		else if (!strcmp(a, "--profiles"))
			dir = v;
		else if (!strcmp(a, "--dev"))
			dev = v;
		else if (!strcmp(a, "--replay"))
			replay_file = v;
		else if (!strcmp(a, "--rerun"))
			rerun_file = v;
		else if (!strcmp(a, "--shard"))
			rc = shard_parse(v, &only, err, sizeof(err));
		else {
			fprintf(stderr, "usage: syntwin-crafted --connections N [--seed S] "
					"[--profiles DIR] [--dev tun0]\n");
			return 2;
		}
		if (rc) {
			fprintf(stderr, "syntwin-crafted: %s\n", err);
			return 2;
		}
	}
	run_seed = seed;
	fuzz_mode = fuzz;
	if (peer_addresses(tap_mode))
		return 2;
	if (rerun_file && rerun_load(rerun_file, replay_file ? "replay" : fuzz_mode ? "fuzz" :
				     tap_mode ? "crafted-tap,rejected" : "crafted,rejected", &only))
		return 2;
	if (replay_file && count_only)
		return replay(replay_file, 1);
	if (replay_file) {
		if ((ufd = client_channel_connect()) < 0 || enter_netns("server") ||
		    (tun = open_tun(dev)) < 0)
			return 2;
		return replay(replay_file, 0);
	}
	if (count_only) {
		/* the connections the selection makes: a rerun's are the earlier run's indexes that
		 * are not must-drop; a shard's, its slice of the walk */
		int64_t cnt = 0;

		if (walk_load_profiles(dir, &shapes))
			return 2;
		if (rerun_file) {
			for (size_t j = 0; j < only.n; j++)
				cnt += rerun_has(&only, only.idx[j]) &&
				       (fuzz_mode || !shapes.shapes[only.idx[j] % shapes.n].bad);
		} else {
			cnt = walk(n, seed, true);
		}
		printf("%lld\n", (long long)cnt);
		return 0;
	}
	if (plan && pl.held_back + pl.abandoned > PLAN_MAX) {
		fprintf(stderr, "syntwin-crafted: --held-back + --abandoned: at most %d\n", PLAN_MAX);
		return 2;
	}
	if (plan) {
		if ((ufd = client_channel_connect()) < 0 || enter_netns("server") ||
		    (tun = open_tun(dev)) < 0)
			return 2;
		return plan_run(&pl, seed);
	}
	if (walk_load_profiles(dir, &shapes) || (ufd = client_channel_connect()) < 0 || enter_netns("server") ||
	    (tun = open_tun(dev)) < 0)
		return 2;

	if (walk(n, seed, false) < 0)
		return 2;
	pump_closes(1500); /* the last connections' FINs */
	printf("%s: %llu connections from %zu %sshapes, %llu SYNs the kernel must drop, %llu "
	       "failed\n", fuzz_mode ? "fuzz" : "crafted", (unsigned long long)made, shapes.n,
	       fuzz_mode ? "fuzzed profile " : "", (unsigned long long)rejected_sent,
	       (unsigned long long)failed);
	return failed ? 1 : 0;
}
