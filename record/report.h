/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Run outputs: connections.jsonl, mismatches.pcap and syns.pcap (libpcap), mismatches.pcapng
 * (pcapng.h), summary.json (atomic rename).
 */
#ifndef SYNTWIN_REPORT_H
#define SYNTWIN_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "classify.h"

#include "flow.h"
#include "hex.h"
#include "point_stats.h"

struct record_fp;

struct syn_reads;

struct conn_record {
	int family, mode;
	const char *direction;	/* "passive" (the SYN) or "active" (the SYN-ACK) */
	/* (flow.h) s* sent the captured packet: the client for passive, the server for active;
	 * written as text here only */
	struct capture_key flow;
	uint64_t cookie;
	const uint8_t *native;
	size_t native_len;
	const uint8_t *bpf;
	size_t bpf_len, bpf_mac_len;
	const struct compare_result *res;
	const char *small_buffer;	/* "", "ok", or what went wrong */
	int client_errno;		/* active: its connection failed after the SYN-ACK (0: no) */
	const char *gen, *knobs;	/* generator and its knob values / profile; NULL: unknown */
	uint64_t gen_index;		/* connection number within the generator's run */
	uint64_t gen_seed;		/* that run's seed */
	char bpf_vlan[16];		/* the capture's VLAN metadata "proto:id", "" if none */
	unsigned int copies;		/* copies of the SYN the witness saw (0: no capture) */
	uint64_t shape;			/* the witness's SYN's shape (distinct_syn_shapes); 0: none */
	const struct syn_reads *reads;	/* the in-kernel readers' returns when sockops bound the
					 * socket; NULL: nothing was bound */
	const struct point_record *points; /* the capture points' verdicts; NULL: none */
};

/* How many of the native copy's first bytes are link layer (mode 2: the MAC header). */
size_t report_native_mac_len(const struct conn_record *c);

/* One JSONL record: fields, two 512-byte hex strings, generator knobs, six fingerprints, and
 * each capture point's verdict (with its bytes when not identical). */
#define REPORT_LINE_MAX 12288

struct report {
	char dir[512];
	int jsonl_fd;
	char buf[1 << 16];	/* complete records not yet written */
	size_t used;
	uint64_t written;	/* bytes of connections.jsonl on disk, all whole records */
	uint64_t lines_buffered, lines_written;
	void *pcap;		/* pcap_dumper_t */
	void *pcap_dead;	/* pcap_t */
	void *syns;		/* pcap_dumper_t of syns.pcap: every passive record's witness SYN */
	void *wire_syns;	/* ... of wire-syns.pcap: the wire's frame of each (NULL: none) */
	FILE *pcapng;		/* mismatches.pcapng: both copies of each, with comments */
	int pcapng_errno;	/* its first write error (reported at close) */
	uint64_t n;
	bool hex_all;		/* both byte strings for every record, not only non-identical ones */
	const char *shard;	/* "I/N" of a sharded run, named in the pcapng comments; "" if none */
};

/* Open connections.jsonl, mismatches.pcap(ng) and syns.pcap in @dir. Returns 0 or -1 (message printed). */
int report_open(struct report *r, const char *dir);
/* Append one connection with its fingerprints (@fp, fp_record.h; NULL: none); differing byte
 * strings go in hex, and both versions to the pcap. */
int report_conn(struct report *r, const struct conn_record *c, const struct record_fp *fp);
/* Write the buffered records (whole lines only; see report.c). Returns 0 or -1 with errno. */
int report_flush(struct report *r);
/* Flush and close; the pcap is renamed into place only here. Returns 0 or -1. */
int report_close(struct report *r);

/* Write @json (a complete JSON document) to @dir/@name via a temp file and rename. */
int write_file_atomic(const char *dir, const char *name, const char *json);

#endif
