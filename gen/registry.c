// SPDX-License-Identifier: GPL-2.0
/* The generators' rows (registry.h). */
#include "registry.h"

#include <string.h>

const struct gen_row gen_rows[GEN_MAX] = {
	[GEN_SOCKETS] = { "sockets", DECLARES_CONNECT, R_NONE },
	[GEN_CRAFTED] = { "crafted", DECLARES_CONNECT, R_NONE },
	[GEN_TAP] = { "crafted-tap", DECLARES_CONNECT, R_NONE },
	[GEN_FUZZ] = { "fuzz", DECLARES_CONNECT, R_NONE },
	[GEN_REPLAY] = { "replay", DECLARES_NOTHING, R_NONE },
	[GEN_REJECTED] = { "rejected", DECLARES_DROP, R_NONE },
	[GEN_HELD_BACK] = { "held-back", DECLARES_CONNECT, R_RETRANSMIT },
	[GEN_ABANDONED_RST] = { "abandon-rst", DECLARES_ABANDON_RST, R_ABANDONED },
	[GEN_ABANDONED_EXPIRE] = { "abandon-expire", DECLARES_ABANDON_EXPIRE, R_ABANDONED },
	[GEN_ABANDONED_CLOSE] = { "abandon-close", DECLARES_ABANDON_CLOSE, R_ABANDONED },
	[GEN_DUP_SYNACK] = { "dup-synack", DECLARES_CONNECT, R_RETRANSMIT },
	[GEN_RESET_BEFORE_READ] = { "reset-before-read", DECLARES_CONNECT, R_NONE, .per_run = 8,
				    .seed_offset = 17 },
	[GEN_UNKNOWN] = { "unknown", DECLARES_CONNECT, R_NONE },
};

enum gen_id gen_id_of(const char *name)
{
	int g = 0;

	while (g < GEN_UNKNOWN && (!name || strcmp(name, gen_rows[g].name)))
		g++;
	return (enum gen_id)g;
}

enum gen_declares gen_declares_of(const char *name)
{
	return name ? gen_rows[gen_id_of(name)].declares : DECLARES_NOTHING;
}
