// SPDX-License-Identifier: GPL-2.0
/*
 * The wire's capture (wire.h): one libpcap handle per device, in immediate mode (TPACKET_V2,
 * so a frame is readable as soon as the kernel queued it: by the time its socket is accepted,
 * its SYN is in the ring), read without blocking before each comparison. The table of SYNs by
 * flow and tag is a chained hash: small, and entries leave it as the comparator takes them.
 */
#define _GNU_SOURCE
#include "wire.h"

#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copy_tag.h"
#include "fnv.h"

#define WIRE_MAX_DEVS 8
#define WIRE_BUCKETS 65536u
/* SYNs held at most: those no record takes (a SYN no socket took, a copy of one the kernel
 * did not keep) stay to the end; beyond this a SYN is not kept, and counted lost. */
#define WIRE_MAX_SYNS (1u << 20)

struct wire_syn {
	struct wire_syn *next;
	struct capture_key flow;
	uint32_t tag;
	struct point_copy c;
	size_t frame_len;
	uint8_t frame[];		/* the whole frame as captured */
};

struct wire;

struct wire_dev {
	struct wire *w;			/* for the callback */
	pcap_t *p;
	size_t mac_len;
	pcap_dumper_t *dump;		/* the file of its link type (shared) */
};

struct wire {
	struct wire_dev dev[WIRE_MAX_DEVS];
	int ndev;
	struct {
		int dlt;
		pcap_dumper_t *d;
	} files[WIRE_MAX_DEVS];
	int nfiles;
	struct wire_syn *bucket[WIRE_BUCKETS];
	uint64_t seen, stored, held;
	uint64_t failed;		/* SYNs not kept: out of memory, or WIRE_MAX_SYNS held */
	const char *dir;
};

/* A SYN's bucket, by its flow and ISN alone: every copy of it is in one bucket. */
static uint32_t slot_of(const struct capture_key *flow)
{
	return (uint32_t)fnv1a(FNV1A_INIT, flow, sizeof(*flow)) % WIRE_BUCKETS;
}

/* One frame from device @d (its pcap_dispatch() callback). */
static void on_frame(u_char *arg, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct wire_dev *d = (struct wire_dev *)arg;
	struct wire *w = d->w;
	struct capture_key flow;
	struct wire_syn *s;
	size_t mac = d->mac_len, hdr;
	uint32_t tag, i;

	if (syn_copy_tag(bytes, h->caplen, &mac, &flow, &tag, &hdr))
		return;
	w->seen++;
	pcap_dump((u_char *)d->dump, h, bytes);
	i = slot_of(&flow);
	for (s = w->bucket[i]; s; s = s->next)
		if (s->tag == tag && !memcmp(&s->flow, &flow, sizeof(flow))) {
			s->c.seen++;
			return;
		}
	s = w->held < WIRE_MAX_SYNS ? calloc(1, sizeof(*s) + h->caplen) : NULL;
	if (!s) {
		w->failed++;
		return;
	}
	w->held++;
	s->flow = flow;
	s->tag = tag;
	s->c.len = hdr < CAPTURE_MAX ? hdr : CAPTURE_MAX;
	s->c.cut = hdr > CAPTURE_MAX;
	s->c.mac_len = mac;
	s->c.seen = 1;
	memcpy(s->c.data, bytes, s->c.len);
	memcpy(s->frame, bytes, h->caplen);
	s->frame_len = h->caplen;
	s->next = w->bucket[i];
	w->bucket[i] = s;
	w->stored++;
}

/* The results file for link type @dlt: wire.pcap for Ethernet, wire-NAME.pcap otherwise. */
static pcap_dumper_t *file_for(struct wire *w, pcap_t *p)
{
	int dlt = pcap_datalink(p);
	char path[600];

	for (int i = 0; i < w->nfiles; i++)
		if (w->files[i].dlt == dlt)
			return w->files[i].d;
	if (dlt == DLT_EN10MB)
		snprintf(path, sizeof(path), "%s/wire.pcap", w->dir);
	else
		snprintf(path, sizeof(path), "%s/wire-%s.pcap", w->dir, pcap_datalink_val_to_name(dlt));
	w->files[w->nfiles].dlt = dlt;
	w->files[w->nfiles].d = pcap_dump_open(p, path);
	if (!w->files[w->nfiles].d)
		fprintf(stderr, "syntwin: %s: %s\n", path, pcap_geterr(p));
	return w->files[w->nfiles++].d;
}

/* Device @name opened into @d: incoming frames only, SYNs (and what a filter cannot tell from
 * one: IPv6, whose TCP header may follow extension headers, and tagged frames). 0 or -1. */
