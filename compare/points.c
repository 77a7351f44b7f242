// SPDX-License-Identifier: GPL-2.0
/* The capture points of a run, gathered and judged per record (points.h). */
#define _GNU_SOURCE
#include "points.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "point_names.h"

_Static_assert(sizeof(((struct point_record *)0)->wire_frame) == WIRE_SNAPLEN,
	       "the record holds a whole frame of the wire");

#define BPF_POINTS (1u << PT_XDP | 1u << PT_TCP)

static int open_pin(const char *name)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", CAPTURE_PIN_DIR, name);
	fd = bpf_obj_get(path);
	if (fd < 0)
		fprintf(stderr, "syntwin: capture points: %s: %s (were they attached? "
			"syntwin-loader attach --points)\n", path, strerror(errno));
	return fd;
}

/* The XDP mode of each device in @devs, as the kernel reports it, into @P->sum->xdp_modes; a device
 * without the point's program is a setup error. 0 or -1. */
static int xdp_modes(struct points *P, const char *devs)
{
	size_t used = 0;

	for (const char *p = devs; *p;) {
		size_t n = strcspn(p, ",");
		LIBBPF_OPTS(bpf_xdp_query_opts, q);
		char name[IF_NAMESIZE];
		unsigned int ifindex;

		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		p += n + (p[n] == ',');
		ifindex = if_nametoindex(name);
		if (!ifindex || bpf_xdp_query((int)ifindex, 0, &q) || !q.prog_id) {
			fprintf(stderr, "syntwin: capture point xdp: no XDP program on %s\n", name);
			return -1;
		}
		used += (size_t)snprintf(P->sum->xdp_modes + used, sizeof(P->sum->xdp_modes) - used,
					 "%s%s %s", used ? ", " : "", name,
					 q.attach_mode == XDP_ATTACHED_DRV ? "native" : "generic");
		if (used >= sizeof(P->sum->xdp_modes))
			break;
	}
	return 0;
}

int points_open(struct points *P, unsigned int mask, const char *devs, const char *dir,
		struct points_summary *sum)
{
	memset(P, 0, sizeof(*P));
	P->sum = sum;
	P->syns_fd = P->counts_fd = -1;
	P->test_point = -1;
	P->mask = mask & ~(1u << PT_TC);
	sum->mask = P->mask;
	if (P->mask & BPF_POINTS) {
		struct bpf_map_info info = { 0 };
		__u32 len = sizeof(info);

		P->syns_fd = open_pin("point_syns");
		P->counts_fd = open_pin("point_counts");
		if (P->syns_fd < 0 || P->counts_fd < 0)
			return -1;
		if (!bpf_obj_get_info_by_fd(P->syns_fd, &info, &len))
			for (int i = 0; i < PT_MAX; i++)
				P->sum->st[i].capacity = info.max_entries;
	}
	if (P->mask & (1u << PT_XDP) && xdp_modes(P, devs))
		return -1;
	if (P->mask & (1u << PT_WIRE) && !(P->wire = wire_open(devs, dir)))
		return -1;
	return 0;
}

/* The BPF point @pt's counter @which now; 0 if unreadable. */
static uint64_t bpf_counter(const struct points *P, int pt, int which)
{
	__u32 i = (__u32)(pt * PC_MAX + which);
	__u64 v = 0;

	bpf_map_lookup_elem(P->counts_fd, &i, &v);
	return v;
}

/* Did point @pt lose copies so far: a copy its map had no room for (a plain hash: every
 * failed insert is counted, none evicted), frames its capture dropped or failed to read or
 * keep? Exact, either way: a copy not lost so is missing. */
static bool lost_so_far(struct points *P, int pt)
{
	uint64_t seen, stored, dropped;
	__u32 i = (__u32)(pt * PC_MAX + PC_INSERT_FAIL);
	__u64 fails = 1;

	if (pt == PT_WIRE) {
		wire_counts(P->wire, &seen, &stored, &dropped);
		return dropped > 0 || P->sum->st[PT_WIRE].dropped > 0;
	}
	/* unreadable: counted as a loss, never as none */
	return bpf_map_lookup_elem(P->counts_fd, &i, &fails) || fails > 0;
}

/* Point @pt's copy of @flow/@tag into @c (taken: the map entry or table entry is removed).
 * 0, or -1 if it has none. */
static int take_copy(struct points *P, int pt, const struct capture_key *flow, uint32_t tag,
		     struct point_record *rec)
{
	struct point_copy *c = &rec->copy[pt];
	struct point_key k = { .point = (__u8)pt, .tag = tag, .flow = *flow };
	struct point_rec r;

