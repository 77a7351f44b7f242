// SPDX-License-Identifier: GPL-2.0
/* Packet crafting for the tun peer (craft.h). */
#include "craft.h"

#include <string.h>

#include "inet_csum.h"

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8), p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16)), put16(p + 2, (uint16_t)v);
}

/* IPv4 or IPv6 header (+ options / extension headers) for @tcp_len bytes of TCP; returns its
 * length. */
static size_t ip_header(const struct syn_shape *s, const struct flow *f, size_t tcp_len,
			const uint8_t *ipopt, size_t ipopt_len, int with_ext, uint8_t *out)
{
	if (f->family == 4) {
		size_t hl = 20 + ipopt_len;

		memset(out, 0, hl);
		out[0] = (uint8_t)(0x40 | hl / 4);
		out[1] = (uint8_t)s->tos;
		put16(out + 2, (uint16_t)(hl + tcp_len));
		put16(out + 4, s->ipid);
		out[6] = s->df ? 0x40 : 0;
		out[8] = (uint8_t)s->ttl;
		out[9] = 6;
		memcpy(out + 12, f->src, 4);
		memcpy(out + 16, f->dst, 4);
		memcpy(out + 20, ipopt, ipopt_len);
		{
			uint16_t c = csum_fold(csum_add(0, out, hl));

			memcpy(out + 10, &c, 2);
		}
		return hl;
	}
	size_t off = 40, ext_len = 0;

	for (int i = 0; with_ext && i < s->next_ext; i++)
		ext_len += 2 + s->ext[i].len;
	memset(out, 0, 40);
	put32(out, 0x60000000u | (uint32_t)s->tos << 20 | (s->flow & 0xfffff));
	put16(out + 4, (uint16_t)(ext_len + tcp_len));
	out[6] = with_ext && s->next_ext ? s->ext[0].type : 6;
	out[7] = (uint8_t)s->ttl;
	memcpy(out + 8, f->src, 16);
	memcpy(out + 24, f->dst, 16);
	for (int i = 0; with_ext && i < s->next_ext; i++) {
		out[off] = i + 1 < s->next_ext ? s->ext[i + 1].type : 6;
		out[off + 1] = (uint8_t)((2 + s->ext[i].len) / 8 - 1);
		memcpy(out + off + 2, s->ext[i].body, s->ext[i].len);
		off += 2 + s->ext[i].len;
	}
	return off;
}

static void tcp_checksum(const struct flow *f, uint8_t *tcp, size_t len)
{
	uint16_t c;

	tcp[16] = tcp[17] = 0;
	c = f->family == 4 ? tcp_csum4(f->src, f->dst, tcp, len) :
			     tcp_csum6(f->src, f->dst, tcp, len);
	memcpy(tcp + 16, &c, 2);
}

_Static_assert(CRAFT_MAX >= SHAPE_MAX_HEADERS, "the crafter holds every shape the parser accepts");

size_t craft_syn(const struct syn_shape *s, const struct flow *f, uint32_t isn, uint8_t *out)
{
	size_t tcp_len = 20 + s->tcpopt_len, hl;
	uint8_t *tcp;
	int doff = (int)tcp_len / 4;

	hl = ip_header(s, f, tcp_len, s->ipopt, s->ipopt_len, 1, out);
	tcp = out + hl;
	memset(tcp, 0, 20);
	put16(tcp, f->sport);
	put16(tcp + 2, f->dport);
	put32(tcp + 4, isn);
	if (s->bad == BAD_DOFF_SHORT)
		doff = 4;
	else if (s->bad == BAD_DOFF_LONG)
		doff = 15; /* 60 bytes of header in a shorter packet */
	tcp[12] = (uint8_t)(doff << 4 | (s->res & 0x0f));
	tcp[13] = s->flags;
	put16(tcp + 14, s->win);
	put16(tcp + 18, s->urg);
	memcpy(tcp + 20, s->tcpopt, s->tcpopt_len);
	tcp_checksum(f, tcp, tcp_len);
	if (s->bad == BAD_CSUM)
		tcp[17] ^= 0x5a;
	return hl + tcp_len;
}

size_t craft_synack(const struct syn_shape *s, const struct flow *f, uint32_t isn, uint32_t ack,
		    uint8_t *out)
{
	size_t len = craft_syn(s, f, isn, out), tcp_off = len - 20 - s->tcpopt_len;

	put32(out + tcp_off + 8, ack);
	tcp_checksum(f, out + tcp_off, len - tcp_off);
	return len;
}

size_t craft_segment(const struct syn_shape *s, const struct flow *f, uint8_t flags,
		     uint32_t seq, uint32_t ack, uint32_t tsval, uint32_t tsecr, uint8_t *out)
{
	size_t tcp_len = tsecr ? 32 : 20, hl;
	uint8_t *tcp;

	/* no IP options or extension headers after the SYN: only the SYN's shape is under test */
	hl = ip_header(s, f, tcp_len, NULL, 0, 0, out);
	tcp = out + hl;
	memset(tcp, 0, tcp_len);
	put16(tcp, f->sport);
	put16(tcp + 2, f->dport);
	put32(tcp + 4, seq);
	put32(tcp + 8, ack);
	tcp[12] = (uint8_t)(tcp_len / 4 << 4);
	tcp[13] = flags;
	put16(tcp + 14, 502);
	if (tsecr) {
		tcp[20] = 1, tcp[21] = 1, tcp[22] = 8, tcp[23] = 10;
		put32(tcp + 24, tsval);
		put32(tcp + 28, tsecr);
	}
	tcp_checksum(f, tcp, tcp_len);
	return hl + tcp_len;
}

int craft_verify(const uint8_t *p, size_t len)
{
	size_t hl, tcp_off;
	uint8_t next;

	if (len < 20)
		return -1;
	if (p[0] >> 4 == 4) {
		hl = (p[0] & 0x0f) * 4u;
		if (hl < 20 || hl > len || csum_fold(csum_add(0, p, hl)) != 0)
			return -1;
		return tcp_csum4(p + 12, p + 16, p + hl, len - hl) == 0 ? 0 : -1;
	}
	if (p[0] >> 4 != 6 || len < 40)
		return -1;
	next = p[6];
	tcp_off = 40;
	while (next != 6) {
		if ((next != 0 && next != 60 && next != 43) || tcp_off + 2 > len)
			return -1;
		next = p[tcp_off];
		tcp_off += (p[tcp_off + 1] + 1u) * 8u;
	}
	if (tcp_off > len)
		return -1;
	return tcp_csum6(p + 8, p + 24, p + tcp_off, len - tcp_off) == 0 ? 0 : -1;
}