static int open_dev(struct wire *w, struct wire_dev *d, const char *name)
{
	char err[PCAP_ERRBUF_SIZE];
	struct bpf_program prog;
	const char *filter;
	int dlt;

	d->p = pcap_create(name, err);
	if (!d->p || pcap_set_snaplen(d->p, WIRE_SNAPLEN) || pcap_set_immediate_mode(d->p, 1) ||
	    pcap_set_buffer_size(d->p, WIRE_RING_BYTES) || pcap_activate(d->p) < 0) {
		fprintf(stderr, "syntwin: the wire's capture on %s: %s\n", name,
			d->p ? pcap_geterr(d->p) : err);
		return -1;
	}
	dlt = pcap_datalink(d->p);
	if (dlt != DLT_EN10MB && dlt != DLT_RAW) {
		fprintf(stderr, "syntwin: the wire's capture on %s: link type %s is not supported\n",
			name, pcap_datalink_val_to_name(dlt));
		return -1;
	}
	d->mac_len = dlt == DLT_EN10MB ? 14 : 0;
	filter = dlt == DLT_EN10MB ? "(tcp[tcpflags] & (tcp-syn|tcp-ack)) == tcp-syn or ip6 or vlan" :
				     "(tcp[tcpflags] & (tcp-syn|tcp-ack)) == tcp-syn or ip6";
	if (pcap_setdirection(d->p, PCAP_D_IN) || pcap_setnonblock(d->p, 1, err) ||
	    pcap_compile(d->p, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) ||
	    pcap_setfilter(d->p, &prog)) {
		fprintf(stderr, "syntwin: the wire's capture on %s: %s\n", name, pcap_geterr(d->p));
		return -1;
	}
	pcap_freecode(&prog);
	d->dump = file_for(w, d->p);
	return d->dump ? 0 : -1;
}

struct wire *wire_open(const char *devs, const char *dir)
{
	struct wire *w = calloc(1, sizeof(*w));
	const char *p = devs;

	if (!w) {
		fprintf(stderr, "syntwin: the wire's capture: out of memory\n");
		return NULL;
	}
	w->dir = dir;
	while (*p) {
		size_t n = strcspn(p, ",");
		char name[32];

		if (w->ndev == WIRE_MAX_DEVS || n == 0 || n >= sizeof(name)) {
			fprintf(stderr, "syntwin: the wire's devices '%s': at most %d names\n", devs,
				WIRE_MAX_DEVS);
			wire_close(w);
			return NULL;
		}
		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		w->dev[w->ndev].w = w;
		if (open_dev(w, &w->dev[w->ndev++], name)) {
			wire_close(w);
			return NULL;
		}
		p += n + (p[n] == ',');
	}
	return w;
}

int wire_drain(struct wire *w)
{
	for (int i = 0; i < w->ndev; i++) {
		int n;

		do
			n = pcap_dispatch(w->dev[i].p, -1, on_frame, (u_char *)&w->dev[i]);
		while (n > 0);
		if (n < 0) {
			fprintf(stderr, "syntwin: the wire's capture: %s\n", pcap_geterr(w->dev[i].p));
			return -1;
		}
	}
	return 0;
}

int wire_take(struct wire *w, const struct capture_key *flow, uint32_t tag,
	      struct point_copy *c, uint8_t *frame, size_t *frame_len)
{
	struct wire_syn **pp = &w->bucket[slot_of(flow)], *s;
	int rc = -1;

	/* the copy with @tag is taken; the SYN's other copies go with it (no record asks for
	 * them: the kernel kept one copy of a SYN) */
	while ((s = *pp)) {
		if (memcmp(&s->flow, flow, sizeof(*flow))) {
			pp = &s->next;
			continue;
		}
		if (s->tag == tag && rc) {
			*c = s->c;
			memcpy(frame, s->frame, s->frame_len);
			*frame_len = s->frame_len;
			rc = 0;
		}
		*pp = s->next;
		free(s);
		w->held--;
	}
	return rc;
}

void wire_counts(struct wire *w, uint64_t *seen, uint64_t *stored, uint64_t *dropped)
{
	*seen = w->seen;
	*stored = w->stored;
	*dropped = w->failed;	/* a copy not kept (memory, the table's bound) is one lost */
	for (int i = 0; i < w->ndev; i++) {
		struct pcap_stat ps;

		if (pcap_stats(w->dev[i].p, &ps) == 0)
			*dropped += ps.ps_drop;
		else
			(*dropped)++; /* unknown: counted as a loss, never as none */
	}
}

int wire_close(struct wire *w)
{
	int rc = 0;

	if (!w)
		return 0;
	for (int i = 0; i < w->nfiles; i++) {
		if (w->files[i].d && (pcap_dump_flush(w->files[i].d) || ferror(pcap_dump_file(w->files[i].d))))
			rc = -1;
		if (w->files[i].d)
			pcap_dump_close(w->files[i].d);
	}
	for (int i = 0; i < w->ndev; i++)
		if (w->dev[i].p)
			pcap_close(w->dev[i].p);
	for (uint32_t b = 0; b < WIRE_BUCKETS; b++)
		while (w->bucket[b]) {
			struct wire_syn *s = w->bucket[b];

			w->bucket[b] = s->next;
			free(s);
		}
	free(w);
	return rc;
}
