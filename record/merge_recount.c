// SPDX-License-Identifier: GPL-2.0
/* A merged run's records counted again by the run's own code (merge_recount.h). */
#include "merge_recount.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fp_record.h"
#include "json_out.h"
#include "summary.h"

const char *const recount_field_names[RF_MAX] = {
	[RF_JA4T_NATIVE] = "ja4t_native", [RF_P0F_NATIVE] = "p0f_native",
	[RF_LABEL_NATIVE] = "p0f_label_native", [RF_JA4T_BPF] = "ja4t_bpf",
	[RF_P0F_BPF] = "p0f_bpf", [RF_LABEL_BPF] = "p0f_label_bpf",
};

struct recount {
	struct fp_stats fp;
	struct run_stats st;
};

struct recount *recount_new(void)
{
	struct recount *rc = calloc(1, sizeof(*rc));

	if (rc && stats_init(&rc->st)) {
		free(rc);
		return NULL;
	}
	return rc;
}

void recount_free(struct recount *rc)
{
	if (!rc)
		return;
	fp_stats_free(&rc->fp);
	free(rc->st.shape_set);
	free(rc);
}

void recount_add(struct recount *rc, const char *gen, const char *direction,
		 const char *const field[RF_MAX], const char *shape)
{
	struct record_fp f;

	snprintf(f.native.ja4t, sizeof(f.native.ja4t), "%s", field[RF_JA4T_NATIVE]);
	snprintf(f.native.p0f, sizeof(f.native.p0f), "%s", field[RF_P0F_NATIVE]);
	snprintf(f.native.label, sizeof(f.native.label), "%s", field[RF_LABEL_NATIVE]);
	snprintf(f.bpf.ja4t, sizeof(f.bpf.ja4t), "%s", field[RF_JA4T_BPF]);
	snprintf(f.bpf.p0f, sizeof(f.bpf.p0f), "%s", field[RF_P0F_BPF]);
	snprintf(f.bpf.label, sizeof(f.bpf.label), "%s", field[RF_LABEL_BPF]);
	fp_stats_add_gen(&rc->fp, gen, direction, &f);
	if (shape)
		stats_count_shape_hash(&rc->st, strtoull(shape, NULL, 16));
}

uint64_t recount_shapes(const struct recount *rc)
{
	return rc->st.shapes;
}

char *recount_fp_generators(const struct recount *rc)
{
	struct json_out j;
	const char *doc;
	char *text;

	json_init(&j, false);
	json_open(&j, NULL, '{');
	fp_gens_json(&j, &rc->fp);
	json_close(&j);
	doc = json_done(&j);
	text = doc ? strdup(doc) : NULL;
	json_free(&j);
	return text;
}
