// SPDX-License-Identifier: GPL-2.0
/* Userspace access to the witness's pinned maps (see capture_client.h). */
#include "capture_client.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bound_table.h"
#include "fdinfo.h"

const char *const capture_counter_names[CNT_MAX] = { CAPTURE_COUNTER_NAMES };

static int open_pin(const char *name)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", CAPTURE_PIN_DIR, name);
	fd = bpf_obj_get(path);
	if (fd < 0) {
		fd = -errno;
		fprintf(stderr, "syntwin: cannot open %s: %s (is the witness attached?)\n", path,
			strerror(-fd));
	}
	return fd;
}

/* The client's map fds, for open's error check and for close. */
static const size_t fd_offsets[] = {
	offsetof(struct capture_client, by_flow_fd), offsetof(struct capture_client, counters_fd),
	offsetof(struct capture_client, errors_fd), offsetof(struct capture_client, copies_fd),
	offsetof(struct capture_client, events_fd), offsetof(struct capture_client, late_fd),
};
#define NFDS (sizeof(fd_offsets) / sizeof(fd_offsets[0]))

static int *client_fd(struct capture_client *c, size_t i)
{
	return (int *)((char *)c + fd_offsets[i]);
}

/* One record from the ring: filed by its socket's cookie until a consumer takes it. */
static int on_event(void *ctx, void *data, size_t size)
{
	struct capture_client *c = ctx;

	if (size < sizeof(struct bound_rec))
		return 0; /* not ours: the ring carries bound records only */
	return bound_table_put(c->bound, data);
}

__u32 capture_ring_bytes(__u32 entries)
{
	__u64 want = (__u64)entries * (sizeof(struct bound_rec) + 8);
	__u32 b = CAPTURE_RING_MIN;

	while (b < CAPTURE_RING_MAX && b < want)
		b <<= 1;
	return b;
}

int capture_client_open(struct capture_client *c)
{
	c->by_flow_fd = open_pin("syn_by_flow");
	c->counters_fd = open_pin("counters");
	c->errors_fd = open_pin("errors");
	c->copies_fd = open_pin("syn_copies");
	c->events_fd = open_pin("syn_events");
	c->late_fd = open_pin("syn_late");
	c->ring = NULL;
	c->bound = NULL;
	c->taken_flow = 0;
	c->capacity = 0;
	c->take = (struct flow_take){ .prog_fd = -1 };
	if (c->by_flow_fd >= 0) {
		struct bpf_map_info info = { 0 };
		__u32 len = sizeof(info);

		if (!bpf_obj_get_info_by_fd(c->by_flow_fd, &info, &len))
			c->capacity = info.max_entries;
	}
	for (size_t i = 0; i < NFDS; i++) {
		int err = *client_fd(c, i);

		if (err < 0) {
			capture_client_close(c);
			return err;
		}
	}
	c->bound = bound_table_new();
	c->ring = c->bound ? ring_buffer__new(c->events_fd, on_event, c, NULL) : NULL;
	if (!c->ring) {
		int err = c->bound ? -errno : -ENOMEM;

		fprintf(stderr, "syntwin: cannot read the ring buffer syn_events: %s\n",
			strerror(-err));
		capture_client_close(c);
		return err;
	}
	return 0;
}

void capture_client_close(struct capture_client *c)
{
	flow_take_close(&c->take);
	ring_buffer__free(c->ring);
	c->ring = NULL;
	bound_table_free(c->bound);
	c->bound = NULL;
	for (size_t i = 0; i < NFDS; i++) {
		int *fd = client_fd(c, i);

		if (*fd >= 0)
			close(*fd);
		*fd = -1;
	}
}

int capture_key_of(const struct capture_rec *r, struct capture_key *k)
{
	const __u8 *ip = r->data + r->mac_len, *tcp = ip + r->net_len;
	size_t alen = r->family == AF_INET6 ? 16 : 4, aoff = r->family == AF_INET6 ? 8 : 12;

	if (r->flags & CAP_F_NO_SYN) { /* a cookie child's record: the key itself */
		memcpy(k, r->data, sizeof(*k));
		return 0;
	}
	if ((size_t)r->mac_len + r->net_len + 8 > r->cap_len || r->cap_len > CAPTURE_MAX)
		return -EINVAL;
	memset(k, 0, sizeof(*k));
	k->family = r->family;
	memcpy(k->saddr, ip + aoff, alen);
	memcpy(k->daddr, ip + aoff + alen, alen);
	memcpy(&k->sport, tcp, 2);
	memcpy(&k->dport, tcp + 2, 2);
	k->seq = (__u32)tcp[4] << 24 | tcp[5] << 16 | tcp[6] << 8 | tcp[7];
	return 0;
}

