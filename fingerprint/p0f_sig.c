// SPDX-License-Identifier: GPL-2.0
/*
 * One p0f.fp TCP signature, "ver:ittl:olen:mss:wsize,scale:olayout:quirks:pclass", parsed as
 * p0f 3.09b's tcp_register_sig() parses it (p0f.h notes its "ittl-" oddity, kept here).
 */
#include "p0f.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p0f_quirks.h"

struct cursor {
	const char *v;
	const char *why;
};

static const char *digits_end(const char *p)
{
	while (isdigit((unsigned char)*p))
		p++;
	return p;
}

/* A number ending at @stop; -1 (why set) when malformed or outside [lo, hi]. */
static long number(struct cursor *c, char stop, long lo, long hi)
{
	const char *e = digits_end(c->v);
	long n = atol(c->v);

	if (*e != stop || n < lo || n > hi) {
		c->why = "malformed signature";
		return -1;
	}
	c->v = e + 1;
	return n;
}

static int ttl_field(struct cursor *c, struct p0f_sig *s)
{
	const char *e = digits_end(c->v);

	if (*e != ':' && *e != '+' && *e != '-')
		return c->why = "malformed TTL", -1;
	s->ttl = atoi(c->v);
	if (s->ttl < 1 || s->ttl > 255)
		return c->why = "bogus initial TTL", -1;
	c->v = e + 1;
	if (*e == '-' && e[1] == ':') {
		s->bad_ttl = true;
		c->v += 2; /* p0f's own step: one past the ':' (p0f.h) */
	} else if (*e == '+') {
		const char *a = digits_end(e + 1);
		int add = atoi(e + 1);

		if (*a != ':' || add < 0 || s->ttl + add > 255)
			return c->why = "bogus initial TTL", -1;
		s->ttl += add;
		c->v = a + 1;
	}
	return 0;
}

static int window_field(struct cursor *c, struct p0f_sig *s)
{
	const char *v = c->v;

	if (v[0] == '*' && v[1] == ',') {
		s->win_type = WIN_ANY;
		c->v += 2;
		return 0;
	}
	if (*v == '%') {
		s->win_type = WIN_MOD;
		c->v++;
		s->win = (int)number(c, ',', 2, 65535);
	} else if (!strncmp(v, "mss*", 4) || !strncmp(v, "mtu*", 4)) {
		s->win_type = v[1] == 's' ? WIN_MSS : WIN_MTU;
		c->v += 4;
		s->win = (int)number(c, ',', 1, 1000);
	} else {
		s->win_type = WIN_NORMAL;
		s->win = (int)number(c, ',', 0, 65535);
	}
	return s->win < 0 ? -1 : 0;
}

/* A '*' wildcard (-1) or a number, ending at ':'. */
static int wild_or_number(struct cursor *c, long hi, int *out)
{
	if (c->v[0] == '*' && c->v[1] == ':') {
		*out = -1;
		c->v += 2;
		return 0;
	}
	*out = (int)number(c, ':', 0, hi);
	return *out < 0 ? -1 : 0;
}

static const char *const opt_words[] = { "eol", "nop", "mss", "ws", "sok", "sack", "ts" };
static const uint8_t opt_kinds[] = { 0, 1, 2, 3, 4, 5, 8 };

static int one_opt(struct cursor *c, struct p0f_sig *s)
{
	size_t w;

	if (s->opt_cnt >= P0F_MAX_OPT)
		return c->why = "too many TCP options", -1;
	if (*c->v == '?') {
		const char *e = digits_end(c->v + 1);
		long k = atol(c->v + 1);

		if ((*e != ':' && *e != ',') || k < 0 || k > 255)
			return c->why = "malformed '?' option", -1;
		s->opt_layout[s->opt_cnt++] = (uint8_t)k;
		c->v = e;
		return 0;
	}
	for (w = 0; w < sizeof(opt_kinds); w++)
		if (!strncmp(c->v, opt_words[w], strlen(opt_words[w])))
			break;
	if (w == sizeof(opt_kinds))
		return c->why = "unknown TCP option", -1;
	s->opt_layout[s->opt_cnt++] = opt_kinds[w];
	c->v += strlen(opt_words[w]);
	if (opt_kinds[w] == 0) { /* "eol+N", the last option */
		const char *e;

		if (*c->v != '+')
			return c->why = "malformed EOL option", -1;
		e = digits_end(++c->v);
		if (*e != ':')
			return c->why = "EOL must be the last option", -1;
		s->opt_eol_pad = (uint32_t)atol(c->v);
		if (s->opt_eol_pad > 255)
			return c->why = "bogus EOL padding", -1;
		c->v = e;
	}
	return 0;
}

static int layout_field(struct cursor *c, struct p0f_sig *s)
{
	while (*c->v != ':') {
		if (one_opt(c, s))
			return -1;
		if (*c->v == ':')
			break;
		if (*c->v++ != ',')
			return c->why = "malformed TCP options", -1;
	}
	c->v++;
	return 0;
}

static int quirks_field(struct cursor *c, struct p0f_sig *s)
{
	while (*c->v != ':') {
		int q;

		for (q = 0; q < Q_COUNT; q++)
			if (!strncmp(c->v, p0f_quirk_names[q], strlen(p0f_quirk_names[q])))
				break;
		if (q == Q_COUNT)
			return c->why = "unknown quirk", -1;
		if ((s->ver == 6 && (1u << q) & (Q_DF | Q_NZ_ID | Q_ZERO_ID | Q_NZ_MBZ)) ||
		    (s->ver == 4 && (1u << q) == Q_FLOW))
			return c->why = "quirk not valid for this IP version", -1;
		s->quirks |= 1u << q;
		c->v += strlen(p0f_quirk_names[q]);
		if (*c->v == ':')
			break;
		if (*c->v++ != ',')
			return c->why = "malformed quirks", -1;
	}
	c->v++;
	return 0;
}

int p0f_sig_parse(const char *v, struct p0f_sig *s, char *err, size_t errlen)
{
	struct cursor c = { .v = v };

	if ((*v != '4' && *v != '6' && *v != '*') || v[1] != ':') {
		snprintf(err, errlen, "malformed signature (IP version)");
		return -1;
	}
	s->ver = *v == '*' ? -1 : *v - '0';
	c.v += 2;
	if (ttl_field(&c, s) || (s->olen = (int)number(&c, ':', 0, 255)) < 0 ||
	    wild_or_number(&c, 65535, &s->mss) || window_field(&c, s) ||
	    wild_or_number(&c, 255, &s->wscale) || layout_field(&c, s) || quirks_field(&c, s))
		goto bad;
	if (!strcmp(c.v, "*"))
		s->pay_class = -1;
	else if (!strcmp(c.v, "0") || !strcmp(c.v, "+"))
		s->pay_class = *c.v == '+';
	else
		c.why = "malformed payload class";
	if (!c.why)
		return 0;
bad:
	snprintf(err, errlen, "%s", c.why ? c.why : "malformed signature");
	return -1;
}
