// SPDX-License-Identifier: GPL-2.0
/* Run outputs: JSONL, pcap and atomically written JSON (see report.h). */
#include "report.h"

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

	snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, name);
	snprintf(dst, sizeof(dst), "%s/%s", dir, name);
	f = fopen(tmp, "w");
	if (!f || fputs(json, f) < 0 || fflush(f) || fsync(fileno(f)) || fclose(f)) {
		fprintf(stderr, "syntwin: cannot write %s: %s\n", tmp, strerror(errno));
		if (f)
			fclose(f);
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
	snprintf(r->dir, sizeof(r->dir), "%s", dir);
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
	if (r->pcap && pcap_dump_flush(r->pcap))
		return -1;
	return 0;
}

int report_conn(struct report *r, const struct conn_record *c)
{
	const struct compare_result *res = c->res;
	char nh[2 * 512 + 1] = "", bh[2 * 512 + 1] = "";
	bool show = res->verdict != V_IDENTICAL, hex = show || r->hex_all;

	if (hex && c->native && c->native_len <= 512)
		hex_encode(c->native, c->native_len, nh);
	if (hex && c->bpf && c->bpf_len <= 512)
		hex_encode(c->bpf, c->bpf_len, bh);
	char line[REPORT_LINE_MAX];
	int len = snprintf(line, sizeof(line),
		"{\"n\":%llu,\"direction\":\"%s\",\"family\":%d,\"mode\":%d,\"saddr\":\"%s\",\"daddr\":\"%s\",\"sport\":%u,"
		"\"dport\":%u,\"cookie\":%llu,\"native_len\":%zu,\"bpf_len\":%zu,\"bpf_mac_len\":%zu,"
		"\"verdict\":\"%s\",\"reason\":\"%s\",\"diff_offset\":%ld,\"detail\":\"%s\","
		"\"small_buffer\":\"%s\",\"bpf_vlan\":\"%s\",\"gen\":\"%s\",\"gen_index\":%llu,\"gen_seed\":%llu,\"knobs\":\"%s\""
		"%s%s%s%s%s}\n",
		(unsigned long long)r->n++, c->direction ? c->direction : "passive",
		c->family == 10 ? 6 : 4, c->mode, c->saddr, c->daddr,
		c->sport, c->dport, (unsigned long long)c->cookie, c->native_len, c->bpf_len,
		c->bpf_mac_len, verdict_names[res->verdict], reason_names[res->reason],
		res->diff_off, res->detail, c->small_buffer ? c->small_buffer : "", c->bpf_vlan,
		c->gen ? c->gen : "unknown", (unsigned long long)c->gen_index,
		(unsigned long long)c->gen_seed,
		c->knobs ? c->knobs : "",
		hex ? ",\"native\":\"" : "", nh, hex ? "\",\"bpf\":\"" : "", bh, hex ? "\"" : "");
	if (len < 0 || (size_t)len >= sizeof(line)) {
		errno = EOVERFLOW;
		return -1;
	}
	if (r->used + (size_t)len > sizeof(r->buf) && report_flush(r))
		return -1;
	memcpy(r->buf + r->used, line, (size_t)len);
	r->used += (size_t)len;
	r->lines_buffered++;
	if (show) {
		/* Both versions from the network header on: the native's MAC (mode 2) is skipped. */
		size_t nm = c->mode == 2 ? c->bpf_mac_len : 0;

		if (c->native && c->native_len > nm)
			pcap_write(r, c->native + nm, c->native_len - nm);
		if (c->bpf && c->bpf_len > c->bpf_mac_len)
			pcap_write(r, c->bpf + c->bpf_mac_len, c->bpf_len - c->bpf_mac_len);
	}
	return 0;
}

int report_close(struct report *r)
{
	char tmp[600], dst[600];
	int rc = 0;

	if (r->jsonl_fd >= 0 && (report_flush(r) | close(r->jsonl_fd)))
		rc = -1;
	r->jsonl_fd = -1;
	if (r->pcap) {
		pcap_dump_close(r->pcap);
		snprintf(tmp, sizeof(tmp), "%s/.mismatches.pcap.tmp", r->dir);
		snprintf(dst, sizeof(dst), "%s/mismatches.pcap", r->dir);
		if (rename(tmp, dst))
			rc = -1;
	}
	r->pcap = NULL;
	if (r->pcap_dead)
		pcap_close(r->pcap_dead);
	r->pcap_dead = NULL;
	return rc;
}
