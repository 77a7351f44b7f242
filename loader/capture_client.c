// SPDX-License-Identifier: GPL-2.0
/* Userspace access to the witness's pinned maps (see capture_client.h). */
#include "capture_client.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

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

int capture_client_open(struct capture_client *c)
{
	c->by_cookie_fd = open_pin("syn_by_cookie");
	c->by_flow_fd = open_pin("syn_by_flow");
	c->counters_fd = open_pin("counters");
	c->errors_fd = open_pin("errors");
	if (c->by_cookie_fd < 0 || c->by_flow_fd < 0 || c->counters_fd < 0 || c->errors_fd < 0) {
		int err = c->by_cookie_fd < 0 ? c->by_cookie_fd : c->by_flow_fd < 0 ? c->by_flow_fd :
			  c->counters_fd < 0 ? c->counters_fd : c->errors_fd;

		capture_client_close(c);
		return err;
	}
	return 0;
}

void capture_client_close(struct capture_client *c)
{
	int *fds[] = { &c->by_cookie_fd, &c->by_flow_fd, &c->counters_fd, &c->errors_fd };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

int capture_key_of(const struct capture_rec *r, struct capture_key *k)
{
	const __u8 *ip = r->data + r->mac_len, *tcp = ip + r->net_len;
	size_t alen = r->family == AF_INET6 ? 16 : 4, aoff = r->family == AF_INET6 ? 8 : 12;

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

int capture_lookup_cookie(struct capture_client *c, __u64 cookie, struct capture_rec *out,
			  bool take)
{
	struct capture_key k;

	if (bpf_map_lookup_elem(c->by_cookie_fd, &cookie, out))
		return -errno;
	if (!take)
		return 0;
	if (bpf_map_delete_elem(c->by_cookie_fd, &cookie) && errno != ENOENT)
		return -errno;
	if (capture_key_of(out, &k) == 0 && bpf_map_delete_elem(c->by_flow_fd, &k) &&
	    errno != ENOENT)
		return -errno;
	return 0;
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

int capture_each_unbound(struct capture_client *c,
			 int (*fn)(const struct capture_key *, const struct capture_rec *, void *),
			 void *arg)
{
	struct capture_key key, next;
	struct capture_rec rec;
	void *prev = NULL;
	int n = 0;

	while (bpf_map_get_next_key(c->by_flow_fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(c->by_flow_fd, &key, &rec))
			continue; /* evicted meanwhile */
		n++;
		if (fn(&key, &rec, arg))
			break;
	}
	return n;
}

int capture_error(struct capture_client *c, __u32 slot, struct bpf_error *out)
{
	if (bpf_map_lookup_elem(c->errors_fd, &slot, out))
		return -errno;
	return 0;
}
