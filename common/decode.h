/* SPDX-License-Identifier: GPL-2.0 */
/* Header layout and field names of a saved/captured SYN: Ethernet, IPv4/IPv6 (+options), TCP. */
#ifndef SYNTWIN_DECODE_H
#define SYNTWIN_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where each header starts in a byte string (offsets from its first byte). */
struct syn_layout {
	int family;		/* AF_INET, AF_INET6, or 0 if the network header is not understood */
	size_t mac_len;		/* given by the caller: 0, 14 or 18 */
	size_t net_len;		/* IPv4 IHL*4, or IPv6 40 + extension headers */
	size_t tcp_off;		/* mac_len + net_len */
	size_t tcp_len;		/* doff*4 */
	size_t len;		/* the byte string's length */
};

/*
 * Parse @p (@len bytes, @mac_len of them link layer) far enough to place every header.
 * Returns 0, or -1 if a length field points past the data or below its header's minimum (IHL or
 * data offset under 5); the layout is filled as far as known.
 */
int syn_layout(const uint8_t *p, size_t len, size_t mac_len, struct syn_layout *l);

/*
 * The packet length the IP header at @ip (@len bytes) states: IPv4's total length, or IPv6's
 * payload length + 40; 0 when @len holds no whole fixed header of either. A saved or captured
 * copy may hold less (headers only) or more than this.
 */
size_t ip_stated_len(const uint8_t *ip, size_t len);

/* Bytes 12-13 of Ethernet header @eth are an 802.1Q or 802.1ad tag's ethertype: a VLAN tag in
 * the frame (in-band), not in skb metadata. */
bool eth_inband_tag(const uint8_t *eth);

/* Name the field holding byte @off, e.g. "ipv4.ttl", "ipv4.option[1] RR (kind 7) +2",
 * "tcp.option[3] timestamp (kind 8) +5", "eth.src". */
void syn_field_name(const uint8_t *p, const struct syn_layout *l, size_t off, char *buf,
		    size_t n);

/* One line of decoded headers (for reports): "ipv4 ttl=64 ... | tcp flags=S win=... opts=...". */
void syn_decode_text(const uint8_t *p, const struct syn_layout *l, char *buf, size_t n);

#endif
