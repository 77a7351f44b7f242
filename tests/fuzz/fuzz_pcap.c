// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the pcap SYN extractor (gen/pcap_syns.c) on arbitrary files, read by libpcap
 * from memory. Every SYN it hands over must lie inside the packet it came from.
 */
#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "pcap_syns.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
volatile uint8_t sink; /* keeps the byte reads below */

static int each(const struct pcap_syn *s, void *arg)
{
	uint8_t *sum = arg;

	if (s->family != 4 && s->family != 6)
		abort();
	/* touch every byte handed over: ASan catches any that is not the packet's */
	for (size_t i = 0; i < s->net_len + s->tcp_len; i++)
		*sum += s->ip[i];
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char perr[PCAP_ERRBUF_SIZE], err[256];
	struct pcap_syn_stats st;
	uint8_t sum = 0;
	FILE *f = fmemopen((void *)data, size, "rb");
	pcap_t *p;

	if (!f)
		return 0;
	p = pcap_fopen_offline(f, perr); /* takes f, closed with p */
	if (!p) {
		fclose(f);
		return 0;
	}
	pcap_syns_each_open(p, "fuzz", each, &sum, &st, err, sizeof(err));
	sink = sum;
	return 0;
}