/* @now, the flow's record, in place of @out but for what only the bound socket's record
 * says of that socket: its cookie and its own ISN (the flow's entry holds the last socket
 * bound to the flow, and nothing of it once a later copy replaced the entry). */
static void take_flow_state(const struct capture_rec *now, struct capture_rec *out)
{
	__u64 cookie = out->cookie;
	__u32 isn = out->local_isn;

	*out = *now;
	out->cookie = cookie;
	out->local_isn = isn;
}

/*
 * The flow's record as it is now (@now), in place of @out (the copy bound to the socket), when
 * it is the same SYN (or SYN-ACK): its fate noted since (a drop, an allocation) and any copies
 * that came after the bind (a duplicate SYN-ACK reaching the established socket, a SYN
 * retransmitted into an accepted connection), which the judge must see too. The bound copy is
 * found among the kept ones by its position and its incarnation (@now_inc is @now's, @out_inc
 * the bound copy's: copy_incarnation(), which names one copy where the tag names every copy of
 * the same bytes in it); if @now is another SYN's, or another copy at the bound one's place (the
 * key made anew), @out stays.
 */
static void catch_up(struct capture_client *c, const struct capture_rec *now, __u64 now_inc,
		     struct capture_rec *out, __u64 out_inc)
{
	struct copy_key ck = { .n = out->copies - 1u };
	struct capture_rec bound;

	if (now->copies < out->copies || !out_inc)
		return;
	if (now->copies == out->copies) {
		if (now_inc == out_inc)
			take_flow_state(now, out);
		return;
	}
	if (out->copies < 1 || out->copies > CAPTURE_MAX_COPIES - 1 ||
	    capture_key_of(out, &ck.flow) ||
	    bpf_map_lookup_elem(c->copies_fd, &ck, &bound) || copy_incarnation(&bound) != out_inc)
		return;
	take_flow_state(now, out);
}

int capture_drain(struct capture_client *c)
{
	return ring_buffer__consume(c->ring);
}

int capture_peek_bound(struct capture_client *c, __u64 cookie, struct capture_rec *out)
{
	struct bound_rec b;
	int err = capture_drain(c);

	if (err < 0)
		return err;
	err = bound_table_get(c->bound, cookie, &b, 0);
	if (!err) {
		*out = b.rec;
		out->take_state = 0;
	}
	return err;
}

int capture_take_bound(struct capture_client *c, __u64 cookie, struct capture_rec *out,
		       struct syn_reads *reads)
{
	struct capture_rec now;
	struct capture_key k;
	struct bound_rec b;
	__u64 now_inc = 0;
	int err = capture_drain(c);

	if (err < 0)
		return err;
	if (bound_table_get(c->bound, cookie, &b, 1))
		return -ENOENT;
	*out = b.rec;
	out->take_state = 0;
	if (reads)
		*reads = b.reads;
	/* a cookie child's record has no SYN and no flow entry of its own to catch up with */
	if ((out->flags & CAP_F_NO_SYN) || capture_key_of(out, &k))
		return 0;
	err = flow_take(&c->take, &k, &now);
	if (err == -EAGAIN)
		err = bpf_map_lookup_and_delete_elem(c->by_flow_fd, &k, &now) ? -errno : 1;
	if (err > 0)
		now_inc = copy_incarnation(&now);
	now.take_state = 0; /* no take hands it out (struct take_slot) */
	if (err == -ENOENT)
		err = 0;
	if (err < 0)
		return err;
	if (err) {
		c->taken_flow++;
		catch_up(c, &now, now_inc, out, copy_incarnation(&b.rec));
	}
	return 0;
}

long capture_forget_bound(struct capture_client *c)
{
	if (capture_drain(c) < 0)
		return -1;
	return (long)bound_table_clear(c->bound);
}

int capture_find_cookie(struct capture_client *c, __u64 cookie, struct capture_rec *out)
{
	struct capture_key key, next;
	void *prev = NULL;

	while (bpf_map_get_next_key(c->by_flow_fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(c->by_flow_fd, &key, out) == 0 && out->cookie == cookie)
			return 0;
	}
	return errno == ENOENT ? -ENOENT : -errno;
}

__u64 capture_first_ts(struct capture_client *c, const struct capture_rec *r)
{
	struct copy_key ck = { .n = 0 };
	struct capture_rec first;

	if (r->copies <= 1 || capture_key_of(r, &ck.flow) ||
	    bpf_map_lookup_elem(c->copies_fd, &ck, &first))
		return r->ts_ns;
	return first.ts_ns;
}

