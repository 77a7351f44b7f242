// SPDX-License-Identifier: GPL-2.0
/* JA4T / JA4TS of one packet (ja4t.h). */
#include "ja4t.h"

#include <stdio.h>
#include <sys/socket.h>

#include "decode.h"
#include "tcp_opts.h"

struct ja4t_fields {
	uint16_t win;
	uint8_t kinds[40];
	size_t nkinds;
	int mss, wscale;	/* -1: none */
};

/* The option walk Wireshark 4.0 makes (ja4t.h lists its rules). */
static void walk_options(const uint8_t *o, size_t n, struct ja4t_fields *f)
{
	struct opt op;
	size_t pos = 0;
	bool after_eol = false;

	while (opt_next(o, n, &pos, &op)) {
		if (after_eol && op.kind != 0)
			return;
		if (op.bad || op.off + op.len > n)
			return;
		f->kinds[f->nkinds++] = op.kind;
		if (op.kind == 0)
			after_eol = true;
		else if (op.kind == 2 && op.len == 4)
			f->mss = o[op.off + 2] << 8 | o[op.off + 3];
		else if (op.kind == 3 && op.len == 3)
			f->wscale = o[op.off + 2];
	}
}

static void format(const struct ja4t_fields *f, char *out, size_t n)
{
	size_t used;

	used = (size_t)snprintf(out, n, "%u_", f->win);
	for (size_t i = 0; i < f->nkinds && used < n; i++)
		used += (size_t)snprintf(out + used, n - used, "%s%u", i ? "-" : "", f->kinds[i]);
	if (!f->nkinds && used < n)
		used += (size_t)snprintf(out + used, n - used, "00");
	if (used < n)
		used += (size_t)snprintf(out + used, n - used, f->mss >= 0 ? "_%02d" : "_00", f->mss);
	if (used < n)
		snprintf(out + used, n - used, f->wscale > 0 ? "_%d" : "_00", f->wscale);
}

bool ja4t_of(const uint8_t *ip, size_t len, char *out, size_t n)
{
	struct ja4t_fields f = { .mss = -1, .wscale = -1 };
	struct syn_layout l;
	const uint8_t *t;

	if (n)
		out[0] = 0;
	if (syn_layout(ip, len, 0, &l) || (l.family == AF_INET && ip[9] != 6))
		return false;
	t = ip + l.tcp_off;
	f.win = (uint16_t)(t[14] << 8 | t[15]);
	walk_options(t + 20, l.tcp_len - 20, &f);
	format(&f, out, n);
	return true;
}
