// SPDX-License-Identifier: GPL-2.0
/* A capture's SYNs made ready to replay (replay.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inet_csum.h"
#include "replay.h"
#include "tcp_opts.h"
#include "topology.h"
#include "tun_peer.h"

#define SPORT_BASE TOPO_CRAFTED_SPORT_BASE

/* @p with our addresses and ports @sport -> @dport, lengths and checksums fixed, into @r.
 * Returns NULL, or why it cannot be replayed. */
static const char *readdress(const struct pcap_syn *p, uint16_t sport, uint16_t dport,
			     struct replay_syn *r)
{
	size_t len = p->net_len + p->tcp_len;
	uint8_t *out = r->pkt, *tcp = out + p->net_len;
	uint16_t c;

	if (len > CRAFT_MAX)
		return "headers longer than 256 bytes";
	memcpy(out, p->ip, len);
	/* (a source route, IPv4 or IPv6, goes as it came: what the kernel does with it is the
	 * judge's to prove, rules v4-ipopt-srr and v6-rthdr) */
	if (p->family == 4) {
		memcpy(out + 12, peer4, 4);
		memcpy(out + 16, self4, 4);
		out[2] = (uint8_t)(len >> 8), out[3] = (uint8_t)len;
		out[10] = out[11] = 0;
		c = csum_fold(csum_add(0, out, p->net_len));
		memcpy(out + 10, &c, 2);
	} else {
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
	r->len = len;
	r->family = p->family;
	r->sport = sport;
	r->dport = dport;
	r->isn = (uint32_t)tcp[4] << 24 | tcp[5] << 16 | tcp[6] << 8 | tcp[7];
	r->tsval = 0;
	tcp_last_tsval(tcp + 20, p->tcp_len - 20, &r->tsval);
	r->packet = p->packet;
	return NULL;
}

struct load_ctx {
	struct replay_list *l;
	const struct rerun_set *only;
	bool oom;
};

static int add_one(const struct pcap_syn *p, void *arg)
{
	struct load_ctx *c = arg;
	struct replay_list *l = c->l;
	uint64_t i = l->n; /* the selected SYNs go out from consecutive ports */
	const char *why;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 256;
		struct replay_syn *v = realloc(l->v, cap * sizeof(*v));

		if (!v) {
			c->oom = true;
			return -1; /* (stops the reading) */
		}
		l->v = v;
		l->cap = cap;
	}
	why = readdress(p, (uint16_t)(SPORT_BASE + i % 30000), (uint16_t)(TOPO_PORT_BASE + i % 2),
			&l->v[l->n]);
	if (why) {
		fprintf(stderr, "syntwin: %s: packet %lu: %s; skipped\n", l->file, p->packet, why);
		l->skipped++;
		return 0;
	}
	if (!rerun_active(c->only) || rerun_has(c->only, p->packet))
		l->n++;
	return 0;
}

int replay_load(const char *file, const struct rerun_set *only, struct replay_list *l,
		char *err, size_t errlen)
{
	struct load_ctx c = { l, only, false };

	*l = (struct replay_list){ .file = file };
	if (pcap_syns_each(file, add_one, &c, &l->st, err, errlen) == 0 && !c.oom)
		return 0;
	if (c.oom)
		snprintf(err, errlen, "%s: out of memory after %zu SYNs", file, l->n);
	replay_free(l);
	return -1;
}

void replay_free(struct replay_list *l)
{
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

void replay_prepare(const struct replay_list *l, const struct replay_syn *r, struct gen_event *e,
		    char *knobs, size_t knobslen, struct syn_out *o, char *name, size_t namelen)
{
	*e = (struct gen_event){ .index = r->packet, .gen = "replay", .knobs = knobs };
	snprintf(name, namelen, "packet %lu", r->packet);
	snprintf(knobs, knobslen, "%s#%lu", l->file, r->packet);
	*o = (struct syn_out){ .pkt = r->pkt, .len = r->len, .family = r->family, .sport = r->sport,
			       .dport = r->dport, .isn = r->isn, .tsval = r->tsval, .name = name };
}

void replay_print(const struct replay_list *l, uint64_t sent, uint64_t given_up,
		  uint64_t dropped)
{
	printf("replay: %lu packets, %lu SYNs: %llu replayed, %llu got no SYN-ACK (judged by the "
	       "server; %llu dropped by the kernel, given up at once), %llu skipped (%lu "
	       "malformed)%s%s\n",
	       l->st.packets, l->st.syns, (unsigned long long)sent, (unsigned long long)given_up,
	       (unsigned long long)dropped,
	       (unsigned long long)l->skipped, l->st.malformed,
	       l->st.truncated ? "; the file is truncated" : "",
	       l->st.syns ? "" : "; no SYNs in this file, nothing to compare");
	fflush(stdout);
}