int capture_peek_flow(struct capture_client *c, const struct capture_key *k,
		      struct capture_rec *out)
{
	return bpf_map_lookup_elem(c->by_flow_fd, k, out) ? -errno : 0;
}

int capture_take_flow(struct capture_client *c, const struct capture_key *k,
		      struct capture_rec *out)
{
	/* one step, under the bucket's lock: a later copy's replacement of the entry comes
	 * before it (and is what is taken) or after (and stays), never in between, where a
	 * lookup then a delete would delete it unseen */
	if (bpf_map_lookup_and_delete_elem(c->by_flow_fd, k, out))
		return -errno;
	out->take_state = 0; /* no take hands it out (struct take_slot) */
	c->taken_flow++;
	return 0;
}

/* Read from the kernel's own BTF, so the names follow the kernel: 6.12 numbers them apart
 * from 6.1. Loaded once. */
#define DROP_REASONS_MAX 512
static const char *drop_names[DROP_REASONS_MAX];
static int drop_names_loaded;

static void load_drop_names(void)
{
	struct btf *b = btf__load_vmlinux_btf();
	const struct btf_type *t;
	const struct btf_enum *e;
	int id;

	drop_names_loaded = 1;
	if (!b)
		return;
	id = btf__find_by_name_kind(b, "skb_drop_reason", BTF_KIND_ENUM);
	t = id > 0 ? btf__type_by_id(b, id) : NULL;
	e = t ? btf_enum(t) : NULL;
	for (int i = 0; e && i < btf_vlen(t); i++) {
		const char *n = btf__name_by_offset(b, e[i].name_off);

		if (!n || e[i].val < 0 || e[i].val >= DROP_REASONS_MAX)
			continue;
		if (!strncmp(n, "SKB_DROP_REASON_", 16))
			n += 16;
		drop_names[e[i].val] = strdup(n);
	}
	btf__free(b);
}

const char *capture_drop_reason_name(unsigned int v)
{
	if (!drop_names_loaded)
		load_drop_names();
	return v < DROP_REASONS_MAX ? drop_names[v] : NULL;
}

int capture_take_copies(struct capture_client *c, const struct capture_rec *r,
			struct capture_rec *out, int max)
{
	struct copy_key ck = { .n = 0 };
	int found = 0;

	if (capture_key_of(r, &ck.flow))
		return -EINVAL;
	for (ck.n = 0; ck.n + 1 < r->copies && ck.n < CAPTURE_MAX_COPIES - 1; ck.n++) {
		if (found >= max || bpf_map_lookup_elem(c->copies_fd, &ck, &out[found]))
			continue;
		bpf_map_delete_elem(c->copies_fd, &ck);
		found++;
	}
	return found;
}

static long long map_count(int fd, size_t key_size)
{
	__u8 key[sizeof(struct capture_key)], next[sizeof(struct capture_key)];
	long long n = 0;
	void *prev = NULL;

	while (bpf_map_get_next_key(fd, prev, next) == 0) {
		memcpy(key, next, key_size);
		prev = key;
		n++;
	}
	return errno == ENOENT ? n : -errno;
}

long long capture_lost_of(const __u64 *cnt, __u64 taken, long long in_flow)
{
	/* the flow keys that came to be: captures less those in place of a held entry (a copy
	 * parked while its entry was taken is a key of its own, in syn_late, then moved) */
	long long keys = (long long)(cnt[CNT_CAPTURED] - cnt[CNT_RECAPTURED] +
				     cnt[CNT_RECAPTURE_NEW] + cnt[CNT_TAKE_PARKED]);

	return keys - (long long)taken - in_flow + (long long)cnt[CNT_RING_DROPS];
}

long long capture_evictions(struct capture_client *c)
{
	__u64 cnt[CNT_MAX];
	long long in_flow, parked;
	/* Counters first, the maps second: an entry inserted in between is seen as present but
	 * not as inserted, so a race can only hide an eviction, never invent one. New flow keys
	 * are the captures less the copies that replaced one. */
	int err = capture_counters(c, cnt);

	if (err)
		return err;
	in_flow = map_count(c->by_flow_fd, sizeof(struct capture_key));
	if (in_flow < 0)
		return in_flow;
	parked = map_count(c->late_fd, sizeof(struct capture_key));
	if (parked < 0)
		return parked;
	in_flow += parked;
	/* below 0 only if another process took entries too */
	return capture_lost_of(cnt, c->taken_flow, in_flow);
}

