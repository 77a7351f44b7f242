// SPDX-License-Identifier: GPL-2.0
/* The generators' rows (registry.h). */
#include "registry.h"

#include <string.h>

#define GEN_ROW(id, name, declares, planned, per_run, seed_offset) \
	[GEN_##id] = { name, declares, planned, per_run, seed_offset },
const struct gen_row gen_rows[GEN_MAX] = { GEN_TABLE(GEN_ROW) };
#undef GEN_ROW

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
