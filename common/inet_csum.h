/* SPDX-License-Identifier: GPL-2.0 */
/* Internet checksums (RFC 1071) for crafting IPv4/IPv6 TCP packets. */
#ifndef SYNTWIN_INET_CSUM_H
#define SYNTWIN_INET_CSUM_H

#include <stddef.h>
#include <stdint.h>

/* One's-complement sum of @len bytes added to @sum (not folded). */
uint32_t csum_add(uint32_t sum, const void *data, size_t len);
/* Fold and complement: the value to store, in network byte order as a uint16_t in memory. */
uint16_t csum_fold(uint32_t sum);
/* TCP checksum over a segment of @len bytes with the IPv4 or IPv6 pseudo-header. */
uint16_t tcp_csum4(const uint8_t saddr[4], const uint8_t daddr[4], const void *seg, size_t len);
uint16_t tcp_csum6(const uint8_t saddr[16], const uint8_t daddr[16], const void *seg, size_t len);

#endif
