// SPDX-License-Identifier: GPL-2.0
/* TEST ONLY: the run's test faults (test_hooks.h). */
#define _GNU_SOURCE
#include "test_hooks.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net_helpers.h"

static const struct opts *fault_opts;

/* The test faults strike right after a record reached the disk, so a test knows exactly how
 * many records were judged: all of them must be in connections.jsonl. */
static void test_fault(const struct report *rep)
{
	const struct opts *o = fault_opts;
	int fd;

	if (!o || !o->test_fault || rep->lines_written != o->test_fault_after)
		return;
	fprintf(stderr, "TEST FAULT: %s with %llu records on disk\n", o->test_fault,
		(unsigned long long)rep->lines_written);
	if (!strcmp(o->test_fault, "kill-server"))
		raise(SIGKILL);
	fd = open("/proc/sysrq-trigger", O_WRONLY);
	if (fd < 0 || write(fd, "c", 1) != 1)
		log_err("sysrq");
}

void test_hooks_init(const struct opts *o, struct record_writer *w)
{
	fault_opts = o;
	if (!o->test_fault)
		return;
	w->written = test_fault;
	w->flush_at = o->test_fault_after;
}

void test_corrupt_copy(const struct opts *o, struct run_stats *st, struct socket_seen *g)
{
	struct capture_rec *r = g->judged >= 0 ? &g->cp.rec[g->judged] : NULL;

	/* every K-th record with both copies, so the number made wrong does not depend on where
	 * the records without a native copy fall */
	if (r && o->test_corrupt && g->ob.native && ++st->corrupt_seen % o->test_corrupt == 0 &&
	    r->cap_len > 20)
		r->data[r->cap_len - 5] ^= 0x5a;
}

/*
 * TEST ONLY (--test-corrupt-covered): where an explanation covers part of a record, make the
 * kernel's copy wrong in exactly that part, as a wrong kernel would be: the address or time
 * the IPv4 option rewrite wrote (its top byte) or the overflow count it raised, the Ethernet type behind a VLAN tag taken out,
 * the IP ID or flow label that tells retransmitted copies apart, the MAC header of an
 * identical mode-2 copy. Returns which region it corrupted in @buf (a copy of the native
 * bytes), or NULL.
 */
static const char *corrupt_covered(const struct observation *ob, const struct compare_result *res,
				   uint8_t *buf)
{
	/* the kernel's MAC header: none in mode 1 or on a device without one (tun), else 14
	 * bytes (QinQ's inner tag is already out) */
	size_t mac = ob->mode == 2 && ob->n && ob->copy[ob->n - 1].mac_len ? 14 : 0, off;
	const uint8_t *ip = buf + mac;

	if (ob->native_len < mac + 40)
		return NULL;
	switch (res->verdict == V_EXPLAINED ? res->reason : R_NONE) {
	case R_IPV4_OPTION_REWRITE:
		for (off = 20; off < (size_t)(ip[0] & 0x0f) * 4 && ip[off]; ) {
			uint8_t ptr = ip[off + 2], len = ip[off + 1];

			if ((ip[off] == 7 || ip[off] == 68) && ptr >= 8 && ptr <= len + 1) {
				buf[mac + off + ptr - 5] ^= 0x80; /* the last unit written */
				return "ipv4-option-slot";
			}
			if (ip[off] == 68 && ptr > len) { /* full: the overflow count went up */
				buf[mac + off + 3] ^= 0x10;
				return "ipv4-option-overflow";
			}
			off += ip[off] == 1 ? 1 : ip[off + 1];
		}
		return NULL;
	case R_VLAN_OFFLOAD:
		buf[12] ^= 0x01;
		return "vlan-ethertype";
	case R_RETRANSMIT:
		buf[mac + ((ip[0] >> 4) == 4 ? 5 : 3)] ^= 0x01;
		return "retransmit-id";
	default:
		if (res->verdict != V_IDENTICAL || !mac)
			return NULL;
		buf[0] ^= 0x01;
		return "mac";
	}
}

int test_corrupt_covered(const struct opts *o, struct run_stats *st, struct observation *ob,
			 struct compare_result *res, uint8_t *buf, int bad)
{
	const char *region;

	if (!o->test_corrupt_covered || !ob->native || ob->native_len > 1024)
		return bad;
	memcpy(buf, ob->native, ob->native_len);
	region = corrupt_covered(ob, res, buf);
	if (!region)
		return bad;
	ob->native = buf;
	bad = judge(ob, res);
	st->test_corrupted++;
	fprintf(stderr, "TEST CORRUPT: %s\n", region);
	return bad;
}

void test_reset(const struct opts *o, int fd, const struct conn_record *c)
{
	/* its close sends an RST (seq = the SYN-ACK's ISN + 1, nothing sent) */
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	if (o->test_reset < 0 || !c->gen || strcmp(c->gen, "sockets") ||
	    c->gen_index != (uint64_t)o->test_reset)
		return;
	if (setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)))
		log_err("TEST RESET: SO_LINGER");
	fprintf(stderr, "TEST RESET: sockets #%lld reset by the server\n", (long long)o->test_reset);
}
