// SPDX-License-Identifier: GPL-2.0
/*
 * syntwin-fingerprints (host): the fingerprints syntwin computes, for a pcap or a run.
 *   --pcap FILE    one line per packet: "SECONDS<TAB>JA4T<TAB>P0F_RAW_SIG<TAB>P0F_LABEL", the
 *                  packet's timestamp seconds first (a run's syns.pcap stamps record n as n s)
 *   --table TSV --p0f-log LOG [--tshark FIELDS] [--copy NAME]
 *                  the run view of `syntwin fingerprints DIR` (fp_table.c): p0f's log and
 *                  tshark's fields of the copy NAME (default "the witness's copies")
 * [--p0f-db FILE] the p0f database (default /etc/p0f/p0f.fp).
 * Exit 0, 1 when the table finds p0f disagreeing with syntwin, 2 on bad input.
 */
#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>

#include "fp_table.h"
#include "ja4t.h"
#include "p0f.h"

static const char usage[] =
	"usage: syntwin-fingerprints [--p0f-db FILE] --pcap FILE\n"
	"       syntwin-fingerprints [--p0f-db FILE] --table RECORDS.tsv --p0f-log LOG\n"
	"                            [--tshark FIELDS.tsv] [--copy NAME]\n";

/* Where the IP header starts under link type @dlt; -1: a link type this tool does not read. */
static int link_offset(int dlt)
{
	switch (dlt) {
	case DLT_RAW:
		return 0;
	case DLT_EN10MB:
		return 14;
	case DLT_LINUX_SLL:
		return 16;
	default:
		return dlt == 101 ? 0 : -1; /* LINKTYPE_RAW as some writers store it */
	}
}

static int print_pcap(const char *path, const struct p0f_db *db)
{
	char err[PCAP_ERRBUF_SIZE], ja4t[JA4T_MAX], sig[P0F_SIG_MAX], label[P0F_LABEL_MAX];
	struct pcap_pkthdr *h;
	const u_char *p;
	pcap_t *pc = pcap_open_offline(path, err);
	int off, rc;

	if (!pc) {
		fprintf(stderr, "syntwin-fingerprints: %s\n", err);
		return 2;
	}
	off = link_offset(pcap_datalink(pc));
	if (off < 0) {
		fprintf(stderr, "syntwin-fingerprints: %s: link type %d is not raw IP, Ethernet or "
			"Linux cooked\n", path, pcap_datalink(pc));
		pcap_close(pc);
		return 2;
	}
	while ((rc = pcap_next_ex(pc, &h, &p)) == 1) {
		size_t len = h->caplen > (bpf_u_int32)off ? h->caplen - (size_t)off : 0;

		ja4t_of(p + off, len, ja4t, sizeof(ja4t));
		p0f_fingerprint(db, p + off, len, sig, label);
		printf("%lld\t%s\t%s\t%s\n", (long long)h->ts.tv_sec, ja4t, sig, label);
	}
	if (rc == -1)
		fprintf(stderr, "syntwin-fingerprints: %s: %s\n", path, pcap_geterr(pc));
	pcap_close(pc);
	return rc == -1 || fflush(stdout) ? 2 : 0;
}

int main(int argc, char **argv)
{
	const char *dbpath = "/etc/p0f/p0f.fp", *pcap = NULL, *table = NULL, *log = NULL;
	const char *tshark = NULL, *copy = "the witness's copies";
	char err[512];
	struct p0f_db db;
	int rc;

	for (int i = 1; i < argc; i++) {
		const char **dst = !strcmp(argv[i], "--p0f-db") ? &dbpath :
				   !strcmp(argv[i], "--pcap") ? &pcap :
				   !strcmp(argv[i], "--table") ? &table :
				   !strcmp(argv[i], "--p0f-log") ? &log :
				   !strcmp(argv[i], "--tshark") ? &tshark :
				   !strcmp(argv[i], "--copy") ? &copy : NULL;

		if (!dst || i + 1 == argc) {
			fprintf(stderr, "syntwin-fingerprints: %s '%s'\n%s",
				dst ? "no value for" : "unknown argument", argv[i], usage);
			return 2;
		}
		*dst = argv[++i];
	}
	if (!pcap == !table || (table && !log)) {
		fputs(usage, stderr);
		return 2;
	}
	if (p0f_db_load(&db, dbpath, err, sizeof(err))) {
		fprintf(stderr, "syntwin-fingerprints: %s\n", err);
		return 2;
	}
	rc = pcap ? print_pcap(pcap, &db) : fp_table(table, log, tshark, copy, stdout);
	p0f_db_free(&db);
	return rc;
}
