// SPDX-License-Identifier: GPL-2.0
/* Run outputs: JSONL, pcap and atomically written JSON (see report.h). */
#define _GNU_SOURCE /* strerrorname_np */
#include "report.h"

#include <linux/types.h>

#include "copy_readers.h"
#include "decode.h"
#include "fp_record.h"
#include "pcapng.h"
#include "point_names.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

int write_file_atomic(const char *dir, const char *name, const char *json)
{
	char tmp[600], dst[600];
	FILE *f;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, name) >= sizeof(tmp) ||
	    (size_t)snprintf(dst, sizeof(dst), "%s/%s", dir, name) >= sizeof(dst)) {
		fprintf(stderr, "syntwin: results path too long: %s/%s\n", dir, name);
		errno = ENAMETOOLONG;
		return -1;
	}
	f = fopen(tmp, "w");
	if (!f || fputs(json, f) < 0 || fflush(f) || fsync(fileno(f))) {
		fprintf(stderr, "syntwin: cannot write %s: %s\n", tmp, strerror(errno));
		if (f)
			fclose(f);
		unlink(tmp);
		return -1;
	}
	/* fclose() frees the stream whatever it returns: never called twice. */
	if (fclose(f)) {
		fprintf(stderr, "syntwin: cannot write %s: %s\n", tmp, strerror(errno));
		unlink(tmp);
		return -1;
	}
	if (rename(tmp, dst)) {
		fprintf(stderr, "syntwin: cannot rename %s to %s: %s\n", tmp, dst, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

int report_open(struct report *r, const char *dir)
{
	char path[600];

	memset(r, 0, sizeof(*r));
	r->jsonl_fd = -1;
	if ((size_t)snprintf(r->dir, sizeof(r->dir), "%s", dir) >= sizeof(r->dir) - 32) {
		fprintf(stderr, "syntwin: results path too long: %s\n", dir);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/connections.jsonl", dir);
	r->jsonl_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (r->jsonl_fd < 0) {
		fprintf(stderr, "syntwin: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	/* Raw IP link type: both versions are written from the network header on. */
	r->pcap_dead = pcap_open_dead(DLT_RAW, 65535);
	snprintf(path, sizeof(path), "%s/.mismatches.pcap.tmp", dir);
	r->pcap = r->pcap_dead ? pcap_dump_open(r->pcap_dead, path) : NULL;
	if (!r->pcap) {
		fprintf(stderr, "syntwin: cannot write %s: %s\n", path,
			r->pcap_dead ? pcap_geterr(r->pcap_dead) : "pcap_open_dead failed");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/.mismatches.pcapng.tmp", dir);
	r->pcapng = fopen(path, "w");
	if (!r->pcapng || pcapng_start(r->pcapng)) {
		fprintf(stderr, "syntwin: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/.syns.pcap.tmp", dir);
	r->syns = pcap_dump_open(r->pcap_dead, path);
	if (!r->syns) {
		fprintf(stderr, "syntwin: cannot write %s: %s\n", path, pcap_geterr(r->pcap_dead));
		return -1;
	}
	return 0;
}

size_t report_native_mac_len(const struct conn_record *c)
{
	/* the native's MAC (mode 2) is 14 bytes even where the capture's is 18: the kernel strips
	 * QinQ's inner tag before TCP saves the MAC header */
	return c->mode == 2 ? (c->bpf_mac_len > 14 ? 14 : c->bpf_mac_len) : 0;
}

/*
 * syns.pcap: the witness's copy of each passive record's SYN, from the IP header on, stamped
 * with the record's number n as seconds, so a tool's output (p0f's log dates) maps back to the
 * record. A copy the witness cut short of the length its IP header gives is padded with zeros
 * to that length: fingerprinting tools drop a packet shorter than it says, and p0f reads of a
 * SYN's payload only whether there is one.
 */
static void syns_write(struct report *r, uint64_t n, const struct conn_record *c)
{
	const uint8_t *ip = c->bpf + c->bpf_mac_len;
	size_t len = c->bpf_len - c->bpf_mac_len, want = ip_stated_len(ip, len);
	struct pcap_pkthdr h = { .ts = { .tv_sec = (time_t)n } };
	uint8_t buf[65535 + 40];

	if (want <= len) {
		h.caplen = h.len = (bpf_u_int32)len;
		pcap_dump(r->syns, &h, ip);
		return;
	}
	memcpy(buf, ip, len);
	memset(buf + len, 0, want - len);
	h.caplen = h.len = (bpf_u_int32)want;
	pcap_dump(r->syns, &h, buf);
}

/*
 * wire-syns.pcap (a run with --capture-points wire): the wire's whole frame of each passive
 * record's SYN (the copy the witness judged), from the IP header on, stamped with the record's
 * number as syns.pcap is; opened at the first. What p0f and tshark read there is what the wire
 * carried, payload included, not a copy of the headers. Returns 0, or -1 (errno set).
 */
static int wire_syns_write(struct report *r, uint64_t n, const struct point_record *pr)
{
	size_t mac = pr->copy[PT_WIRE].mac_len;
	struct pcap_pkthdr h = { .ts = { .tv_sec = (time_t)n },
				 .caplen = (bpf_u_int32)(pr->wire_frame_len - mac),
				 .len = (bpf_u_int32)(pr->wire_frame_len - mac) };
	char path[600];

	if (!r->wire_syns) {
		snprintf(path, sizeof(path), "%s/.wire-syns.pcap.tmp", r->dir);
		r->wire_syns = pcap_dump_open(r->pcap_dead, path);
		if (!r->wire_syns) {
			fprintf(stderr, "syntwin: cannot write %s: %s\n", path,
				pcap_geterr(r->pcap_dead));
			errno = EIO;
			return -1;
		}
	}
	pcap_dump(r->wire_syns, &h, pr->wire_frame + mac);
	return 0;
}

static void pcap_write(struct report *r, const uint8_t *p, size_t n)
{
	struct pcap_pkthdr h = { .caplen = (bpf_u_int32)n, .len = (bpf_u_int32)n };

	gettimeofday(&h.ts, NULL);
	pcap_dump(r->pcap, &h, p);
}

/*
 * Whole records only reach the file: a buffer of complete lines goes out in one write(), and a
 * short write (a full disk) is cut back to the last complete line, so connections.jsonl never
 * ends in half a record, whatever stops the writer.
 */
int report_flush(struct report *r)
{
	size_t done = 0;

	while (done < r->used) {
		ssize_t n = write(r->jsonl_fd, r->buf + done, r->used - done);

		if (n <= 0) {
			int err = n < 0 ? errno : ENOSPC;

			if (ftruncate(r->jsonl_fd, (off_t)r->written) == 0)
				lseek(r->jsonl_fd, (off_t)r->written, SEEK_SET);
			errno = err;
			return -1;
		}
		done += (size_t)n;
	}
	r->written += r->used;
	r->used = 0;
	r->lines_written += r->lines_buffered;
	r->lines_buffered = 0;
	if ((r->pcap && pcap_dump_flush(r->pcap)) || (r->syns && pcap_dump_flush(r->syns)) ||
	    (r->wire_syns && pcap_dump_flush(r->wire_syns)) ||
	    (r->pcapng && fflush(r->pcapng)))
		return -1;
	return 0;
}

/*
 * One JSONL record is built in place in the buffer by these appenders rather than by one
 * snprintf(): formatting dominated the comparator's cost per pair (callgrind, bench/). Strings
 * are JSON-escaped.
 */
struct line {
	char *p, *end;
	bool overflow;
};

static void put_raw(struct line *l, const char *s, size_t n)
{
	if ((size_t)(l->end - l->p) < n) {
		l->overflow = true;
		return;
	}
	memcpy(l->p, s, n);
	l->p += n;
}
#define PUT_LIT(l, s) put_raw((l), (s), sizeof(s) - 1)

static void put_str(struct line *l, const char *s)
{
	static const char hexd[] = "0123456789abcdef";

	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch >= 0x20 && ch != '"' && ch != '\\') {
			if (l->p == l->end) {
				l->overflow = true;
				return;
			}
			*l->p++ = (char)ch;
		} else if (ch == '"' || ch == '\\') {
			char e[2] = { '\\', (char)ch };

			put_raw(l, e, 2);
		} else {
			char e[6] = { '\\', 'u', '0', '0', hexd[ch >> 4], hexd[ch & 15] };

			put_raw(l, e, 6);
		}
	}
}

static void put_u64(struct line *l, uint64_t v)
{
	char d[20];
	int n = 0;

	do {
		d[sizeof(d) - 1 - n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put_raw(l, d + sizeof(d) - n, (size_t)n);
}

static void put_i64(struct line *l, long v)
{
	if (v < 0) {
		PUT_LIT(l, "-");
		put_u64(l, (uint64_t)0 - (uint64_t)v);
	} else {
		put_u64(l, (uint64_t)v);
	}
}

static void put_hex(struct line *l, const uint8_t *p, size_t n)
{
	if ((size_t)(l->end - l->p) < 2 * n + 1) { /* hex_encode() adds a NUL */
		l->overflow = true;
		return;
	}
	hex_encode(p, n, l->p);
	l->p += 2 * n;
}

/* "points": each capture point's verdict, and its bytes and why when not identical. */
static void put_points(struct line *l, const struct point_record *pr)
{
	PUT_LIT(l, ",\"points\":{");
	for (int pt = 0, first = 1; pt < PT_MAX; pt++) {
		const struct point_result *r = &pr->r[pt];

		if (!(pr->mask & (1u << pt)))
			continue;
		if (!first)
			PUT_LIT(l, ",");
		first = 0;
		PUT_LIT(l, "\"");
		put_str(l, point_names[pt]);
		PUT_LIT(l, "\":{\"verdict\":\"");
		put_str(l, point_verdict_names[r->verdict]);
		PUT_LIT(l, "\"");
		if (r->verdict != PV_IDENTICAL) {
			PUT_LIT(l, ",\"reason\":\"");
			put_str(l, reason_names[r->reason]);
			PUT_LIT(l, "\",\"diff_offset\":");
			put_i64(l, r->diff_off);
			PUT_LIT(l, ",\"detail\":\"");
			put_str(l, r->detail);
			PUT_LIT(l, "\",\"mac_len\":");
			put_u64(l, pr->copy[pt].mac_len);
			PUT_LIT(l, ",\"bytes\":\"");
			put_hex(l, pr->copy[pt].data, pr->copy[pt].len);
			PUT_LIT(l, "\"");
		}
		PUT_LIT(l, "}");
	}
	PUT_LIT(l, "}");
}

static void put_fp(struct line *l, const struct record_fp *fp)
{
	const struct fp_one *f[3] = { &fp->native, &fp->bpf, &fp->wire };
	static const char *const who[3] = { "native", "bpf", "wire" };

	for (int i = 0; i < 2 + fp->has_wire; i++) {
		PUT_LIT(l, ",\"ja4t_");
		put_str(l, who[i]);
		PUT_LIT(l, "\":\"");
		put_str(l, f[i]->ja4t);
		PUT_LIT(l, "\",\"p0f_");
		put_str(l, who[i]);
		PUT_LIT(l, "\":\"");
		put_str(l, f[i]->p0f);
		PUT_LIT(l, "\",\"p0f_label_");
		put_str(l, who[i]);
		PUT_LIT(l, "\":\"");
		put_str(l, f[i]->label);
		PUT_LIT(l, "\"");
	}
}

/*
 * Both copies of a non-identical record into mismatches.pcapng, stamped with the record's
 * number n as seconds (the kernel's copy at .000000, the witness's at .000001), each with a
 * comment naming the record, the copy, the verdict, its reason and detail (for `differ`, the
 * first differing field, decoded). A copy with its MAC header goes on the Ethernet interface,
 * from the MAC header on; others from the IP header.
 */
static void pcapng_write(struct report *r, uint64_t n, const struct conn_record *c)
{
	const struct compare_result *res = c->res;
	static const char *const who[2] = { "kernel's copy (TCP_SAVED_SYN)",
					    "witness's copy (tc ingress)" };
	const uint8_t *p[2] = { c->native, c->bpf };
	size_t len[2] = { c->native_len, c->bpf_len };
	size_t mac[2] = { report_native_mac_len(c), c->bpf_mac_len };
	char comment[512];

	for (int i = 0; i < 2; i++) {
		if (!p[i] || len[i] <= mac[i])
			continue;
		snprintf(comment, sizeof(comment), "record %llu%s%s, %s %s, mode %d: %s: %s%s%s%s%s%s",
			 (unsigned long long)n, r->shard && *r->shard ? " of shard " : "",
			 r->shard ? r->shard : "", c->direction ? c->direction : "passive",
			 c->direction && !strcmp(c->direction, "active") ? "SYN-ACK" : "SYN", c->mode,
			 who[i], verdict_names[res->verdict], *reason_names[res->reason] ? " (" : "",
			 reason_names[res->reason], *reason_names[res->reason] ? ")" : "",
			 *res->detail ? ": " : "", res->detail);
		if (pcapng_frame(r->pcapng, mac[i] ? PCAPNG_IF_ETHERNET : PCAPNG_IF_RAW, n,
				 (uint32_t)i, p[i], len[i], comment) && !r->pcapng_errno)
			r->pcapng_errno = errno ? errno : EIO;
	}
}

int report_conn(struct report *r, const struct conn_record *c, const struct record_fp *fp)
{
	const struct compare_result *res = c->res;
	bool show = res->verdict != V_IDENTICAL, hex = show || r->hex_all;
	uint64_t n = r->n;
	char saddr[46], daddr[46];
	struct line l;

	if (sizeof(r->buf) - r->used < REPORT_LINE_MAX && report_flush(r))
		return -1;
	l = (struct line){ .p = r->buf + r->used, .end = r->buf + r->used + REPORT_LINE_MAX };
	PUT_LIT(&l, "{\"n\":");
	put_u64(&l, r->n++);
	PUT_LIT(&l, ",\"direction\":\"");
	put_str(&l, c->direction ? c->direction : "passive");
	PUT_LIT(&l, "\",\"family\":");
	put_u64(&l, c->family == 10 ? 6 : 4);
	PUT_LIT(&l, ",\"mode\":");
	put_i64(&l, c->mode);
	flow_text(&c->flow, saddr, daddr);
	PUT_LIT(&l, ",\"saddr\":\"");
	put_str(&l, saddr);
	PUT_LIT(&l, "\",\"daddr\":\"");
	put_str(&l, daddr);
	PUT_LIT(&l, "\",\"sport\":");
	put_u64(&l, ntohs(c->flow.sport));
	PUT_LIT(&l, ",\"dport\":");
	put_u64(&l, ntohs(c->flow.dport));
	PUT_LIT(&l, ",\"cookie\":");
	put_u64(&l, c->cookie);
	PUT_LIT(&l, ",\"native_len\":");
	put_u64(&l, c->native_len);
	PUT_LIT(&l, ",\"bpf_len\":");
	put_u64(&l, c->bpf_len);
	PUT_LIT(&l, ",\"bpf_mac_len\":");
	put_u64(&l, c->bpf_mac_len);
	PUT_LIT(&l, ",\"verdict\":\"");
	put_str(&l, verdict_names[res->verdict]);
	PUT_LIT(&l, "\",\"reason\":\"");
	put_str(&l, reason_names[res->reason]);
	PUT_LIT(&l, "\",\"diff_offset\":");
	put_i64(&l, res->diff_off);
	PUT_LIT(&l, ",\"detail\":\"");
	put_str(&l, res->detail);
	PUT_LIT(&l, "\",\"small_buffer\":\"");
	put_str(&l, c->small_buffer);
	PUT_LIT(&l, "\",\"client_error\":\"");
	put_str(&l, c->client_errno ? strerrorname_np(c->client_errno) : "");
	PUT_LIT(&l, "\",\"bpf_vlan\":\"");
	put_str(&l, c->bpf_vlan);
	PUT_LIT(&l, "\",\"copies\":");
	put_u64(&l, c->copies);
	PUT_LIT(&l, ",\"gen\":\"");
	put_str(&l, c->gen ? c->gen : "unknown");
	PUT_LIT(&l, "\",\"gen_index\":");
	put_u64(&l, c->gen_index);
	PUT_LIT(&l, ",\"gen_seed\":");
	put_u64(&l, c->gen_seed);
	PUT_LIT(&l, ",\"knobs\":\"");
	put_str(&l, c->knobs);
	PUT_LIT(&l, "\"");
	if (c->reads) {
		/* what bpf_getsockopt(TCP_BPF_SYN, _IP, _MAC) returned: lengths, or -errno */
		PUT_LIT(&l, ",\"bpf_syn_reads\":[");
		put_i64(&l, c->reads->tcp.len);
		PUT_LIT(&l, ",");
		put_i64(&l, c->reads->ip.len);
		PUT_LIT(&l, ",");
		put_i64(&l, c->reads->mac.len);
		PUT_LIT(&l, "]");
	}
	if (fp)
		put_fp(&l, fp);
	if (c->points)
		put_points(&l, c->points);
	if (c->shape) {
		char h[17];

		snprintf(h, sizeof(h), "%016llx", (unsigned long long)c->shape);
		PUT_LIT(&l, ",\"shape\":\"");
		put_str(&l, h);
		PUT_LIT(&l, "\"");
	}
	if (hex) {
		PUT_LIT(&l, ",\"native\":\"");
		if (c->native && c->native_len <= 512)
			put_hex(&l, c->native, c->native_len);
		PUT_LIT(&l, "\",\"bpf\":\"");
		if (c->bpf && c->bpf_len <= 512)
			put_hex(&l, c->bpf, c->bpf_len);
		PUT_LIT(&l, "\"");
	}
	PUT_LIT(&l, "}\n");
	if (l.overflow) {
		errno = EOVERFLOW;
		return -1;
	}
	r->used = (size_t)(l.p - r->buf);
	r->lines_buffered++;
	if (c->bpf && c->bpf_len > c->bpf_mac_len &&
	    (!c->direction || !strcmp(c->direction, "passive")))
		syns_write(r, n, c);
	if (c->points && c->points->wire_frame_len > c->points->copy[PT_WIRE].mac_len &&
	    wire_syns_write(r, n, c->points))
		return -1;
	if (show) {
		/* both versions from the network header on */
		size_t nm = report_native_mac_len(c);

		if (c->native && c->native_len > nm)
			pcap_write(r, c->native + nm, c->native_len - nm);
		if (c->bpf && c->bpf_len > c->bpf_mac_len)
			pcap_write(r, c->bpf + c->bpf_mac_len, c->bpf_len - c->bpf_mac_len);
		pcapng_write(r, n, c);
	}
	return 0;
}

/* Move @dir/.NAME.tmp, complete now, to @dir/NAME. */
static int rename_done(const char *dir, const char *name)
{
	char tmp[600], dst[600];

	snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, name);
	snprintf(dst, sizeof(dst), "%s/%s", dir, name);
	return rename(tmp, dst) ? -1 : 0;
}

int report_close(struct report *r)
{
	int rc = 0;

	if (r->jsonl_fd >= 0 && (report_flush(r) | close(r->jsonl_fd)))
		rc = -1;
	r->jsonl_fd = -1;
	if (r->pcap) {
		pcap_dump_close(r->pcap);
		rc |= rename_done(r->dir, "mismatches.pcap");
	}
	r->pcap = NULL;
	if (r->syns) {
		pcap_dump_close(r->syns);
		rc |= rename_done(r->dir, "syns.pcap");
	}
	r->syns = NULL;
	if (r->wire_syns) {
		pcap_dump_close(r->wire_syns);
		rc |= rename_done(r->dir, "wire-syns.pcap");
	}
	r->wire_syns = NULL;
	if (r->pcapng) {
		if (fclose(r->pcapng) || r->pcapng_errno)
			rc = -1;
		rc |= rename_done(r->dir, "mismatches.pcapng");
	}
	r->pcapng = NULL;
	if (r->pcap_dead)
		pcap_close(r->pcap_dead);
	r->pcap_dead = NULL;
	return rc;
}
