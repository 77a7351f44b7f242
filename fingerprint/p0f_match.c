// SPDX-License-Identifier: GPL-2.0
/*
 * p0f 3.09b's signature match and raw_sig (p0f.h): tcp_find_match(), detect_win_multi() and
 * dump_sig() of its fp_tcp.c, over the signatures p0f_db.c loaded. p0f finds candidates by a
 * hash of the option layout; here the layouts are compared whole, which differs only on a hash
 * collision between two layouts.
 */
#include "p0f.h"

#include <stdio.h>
#include <string.h>

#include "p0f_quirks.h"

static uint8_t guess_dist(uint8_t ttl)
{
	if (ttl <= 32)
		return 32 - ttl;
	if (ttl <= 64)
		return 64 - ttl;
	if (ttl <= 128)
		return 128 - ttl;
	return 255 - ttl;
}

/* The window as a multiple of the MSS (*@mtu 0) or of an MTU (*@mtu 1); -1 if none fits. */
static int win_multi(const struct p0f_pkt *pk, int *mtu)
{
	const int divs[] = { pk->mss, pk->ts1 ? pk->mss - 12 : 0, 1460, 1448,
			     pk->ver == 6 ? 1440 : 0, pk->ver == 6 ? 1428 : 0,
			     pk->mss + 40, pk->mss + (int)pk->tot_hdr, pk->ver == 6 ? pk->mss + 60 : 0,
			     1500 };
	const int first_mtu = 6;

	if (!pk->win || pk->mss < 100)
		return -1;
	for (int i = 0; i < (int)(sizeof(divs) / sizeof(divs[0])); i++) {
		if (divs[i] && !(pk->win % divs[i])) {
			*mtu = i >= first_mtu;
			return pk->win / divs[i];
		}
	}
	return -1;
}

static bool window_fits(const struct p0f_sig *s, const struct p0f_pkt *pk, int multi, int mtu)
{
	switch (s->win_type) {
	case WIN_NORMAL:
		return s->win == pk->win;
	case WIN_MOD:
		return !(pk->win % s->win);
	case WIN_MSS:
		return !mtu && s->win == multi;
	case WIN_MTU:
		return mtu && s->win == multi;
	default:
		return true;
	}
}

/* Does @s match @pk? *@fuzzy is set where it matches only loosely. */
static bool sig_fits(const struct p0f_sig *s, const struct p0f_pkt *pk, int multi, int mtu,
		     bool have_fuzzy, bool *fuzzy)
{
	uint32_t q = s->quirks;

	*fuzzy = false;
	if (s->opt_cnt != pk->opt_cnt || memcmp(s->opt_layout, pk->opt_layout, pk->opt_cnt))
		return false;
	if (s->ver == -1)
		q &= pk->ver == 4 ? ~(uint32_t)Q_FLOW : ~(uint32_t)(Q_DF | Q_NZ_ID | Q_ZERO_ID);
	if (q != pk->quirks) {
		uint32_t deleted = (q ^ pk->quirks) & q, added = (q ^ pk->quirks) & pk->quirks;

		/* only 'df' or 'id+' gone, or 'id-' or 'ecn' come, is a fuzzy match */
		if (have_fuzzy || (deleted & ~(uint32_t)(Q_DF | Q_NZ_ID)) ||
		    (added & ~(uint32_t)(Q_ZERO_ID | Q_ECN)))
			return false;
		*fuzzy = true;
	}
	if (s->opt_eol_pad != pk->opt_eol_pad || s->olen != (int)pk->ip_opt_len)
		return false;
	if (s->bad_ttl) {
		if (s->ttl < pk->ttl)
			return false;
	} else if (s->ttl < pk->ttl || s->ttl - pk->ttl > P0F_MAX_DIST) {
		*fuzzy = true;
	}
	if ((s->mss != -1 && s->mss != pk->mss) || (s->wscale != -1 && s->wscale != pk->wscale) ||
	    (s->pay_class != -1 && s->pay_class != !!pk->pay_len))
		return false;
	return window_fits(s, pk, multi, mtu);
}

