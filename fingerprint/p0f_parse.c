// SPDX-License-Identifier: GPL-2.0
/*
 * A packet as p0f 3.09b's parse_packet() reads it (p0f.h). Its TCP option walk is p0f's own
 * (an MSS is read whatever its length byte says, a SACK must be 10 to 34 bytes, an unknown
 * kind 2 to 40, an EOL's tail is measured): common/tcp_opts.c's generic walk would see other
 * options than p0f does.
 */
#include "p0f.h"

#include <string.h>

#include "decode.h"
#include "p0f_quirks.h"

static uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* IPv4: the TCP header's offset, or 0 where p0f gives up. @plen: the packet's length. */
static size_t parse_ipv4(const uint8_t *ip, size_t len, size_t *plen, struct p0f_pkt *pk)
{
	size_t hl = (ip[0] & 0x0f) * 4u, tot = be16(ip + 2);
	uint16_t frag = be16(ip + 6);

	if (*plen > tot)
		*plen = tot;
	if (*plen < 40 || hl < 20 || tot > *plen || hl + 20 > *plen || ip[9] != 6 ||
	    (frag & ~0xc000u) || hl + 20 > len)
		return 0;
	pk->ver = 4;
	pk->ip_opt_len = (uint32_t)hl - 20;
	pk->ttl = ip[8];
	if (ip[1] & 3)
		pk->quirks |= Q_ECN;
	if (frag & 0x8000)
		pk->quirks |= Q_NZ_MBZ;
	if (frag & 0x4000) {
		pk->quirks |= Q_DF;
		if (be16(ip + 4))
			pk->quirks |= Q_NZ_ID;
	} else if (!be16(ip + 4)) {
		pk->quirks |= Q_ZERO_ID;
	}
	pk->tot_hdr = (uint32_t)hl;
	return hl;
}

static size_t parse_ipv6(const uint8_t *ip, size_t len, size_t *plen, struct p0f_pkt *pk)
{
	uint32_t vt = be32(ip);
	size_t tot = be16(ip + 4) + 40u;

	if (*plen > tot)
		*plen = tot;
	if (*plen < 60 || tot > *plen || ip[6] != 6 || len < 60)
		return 0;
	pk->ver = 6;
	pk->ttl = ip[7];
	if (vt & 0xfffff)
		pk->quirks |= Q_FLOW;
	if ((vt >> 20) & 3)
		pk->quirks |= Q_ECN;
	pk->tot_hdr = 40;
	return 40;
}

static void tcp_quirks(const uint8_t *t, struct p0f_pkt *pk)
{
	uint8_t fl = t[13];

	if ((fl & (P0F_ECE | P0F_CWR)) || (t[12] & 1))
		pk->quirks |= Q_ECN;
	if (!be32(t + 4))
		pk->quirks |= Q_ZERO_SEQ;
	if (fl & P0F_ACK) {
		if (!be32(t + 8))
			pk->quirks |= Q_ZERO_ACK;
	} else if ((t[8] & 1) && !(fl & P0F_RST)) {
		pk->quirks |= Q_NZ_ACK; /* p0f.h: p0f's bitwise test */
	}
	if (fl & P0F_URG)
		pk->quirks |= Q_URG;
	else if (be16(t + 18))
		pk->quirks |= Q_NZ_URG;
	if (fl & P0F_PUSH)
		pk->quirks |= Q_PUSH;
}

/* One option at o[*i] (its kind already taken); false: p0f aborts the walk ("bad"). */
static bool one_option(const uint8_t *o, size_t end, size_t *i, uint8_t kind, struct p0f_pkt *pk)
{
	size_t d = *i; /* the byte after the kind */

	switch (kind) {
	case 1:
		return true;
	case 2:
		if (d + 3 > end)
			return false;
		if (o[d] != 4)
			pk->quirks |= Q_OPT_BAD;
		pk->mss = be16(o + d + 1);
		*i = d + 3;
		return true;
	case 3:
		if (d + 2 > end)
			return false;
		if (o[d] != 3)
			pk->quirks |= Q_OPT_BAD;
		pk->wscale = o[d + 1];
		if (pk->wscale > 14)
			pk->quirks |= Q_EXWS;
		*i = d + 2;
		return true;
	case 4:
		if (d + 1 > end)
			return false;
		if (o[d] != 2)
			pk->quirks |= Q_OPT_BAD;
		*i = d + 1;
		return true;
	case 8:
		if (d + 9 > end)
			return false;
		if (o[d] != 10)
			pk->quirks |= Q_OPT_BAD;
		pk->ts1 = be32(o + d + 1);
		if (!pk->ts1)
			pk->quirks |= Q_ZERO_TS1;
		if (pk->tcp_type == P0F_SYN && be32(o + d + 5))
			pk->quirks |= Q_NZ_TS2;
		*i = d + 9;
		return true;
	default: /* SACK (10 to 34 bytes) and unknown kinds (2 to 40) */
		if (d == end || o[d] < (kind == 5 ? 10 : 2) || o[d] > (kind == 5 ? 34 : 40) ||
		    d - 1 + o[d] > end)
			return false;
		*i = d - 1 + o[d];
		return true;
	}
}

static void parse_options(const uint8_t *o, size_t end, struct p0f_pkt *pk)
{
	size_t i = 0;

	while (i < end && pk->opt_cnt < P0F_MAX_OPT) {
		uint8_t kind = o[i++];

		pk->opt_layout[pk->opt_cnt++] = kind;
		if (kind == 0) {
			pk->opt_eol_pad = (uint32_t)(end - i);
			while (i < end && !o[i++])
				;
			if (i != end) {
				pk->quirks |= Q_OPT_EOL_NZ;
				i = end;
			}
			continue;
		}
		if (!one_option(o, end, &i, kind, pk)) {
			pk->quirks |= Q_OPT_BAD;
			return;
		}
	}
	if (i != end)
		pk->quirks |= Q_OPT_BAD;
}

int p0f_parse(const uint8_t *ip, size_t len, struct p0f_pkt *pk)
{
	size_t plen = len, toff, doff;
	const uint8_t *t;
	uint8_t fl;

	memset(pk, 0, sizeof(*pk));
	if (len < 1)
		return -1;
	/* a header-only copy stands for the packet its IP length gives (p0f.h) */
	if (ip_stated_len(ip, len) > plen)
		plen = ip_stated_len(ip, len);
	if (plen < 40)
		return -1;
	toff = (ip[0] >> 4) == 4 ? parse_ipv4(ip, len, &plen, pk) :
	       (ip[0] >> 4) == 6 ? parse_ipv6(ip, len, &plen, pk) : 0;
	if (!toff)
		return -1;
	t = ip + toff;
	plen -= toff;
	doff = (t[12] >> 4) * 4u;
	if (doff < 20 || doff > plen || toff + doff > len)
		return -1;
	pk->tot_hdr += (uint32_t)doff;
	fl = t[13];
	pk->tcp_type = fl & (P0F_SYN | P0F_ACK | P0F_FIN | P0F_RST);
	if (((fl & P0F_SYN) && (fl & (P0F_FIN | P0F_RST))) || ((fl & P0F_FIN) && (fl & P0F_RST)) ||
	    !pk->tcp_type)
		return -1;
	pk->win = be16(t + 14);
	tcp_quirks(t, pk);
	pk->pay_len = (uint32_t)(plen - doff);
	parse_options(t + 20, doff - 20, pk);
	return 0;
}