	if (pt == PT_WIRE)
		return wire_take(P->wire, flow, tag, c, rec->wire_frame, &rec->wire_frame_len);
	if (bpf_map_lookup_elem(P->syns_fd, &k, &r))
		return -1;
	bpf_map_delete_elem(P->syns_fd, &k);
	c->len = r.cap_len <= CAPTURE_MAX ? r.cap_len : CAPTURE_MAX;
	c->mac_len = r.mac_len;
	c->cut = r.flags & (PT_F_TRUNCATED | PT_F_NONLINEAR);
	c->seen = r.seen;
	memcpy(c->data, r.data, c->len);
	return 0;
}

/* TEST ONLY (--test-corrupt-point): every N-th copy point @pt has, one byte flipped past its
 * link-layer header (in what both modes compare). */
static void test_corrupt(struct points *P, int pt, struct point_copy *c)
{
	if (!P->test_every || pt != P->test_point || !c->len || c->len <= c->mac_len + 8 ||
	    ++P->test_seen % P->test_every)
		return;
	c->data[c->mac_len + 8] ^= 0x01; /* IPv4 TTL, IPv6 source address: no explanation */
	P->sum->st[pt].corrupted++;
}

/* Point @pt's verdict @v (explained by @reason) counted. */
static void tally(struct points *P, int pt, enum point_verdict v, enum reason reason)
{
	P->sum->st[pt].verdict[v]++;
	if (v == PV_EXPLAINED)
		P->sum->st[pt].reason[reason]++;
}

int points_compare(struct points *P, const struct capture_key *flow, uint32_t tag, bool named,
		   int mode, const uint8_t *native, size_t native_len,
		   const struct ipv4_env *env, const struct compare_result *tc, int tc_bad,
		   struct point_record *rec)
{
	/* a copy is looked for only where there is something to compare it with */
	bool compared = named && native && native_len;
	int bad = 0;

	/* tc's verdict, counted as a point's would be, on the same records */
	tally(P, PT_TC, point_verdict_of_witness(tc, tc_bad, compared), tc->reason);
	rec->mask = P->mask;
	rec->wire_frame_len = 0;
	if (P->wire && wire_drain(P->wire))
		P->sum->st[PT_WIRE].dropped++; /* a read error: what it held is lost */
	for (int pt = 0; pt < PT_MAX; pt++) {
		struct point_copy *c = &rec->copy[pt];
		struct point_input in = { .mode = mode, .native = native, .native_len = native_len,
					  .copy_named = named, .after_ip = pt == PT_TCP,
					  .env = env };

		if (!(P->mask & (1u << pt)))
			continue;
		c->len = 0;
		if (compared && take_copy(P, pt, flow, tag, rec) == 0) {
			test_corrupt(P, pt, c);
			in.copy = c->data;
			in.len = c->len;
			in.mac_len = c->mac_len;
			in.cut = c->cut;
		} else if (compared) {
			in.point_lost = lost_so_far(P, pt);
		}
		bad += judge_point(&in, &rec->r[pt]);
		tally(P, pt, rec->r[pt].verdict, rec->r[pt].reason);
	}
	return bad;
}

void points_end(struct points *P)
{
	for (int pt = 0; pt < PT_MAX; pt++) {
		if (!(P->mask & (1u << pt)))
			continue;
		if (pt == PT_WIRE) {
			uint64_t dropped;

			if (wire_drain(P->wire))
				P->sum->st[pt].dropped++; /* what it held is lost */
			wire_counts(P->wire, &P->sum->st[pt].counter[PC_SYN_SEEN],
				    &P->sum->st[pt].counter[PC_STORED], &dropped);
			P->sum->st[pt].dropped += dropped;
			continue;
		}
		for (int i = 0; i < PC_MAX; i++)
			P->sum->st[pt].counter[i] = bpf_counter(P, pt, i);
	}
}

/* (tc's own losses are the run's already) */
uint64_t points_lost(const struct points *P)
{
	uint64_t n = 0;

	for (int pt = 0; P->sum && pt < PT_MAX; pt++)
		if (pt != PT_TC)
			n += P->sum->st[pt].verdict[PV_LOST];
	return n;
}

int points_close(struct points *P)
{
	int rc;

	if (!P->sum) /* never opened */
		return 0;
	rc = wire_close(P->wire);

	P->wire = NULL;
	if (P->syns_fd >= 0)
		close(P->syns_fd);
	if (P->counts_fd >= 0)
		close(P->counts_fd);
	P->syns_fd = P->counts_fd = -1;
	return rc;
}
