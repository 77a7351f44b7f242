/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SYNs of a capture file, for replay (syntwin run --replay): libpcap reads it; Ethernet
 * (with any 802.1Q/802.1ad tags), Linux cooked (SLL), BSD loopback (NULL) and raw IP link types
 * are understood. A SYN is a TCP segment with SYN and without ACK, IPv4 (not a fragment) or IPv6
 * (extension headers followed). Each is handed over from its IP header to the end of its TCP
 * header, with the number of the packet (1-based) it was.
 */
#ifndef SYNTWIN_PCAP_SYNS_H
#define SYNTWIN_PCAP_SYNS_H

#include <pcap/pcap.h>
#include <stddef.h>
#include <stdint.h>

struct pcap_syn {
	unsigned long packet;	/* 1-based packet number in the file */
	int family;		/* 4 or 6 */
	const uint8_t *ip;	/* IP header .. end of TCP header */
	size_t net_len;		/* IPv4 header with options, or IPv6 + extension headers */
	size_t tcp_len;
};

struct pcap_syn_stats {
	unsigned long packets, syns, skipped;	/* skipped: not IP/TCP, or not a SYN */
	unsigned long malformed;		/* named on stderr, one line each */
	int truncated;				/* the file ended inside a packet */
};

/*
 * Calls @fn for every SYN of @path. A malformed packet is reported ("FILE: packet N: why") and
 * skipped; a truncated file stops the reading at that packet (reported, the SYNs before it
 * still count). Returns 0, or -1 with @err set if the file cannot be used at all (missing, not a
 * pcap, unsupported link type).
 */
int pcap_syns_each(const char *path, int (*fn)(const struct pcap_syn *, void *), void *arg,
		   struct pcap_syn_stats *st, char *err, size_t errlen);

/* The same on a capture already open (@path names it in messages); closes @p. */
int pcap_syns_each_open(pcap_t *p, const char *path,
			int (*fn)(const struct pcap_syn *, void *), void *arg,
			struct pcap_syn_stats *st, char *err, size_t errlen);

#endif