static const struct p0f_sig *find_match(const struct p0f_db *db, int to_srv,
					const struct p0f_pkt *pk)
{
	const struct p0f_sig *fmatch = NULL, *gmatch = NULL;
	int mtu = 0, multi = win_multi(pk, &mtu);

	for (size_t i = 0; i < db->nsigs[to_srv]; i++) {
		const struct p0f_sig *s = &db->sigs[to_srv][i];
		bool fz;

		if (!sig_fits(s, pk, multi, mtu, fmatch != NULL, &fz))
			continue;
		if (fz) {
			if (!fmatch)
				fmatch = s;
		} else if (!s->generic) {
			return s;
		} else if (!gmatch) {
			gmatch = s;
		}
	}
	if (gmatch)
		return gmatch;
	/* no fuzzy matching for userland tools */
	return fmatch && fmatch->class_id == -1 ? NULL : fmatch;
}

static void put(char *b, size_t *used, const char *fmt, unsigned int a, unsigned int c)
{
	if (*used < P0F_SIG_MAX)
		*used += (size_t)snprintf(b + *used, P0F_SIG_MAX - *used, fmt, a, c);
}

static const char *const opt_names[9] = { "eol", "nop", "mss", "ws", "sok", "sack", NULL, NULL,
					  "ts" };

static void dump_sig(const struct p0f_pkt *pk, char *b)
{
	uint8_t dist = guess_dist(pk->ttl);
	int mtu = 0, m = win_multi(pk, &mtu);
	size_t u = 0;
	bool sp = false;

	put(b, &u, dist > P0F_MAX_DIST ? "%u:%u+?:" : "%u:%u+", (unsigned int)pk->ver, pk->ttl);
	if (dist <= P0F_MAX_DIST)
		put(b, &u, "%u:", dist, 0);
	put(b, &u, "%u:", pk->ip_opt_len, 0);
	if (pk->mss == P0F_SPECIAL_MSS && pk->tcp_type == (P0F_SYN | P0F_ACK))
		put(b, &u, "*:", 0, 0);
	else
		put(b, &u, "%u:", pk->mss, 0);
	if (m > 0)
		put(b, &u, mtu ? "mtu*%u" : "mss*%u", (unsigned int)m, 0);
	else
		put(b, &u, "%u", pk->win, 0);
	put(b, &u, ",%u:", pk->wscale, 0);
	for (uint32_t i = 0; i < pk->opt_cnt; i++) {
		uint8_t k = pk->opt_layout[i];

		put(b, &u, i ? "," : "", 0, 0);
		if (k == 0)
			put(b, &u, "eol+%u", pk->opt_eol_pad, 0);
		else if (k < 9 && opt_names[k])
			put(b, &u, opt_names[k], 0, 0);
		else
			put(b, &u, "?%u", k, 0);
	}
	put(b, &u, ":", 0, 0);
	for (int q = 0; q < Q_COUNT; q++) {
		if (pk->quirks & (1u << q)) {
			put(b, &u, sp ? "," : "", 0, 0);
			put(b, &u, p0f_quirk_names[q], 0, 0);
			sp = true;
		}
	}
	put(b, &u, pk->pay_len ? ":+" : ":0", 0, 0);
}

bool p0f_fingerprint(const struct p0f_db *db, const uint8_t *ip, size_t len, char *sig,
		     char *label)
{
	const struct p0f_sig *m;
	struct p0f_pkt pk;
	bool sendsyn;
	int to_srv;

	sig[0] = label[0] = 0;
	if (p0f_parse(ip, len, &pk))
		return false;
	if (pk.tcp_type == P0F_SYN)
		to_srv = 1;
	else if (pk.tcp_type == (P0F_SYN | P0F_ACK))
		to_srv = 0;
	else
		return false;
	dump_sig(&pk, sig);
	m = find_match(db, to_srv, &pk);
	if (!m) {
		snprintf(label, P0F_LABEL_MAX, "os=???");
		return true;
	}
	sendsyn = to_srv && pk.win == P0F_SPECIAL_WIN && pk.mss == P0F_SPECIAL_MSS;
	snprintf(label, P0F_LABEL_MAX, "%s=%s%s%s", m->class_id == -1 || sendsyn ? "app" : "os",
		 db->names[m->name_id], m->flavor ? " " : "", m->flavor ? m->flavor : "");
	return true;
}