/* The program link @name (under CAPTURE_PIN_DIR) holds, its information into *@pi; 0 or -1. */
static int linked_prog_info(const char *name, struct bpf_prog_info *pi)
{
	char path[256];
	int lfd, pfd, rc = -1;
	struct bpf_link_info li = { 0 };
	__u32 len = sizeof(li);

	snprintf(path, sizeof(path), "%s/%s", CAPTURE_PIN_DIR, name);
	lfd = bpf_obj_get(path);
	if (lfd < 0)
		return -1;
	if (!bpf_obj_get_info_by_fd(lfd, &li, &len)) {
		pfd = bpf_prog_get_fd_by_id(li.prog_id);
		len = sizeof(*pi);
		memset(pi, 0, sizeof(*pi));
		if (pfd >= 0 && !bpf_obj_get_info_by_fd(pfd, pi, &len))
			rc = 0;
		if (pfd >= 0)
			close(pfd);
	}
	close(lfd);
	return rc;
}

int capture_drops_with_reason(void)
{
	struct bpf_prog_info pi;

	if (linked_prog_info(CAPTURE_LINK_DROPS, &pi))
		return -1;
	return !strcmp(pi.name, "syn_drop"); /* the other: "syn_drop_no_rea" */
}

int capture_counters(struct capture_client *c, __u64 *out)
{
	int ncpu = libbpf_num_possible_cpus();
	__u64 *per;

	if (ncpu <= 0)
		return -EINVAL;
	per = calloc(ncpu, sizeof(*per));
	if (!per)
		return -ENOMEM;
	for (__u32 k = 0; k < CNT_MAX; k++) {
		out[k] = 0;
		if (bpf_map_lookup_elem(c->counters_fd, &k, per)) {
			free(per);
			return -errno;
		}
		for (int i = 0; i < ncpu; i++)
			out[k] += per[i];
	}
	free(per);
	return 0;
}

int capture_unpark(struct capture_client *c)
{
	struct capture_rec rec, held;
	struct capture_key key, next;
	void *prev = NULL;
	int left = 0;

	while (bpf_map_get_next_key(c->late_fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(c->late_fd, &key, &rec))
			continue;
		/* into syn_by_flow, then out of syn_late: never in neither. A key a newer copy
		 * made is looked up first, as unpark() does in BPF: an insert into a full LRU map
		 * evicts another flow's entry before it finds the key there. */
		if (bpf_map_lookup_elem(c->by_flow_fd, &key, &held) == 0 ||
		    bpf_map_update_elem(c->by_flow_fd, &key, &rec, BPF_NOEXIST)) {
			left++;
			continue;
		}
		bpf_map_delete_elem(c->late_fd, &key);
	}
	return left;
}

/* Every entry of map @fd, each to @fn (its take_state @mark); @fn nonzero stops: *@stop. */
static int each_entry(int fd, __u64 mark, bool *stop,
		      int (*fn)(const struct capture_key *, const struct capture_rec *, void *),
		      void *arg)
{
	struct capture_key key, next;
	struct capture_rec rec;
	void *prev = NULL;
	int n = 0;

	while (!*stop && bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &rec))
			continue; /* evicted or taken meanwhile */
		rec.take_state = mark;
		n++;
		*stop = fn(&key, &rec, arg) != 0;
	}
	return n;
}

int capture_each_unbound(struct capture_client *c,
			 int (*fn)(const struct capture_key *, const struct capture_rec *, void *),
			 void *arg)
{
	bool stop = false;
	int n = each_entry(c->by_flow_fd, 0, &stop, fn, arg);

	return n + each_entry(c->late_fd, CAPTURE_PARKED_REC, &stop, fn, arg);
}

int capture_take_left(struct capture_client *c, const struct capture_key *k,
		      const struct capture_rec *r, struct capture_rec *out)
{
	if (r->take_state != CAPTURE_PARKED_REC)
		return capture_take_flow(c, k, out);
	if (bpf_map_lookup_and_delete_elem(c->late_fd, k, out))
		return -errno;
	out->take_state = 0;
	c->taken_flow++;
	return 0;
}

int capture_error(struct capture_client *c, __u32 slot, struct bpf_error *out)
{
	if (bpf_map_lookup_elem(c->errors_fd, &slot, out))
		return -errno;
	return 0;
}

long long capture_map_bytes(struct capture_client *c)
{
	long long a = fdinfo_number(c->by_flow_fd, "memlock");
	long long b = fdinfo_number(c->events_fd, "memlock");

	return a < 0 || b < 0 ? -1 : a + b;
}
