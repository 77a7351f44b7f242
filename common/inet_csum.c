// SPDX-License-Identifier: GPL-2.0
/* Internet checksums (see inet_csum.h). */
#include "inet_csum.h"

#include <arpa/inet.h>

uint32_t csum_add(uint32_t sum, const void *data, size_t len)
{
	const uint8_t *p = data;

	while (len > 1) {
		sum += (uint32_t)p[0] << 8 | p[1];
		p += 2;
		len -= 2;
	}
	if (len)
		sum += (uint32_t)p[0] << 8;
	return sum;
}

uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons((uint16_t)~sum);
}

uint16_t tcp_csum4(const uint8_t saddr[4], const uint8_t daddr[4], const void *seg, size_t len)
{
	uint8_t ph[4] = { 0, 6, (uint8_t)(len >> 8), (uint8_t)len };
	uint32_t sum = csum_add(0, saddr, 4);

	sum = csum_add(sum, daddr, 4);
	sum = csum_add(sum, ph, 4);
	return csum_fold(csum_add(sum, seg, len));
}

uint16_t tcp_csum6(const uint8_t saddr[16], const uint8_t daddr[16], const void *seg, size_t len)
{
	uint8_t ph[8] = { (uint8_t)(len >> 24), (uint8_t)(len >> 16), (uint8_t)(len >> 8),
			  (uint8_t)len, 0, 0, 0, 6 };
	uint32_t sum = csum_add(0, saddr, 16);

	sum = csum_add(sum, daddr, 16);
	sum = csum_add(sum, ph, 8);
	return csum_fold(csum_add(sum, seg, len));
}
