// SPDX-License-Identifier: GPL-2.0
/* The in-kernel readers of a socket's saved copy, judged (readers.h). */
#define _GNU_SOURCE /* strerrorname_np() */
#include "readers.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* What one reader must return: @len bytes equal to @want, or -@err when @len < 0. */
struct region_want {
	const char *name;
	const struct read_region *got;
	const uint8_t *want;
	long len;
	int err;
	const char *why;	/* where the expectation comes from, for the detail */
};

static int reader_differs(struct compare_result *res)
{
	res->verdict = V_READER_DIFFERS;
	res->reason = R_NONE;
	res->diff_off = -1;	/* the byte is the region's, named in the detail */
	return 1;
}

/* One region against its want; 1 (and @res filled) if it differs. */
static int judge_region(const struct region_want *w, struct compare_result *res)
{
	long len = w->len;

	if (len < 0) {
		if (w->got->len == -w->err)
			return 0;
		snprintf(res->detail, sizeof(res->detail), "in-kernel reader %s returned %d, want "
			 "-%s (%s)", w->name, w->got->len, strerrorname_np(w->err), w->why);
		return reader_differs(res);
	}
	/* a region longer than the buffer comes back cut, with -ENOSPC (bpf_sock_ops_getsockopt) */
	if (len > READ_MAX ? w->got->len != -ENOSPC : w->got->len != len) {
		snprintf(res->detail, sizeof(res->detail), "in-kernel reader %s returned %d, want %ld "
			 "bytes (%s)", w->name, w->got->len, len, w->why);
		return reader_differs(res);
	}
	if (len > READ_MAX)
		len = READ_MAX;
	for (long i = 0; i < len; i++) {
		if (w->got->b[i] == w->want[i])
			continue;
		snprintf(res->detail, sizeof(res->detail), "in-kernel reader %s: byte %ld is 0x%02x, "
			 "the same byte of TCP_SAVED_SYN's read 0x%02x", w->name, i, w->got->b[i],
			 w->want[i]);
		return reader_differs(res);
	}
	return 0;
}

/* Every region -ENOENT: the socket has no saved copy (TCP_SAVED_SYN returned nothing). */
static void want_none(const struct syn_reads *r, struct region_want *w)
{
	const struct read_region *got[3] = { &r->tcp, &r->ip, &r->mac };
	static const char *const names[3] = { "TCP_BPF_SYN", "TCP_BPF_SYN_IP", "TCP_BPF_SYN_MAC" };

	for (int i = 0; i < 3; i++)
		w[i] = (struct region_want){ names[i], got[i], NULL, -1, ENOENT,
					     "TCP_SAVED_SYN returned nothing" };
}

/* The regions of a copy the userspace read returned whole (@n bytes, the last @ip of them
 * the network and TCP headers by the witness's split). */
static void want_regions(const struct readers_input *in, size_t n, size_t ip,
			 struct region_want *w)
{
	const uint8_t *b = in->native;

	w[0] = (struct region_want){ "TCP_BPF_SYN", &in->reads->tcp, b + n - in->tcp_len,
				     (long)in->tcp_len, 0,
				     "the witness's TCP header length, the end of TCP_SAVED_SYN's "
				     "read" };
	w[1] = (struct region_want){ "TCP_BPF_SYN_IP", &in->reads->ip, b + n - ip, (long)ip, 0,
				     "the witness's network and TCP header lengths, the end of "
				     "TCP_SAVED_SYN's read" };
	w[2] = (struct region_want){ "TCP_BPF_SYN_MAC", &in->reads->mac, b, (long)n, 0,
				     "all of TCP_SAVED_SYN's read, its MAC header with it" };
	if (in->mode != 2 || n == ip)
		w[2] = (struct region_want){ "TCP_BPF_SYN_MAC", &in->reads->mac, NULL, -1, ENOENT,
					     in->mode == 2 ? "the copy has no MAC header" :
							     "mode 1 keeps no MAC header" };
}

int judge_readers(const struct readers_input *in, struct compare_result *res)
{
	size_t ip = in->net_len + in->tcp_len, n = in->native ? in->native_len : 0;
	struct region_want w[3];

	if (!in->reads)
		return 0;
	if (n && (n < ip || !in->tcp_len)) {
		snprintf(res->detail, sizeof(res->detail), "TCP_SAVED_SYN returned %zu bytes, but the "
			 "witness's network and TCP headers are %zu + %zu: the readers' regions cannot "
			 "be placed", n, in->net_len, in->tcp_len);
		return reader_differs(res);
	}
	if (n)
		want_regions(in, n, ip, w);
	else
		want_none(in->reads, w);
	for (int i = 0; i < 3; i++)
		if (judge_region(&w[i], res))
			return 1;
	return 0;
}
