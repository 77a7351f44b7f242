// SPDX-License-Identifier: GPL-2.0
/* The copy tag in userspace (copy_tag.h), the same arithmetic as bpf/copy_tag.bpf.h. */
#include "copy_tag.h"

#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "decode.h"

#define TAG_SEED 2166136261u
#define TAG_MUL 16777619u

static uint32_t tag_id(uint32_t h, uint32_t id)
{
	h = (h ^ ((id >> 16) & 0xff)) * TAG_MUL;
	h = (h ^ ((id >> 8) & 0xff)) * TAG_MUL;
	return (h ^ (id & 0xff)) * TAG_MUL;
}

static uint32_t tag_tcp(uint32_t h, const uint8_t *tcp, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (i != 16 && i != 17)
			h = (h ^ tcp[i]) * TAG_MUL;
	return h;
}

static int ethertype_ip(const uint8_t *et)
{
	return (et[0] == 0x08 && et[1] == 0x00) || (et[0] == 0x86 && et[1] == 0xdd);
}

/* The next header after IPv6 header @ip's extension headers (syn_layout() placed them). */
static int last_next_header(const uint8_t *ip)
{
	uint8_t nh = ip[6];
	size_t off = 40;

	while (nh == 0 || nh == 43 || nh == 60 || nh == 51) {
		size_t hl = nh == 51 ? (ip[off + 1] + 2) * 4u : (ip[off + 1] + 1) * 8u;

		nh = ip[off];
		off += hl;
	}
	return nh;
}

int syn_copy_tag(const uint8_t *p, size_t len, size_t *mac_len, struct capture_key *flow,
		 uint32_t *tag, size_t *hdr_len)
{
	struct syn_layout l;
	const uint8_t *ip, *th;
	uint32_t id;

	/* a tag in-band, or two (QinQ: the wire shows the outer one too, put back from metadata) */
	while (*mac_len >= 14 && *mac_len < 22 && len >= *mac_len + 4 && eth_inband_tag(p + *mac_len - 14))
		*mac_len += 4;
	if (*mac_len && !ethertype_ip(p + *mac_len - 2))
		return -1;
	if (syn_layout(p, len, *mac_len, &l) || !l.family || l.tcp_off + l.tcp_len > len ||
	    (l.family == AF_INET6 && last_next_header(p + *mac_len) != IPPROTO_TCP))
		return -1;
	ip = p + *mac_len;
	th = p + l.tcp_off;
	if ((th[13] & 0x12) != 0x02)
		return -1;
	memset(flow, 0, sizeof(*flow));
	if (l.family == AF_INET) {
		if (ip[9] != IPPROTO_TCP || ((ip[6] << 8 | ip[7]) & 0x3fff))
			return -1;
		flow->family = AF_INET;
		memcpy(flow->saddr, ip + 12, 4);
		memcpy(flow->daddr, ip + 16, 4);
		id = (uint32_t)ip[4] << 8 | ip[5];
	} else {
		flow->family = AF_INET6;
		memcpy(flow->saddr, ip + 8, 16);
		memcpy(flow->daddr, ip + 24, 16);
		id = (uint32_t)(ip[1] & 0x0f) << 16 | (uint32_t)ip[2] << 8 | ip[3];
	}
	memcpy(&flow->sport, th, 2);
	memcpy(&flow->dport, th + 2, 2);
	flow->seq = (uint32_t)th[4] << 24 | (uint32_t)th[5] << 16 | (uint32_t)th[6] << 8 | th[7];
	*tag = tag_tcp(tag_id(TAG_SEED, id), th, l.tcp_len);
	*hdr_len = l.tcp_off + l.tcp_len;
	return 0;
}
