// SPDX-License-Identifier: GPL-2.0
/* Record fingerprints and their run counts (fp_record.h). */
#include "fp_record.h"

#include <stdlib.h>
#include <string.h>

#include "report.h"

static void one(const struct p0f_db *db, const uint8_t *ip, size_t len, struct fp_one *f)
{
	if (!ip || !len) {
		f->ja4t[0] = f->p0f[0] = f->label[0] = 0;
		return;
	}
	ja4t_of(ip, len, f->ja4t, sizeof(f->ja4t));
	p0f_fingerprint(db, ip, len, f->p0f, f->label);
}

void record_fp_compute(const struct p0f_db *db, const struct conn_record *c,
		       struct record_fp *fp)
{
	size_t nm = report_native_mac_len(c);

	one(db, c->native && c->native_len > nm ? c->native + nm : NULL,
	    c->native_len > nm ? c->native_len - nm : 0, &fp->native);
	one(db, c->bpf && c->bpf_len > c->bpf_mac_len ? c->bpf + c->bpf_mac_len : NULL,
	    c->bpf_len > c->bpf_mac_len ? c->bpf_len - c->bpf_mac_len : 0, &fp->bpf);
}

void fp_profile_of(const char *knobs, char *out, size_t n)
{
	size_t w = strcspn(knobs, " ");

	if (memchr(knobs, '/', w) == NULL)
		w = strlen(knobs);
	snprintf(out, n, "%.*s", (int)w, knobs);
}

static void count_group(struct fp_stats *s, const struct conn_record *c, const struct fp_one *f)
{
	const char *dir = c->direction ? c->direction : "passive";
	char profile[64];
	struct fp_group *g;

	fp_profile_of(c->knobs ? c->knobs : "", profile, sizeof(profile));
	for (uint64_t i = 0; i < s->ngroups; i++) {
		g = &s->groups[i];
		if (!strcmp(g->ja4t, f->ja4t) && !strcmp(g->label, f->label) &&
		    !strcmp(g->profile, profile) && !strcmp(g->gen, c->gen ? c->gen : "unknown") &&
		    !strcmp(g->direction, dir)) {
			g->records++;
			return;
		}
	}
	if (!s->groups)
		s->groups = calloc(FP_GROUPS_MAX, sizeof(*s->groups));
	if (!s->groups || s->ngroups == FP_GROUPS_MAX) {
		s->groups_dropped++;
		return;
	}
	g = &s->groups[s->ngroups++];
	snprintf(g->gen, sizeof(g->gen), "%s", c->gen ? c->gen : "unknown");
	snprintf(g->profile, sizeof(g->profile), "%s", profile);
	snprintf(g->direction, sizeof(g->direction), "%s", dir);
	snprintf(g->ja4t, sizeof(g->ja4t), "%s", f->ja4t);
	snprintf(g->label, sizeof(g->label), "%s", f->label);
	g->records = 1;
}

static void count_change(struct fp_change *ch, bool ja4t, bool p0f, bool label)
{
	ch->records++;
	ch->ja4t += ja4t;
	ch->p0f += p0f;
	ch->label += label;
}

void fp_stats_add(struct fp_stats *s, const struct conn_record *c, const struct record_fp *fp)
{
	const struct fp_one *n = &fp->native, *b = &fp->bpf;
	bool ja4t, p0f, label;

	count_group(s, c, b->ja4t[0] || b->p0f[0] ? b : n);
	if (!(n->ja4t[0] || n->p0f[0]) || !(b->ja4t[0] || b->p0f[0]))
		return;
	ja4t = strcmp(n->ja4t, b->ja4t) != 0;
	p0f = strcmp(n->p0f, b->p0f) != 0;
	label = strcmp(n->label, b->label) != 0;
	s->both++;
	s->ja4t_agree += !ja4t;
	s->p0f_agree += !p0f;
	s->label_agree += !label;
	count_change(&s->by_verdict[c->res->verdict], ja4t, p0f, label);
	if (c->res->verdict == V_EXPLAINED)
		count_change(&s->by_reason[c->res->reason], ja4t, p0f, label);
}

static void change_json(struct json_out *j, const char *key, const struct fp_change *ch)
{
	json_open(j, key, '{');
	json_u64(j, "records", ch->records);
	json_u64(j, "ja4t_changed", ch->ja4t);
	json_u64(j, "p0f_sig_changed", ch->p0f);
	json_u64(j, "p0f_label_changed", ch->label);
	json_close(j);
}

void fp_stats_json(struct json_out *j, const struct fp_stats *s)
{
	json_open(j, "fingerprints", '{');
	json_u64(j, "records_both", s->both);
	json_u64(j, "ja4t_agree", s->ja4t_agree);
	json_u64(j, "p0f_sig_agree", s->p0f_agree);
	json_u64(j, "p0f_label_agree", s->label_agree);
	json_open(j, "by_verdict", '{');
	for (int v = 0; v < V_MAX; v++)
		if (s->by_verdict[v].records)
			change_json(j, verdict_names[v], &s->by_verdict[v]);
	json_close(j);
	json_open(j, "by_reason", '{');
	for (int r = 0; r < R_MAX; r++)
		if (s->by_reason[r].records)
			change_json(j, reason_names[r], &s->by_reason[r]);
	json_close(j);
	json_u64(j, "groups_dropped", s->groups_dropped);
	json_open(j, "seen", '[');
	for (uint64_t i = 0; i < s->ngroups; i++) {
		const struct fp_group *g = &s->groups[i];

		json_open(j, NULL, '{');
		json_str(j, "gen", g->gen);
		json_str(j, "profile", g->profile);
		json_str(j, "direction", g->direction);
		json_str(j, "ja4t", g->ja4t);
		json_str(j, "p0f_label", g->label);
		json_u64(j, "records", g->records);
		json_close(j);
	}
	json_close(j);
	json_close(j);
}

void fp_stats_free(struct fp_stats *s)
{
	free(s->groups);
	s->groups = NULL;
	s->ngroups = 0;
}
