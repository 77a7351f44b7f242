// SPDX-License-Identifier: GPL-2.0
/* The capture points' part of summary.json (point_stats.h). */
#include "point_stats.h"

#include "point_names.h"

static const char *const counter_names[PC_MAX] = { POINT_COUNTER_NAMES };

/* "explained": each reason with a count. */
static void reasons_json(struct json_out *j, const uint64_t *reason)
{
	json_open(j, "explained", '{');
	for (int r = 1; r < R_MAX; r++)
		if (reason[r] && r != R_EVICTED)
			json_u64(j, reason_names[r], reason[r]);
	json_close(j);
}

static void point_json(struct json_out *j, int pt, const struct point_stats *s,
		       const char *xdp_modes)
{
	json_open(j, point_names[pt], '{');
	json_u64(j, "identical", s->verdict[PV_IDENTICAL]);
	reasons_json(j, s->reason);
	json_u64(j, "unexplained", s->verdict[PV_DIFFER] + s->verdict[PV_MISSING] +
				   s->verdict[PV_TRUNCATED]);
	for (int v = PV_DIFFER; v < PV_MAX; v++)
		json_u64(j, point_verdict_names[v], s->verdict[v]);
	for (int c = 0; pt != PT_TC && c < PC_MAX; c++)
		if (pt != PT_WIRE || c == PC_SYN_SEEN || c == PC_STORED)
			json_u64(j, counter_names[c], s->counter[c]);
	if (pt == PT_WIRE)
		json_u64(j, "dropped", s->dropped);
	else if (pt != PT_TC)
		json_u64(j, "map_entries", s->capacity);
	if (pt == PT_XDP)
		json_str(j, "modes", xdp_modes);
	json_u64(j, "test_corrupted", s->corrupted);
	json_close(j);
}

void points_summary_json(struct json_out *j, const struct points_summary *ps)
{
	if (!ps->mask)
		return;
	json_open(j, "capture_points", '{');
	for (int pt = 0; pt < PT_MAX; pt++)
		if (pt == PT_TC || ps->mask & (1u << pt))
			point_json(j, pt, &ps->st[pt], ps->xdp_modes);
	json_close(j);
}
