// SPDX-License-Identifier: GPL-2.0
/* The seeded socket-knob matrix (knobs.h). */
#include "knobs.h"

#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "rng.h"

/* Each knob is off or takes one of a few values; the mix says how often it is on. */
const struct knob_mix knob_mix_default = {
	.mss = 150, .rcvbuf = 150, .tos = 100, .ttl = 100, .ipopt = 60, .v6ext = 60,
	.tfo = 50, .md5 = 30, .src_port = 50, .sysctl = 300, .vlan = 60,
};
/* What the first runs used: RR / TS options only (also the shape of a plain client). */
const struct knob_mix knob_mix_plain = { .ipopt = 20 };

static const int mss_values[] = { 536, 1000, 1220, 1400, 1440 };
static const int rcvbuf_values[] = { 2048, 8192, 65536, 262144, 4194304 };
static const int tos_values[] = { 0x10, 0x28, 0x48, 0xb8, 0xe0 };
static const int ttl_values[] = { 1, 32, 64, 128, 255 };

#define PICK(rng, arr) (arr)[rng_next(rng) % (sizeof(arr) / sizeof((arr)[0]))]

void knobs_pick(uint64_t *rng, uint64_t i, const struct knob_mix *mix, struct knobs *k)
{
	int sack = k->sack, ts = k->timestamps, ws = k->wscale, ecn = k->ecn;

	memset(k, 0, sizeof(*k));
	k->sack = sack, k->timestamps = ts, k->wscale = ws, k->ecn = ecn;
	k->family = i % 2 ? AF_INET6 : AF_INET;
	k->mode = (i / 2) % 2 + 1;
	k->tos = -1;
	k->ttl = -1;
	if (rng_permille(rng, mix->mss))
		k->mss = PICK(rng, mss_values);
	if (rng_permille(rng, mix->rcvbuf))
		k->rcvbuf = PICK(rng, rcvbuf_values);
	if (rng_permille(rng, mix->tos))
		k->tos = PICK(rng, tos_values);
	if (rng_permille(rng, mix->ttl))
		k->ttl = PICK(rng, ttl_values);
	if (k->family == AF_INET && rng_permille(rng, mix->ipopt))
		k->ipopt = 1 + (int)(rng_next(rng) % (IPOPT_KINDS - 1));
	if (k->family == AF_INET6 && rng_permille(rng, mix->v6ext))
		k->v6ext = 1 + (int)(rng_next(rng) % (V6EXT_KINDS - 1));
	if (rng_permille(rng, mix->vlan))
		k->vlan = 1 + (int)(rng_next(rng) % (VLAN_KINDS - 1));
	/* TFO and MD5 exclude each other: the kernel does not do Fast Open on MD5 sockets. MD5
	 * comes from its own address on c0 itself, so not over a VLAN. */
	if (rng_permille(rng, mix->tfo))
		k->tfo = 1;
	else if (!k->vlan && rng_permille(rng, mix->md5))
		k->md5 = 1;
	if (rng_permille(rng, mix->src_port))
		k->src_port = 1; /* the client chooses a free port (it knows which it used) */
}

void knobs_pick_sysctls(uint64_t *rng, const struct knob_mix *mix, struct knobs *k)
{
	if (!rng_permille(rng, mix->sysctl)) {
		k->sack = k->timestamps = k->wscale = k->ecn = -1;
		return;
	}
	k->sack = (int)(rng_next(rng) % 2);
	k->timestamps = (int)(rng_next(rng) % 2);
	k->wscale = (int)(rng_next(rng) % 2);
	k->ecn = (int)(rng_next(rng) % 3);
}

int knobs_describe(const struct knobs *k, char *buf, size_t len)
{
	static const char *const ipopt_names[] = { "", "nop", "rr", "ts" };
	static const char *const v6_names[] = { "", "hop", "dst", "hop+dst" };
	size_t n = 0;

#define ADD(...)                                                                   \
	do {                                                                       \
		if (n < len)                                                       \
			n += (size_t)snprintf(buf + n, len - n, __VA_ARGS__);      \
	} while (0)
	buf[0] = 0;
	if (k->mss)
		ADD(" mss=%d", k->mss);
	if (k->rcvbuf)
		ADD(" rcvbuf=%d", k->rcvbuf);
	if (k->tos >= 0)
		ADD(" tos=0x%02x", k->tos);
	if (k->ttl >= 0)
		ADD(" ttl=%d", k->ttl);
	if (k->ipopt)
		ADD(" ipopt=%s", ipopt_names[k->ipopt]);
	if (k->v6ext)
		ADD(" v6ext=%s", v6_names[k->v6ext]);
	if (k->tfo)
		ADD(" tfo");
	if (k->md5)
		ADD(" md5");
	if (k->src_port)
		ADD(" sport=%d", k->src_port);
	if (k->vlan)
		ADD(" vlan=%s", k->vlan == VLAN_QINQ ? "qinq" : "1q");
	if (k->sack >= 0)
		ADD(" sack=%d timestamps=%d wscale=%d ecn=%d", k->sack, k->timestamps, k->wscale,
		    k->ecn);
#undef ADD
	if (!buf[0])
		snprintf(buf, len, " plain");
	memmove(buf, buf + 1, strlen(buf));
	return (int)strlen(buf);
}

size_t knobs_ipopt_bytes(int kind, uint8_t *buf)
{
	/* NOP run + EOL; NOP + RR with two slots; NOP + TS (timestamps only) with two slots */
	static const uint8_t nop[4] = { 1, 1, 1, 0 };
	static const uint8_t rr[12] = { 1, 7, 11, 4 };
	static const uint8_t ts[16] = { 1, 68, 12, 5, 0 };

	switch (kind) {
	case IPOPT_NOP:
		memcpy(buf, nop, sizeof(nop));
		return sizeof(nop);
	case IPOPT_RR:
		memcpy(buf, rr, sizeof(rr));
		return sizeof(rr);
	case IPOPT_TS:
		memcpy(buf, ts, sizeof(ts));
		return sizeof(ts);
	}
	return 0;
}

size_t knobs_v6ext_bytes(uint8_t *buf)
{
	/* An 8-byte options header: next header and length (filled by the kernel), PadN of 4. */
	static const uint8_t padn[8] = { 0, 0, 1, 4, 0, 0, 0, 0 };

	memcpy(buf, padn, sizeof(padn));
	return sizeof(padn);
}
