// SPDX-License-Identifier: GPL-2.0
/* Record fingerprints and their run counts (fp_record.h). */
#include "fp_record.h"

#include <stdlib.h>
#include <string.h>

#include "fnv.h"
#include "p0f_quirks.h"
#include "report.h"

/* Packet @ip (@len) is a SYN with ACK. */
static bool syn_with_ack(const uint8_t *ip, size_t len)
{
	struct p0f_pkt pk;

	return !p0f_parse(ip, len, &pk) && (pk.tcp_type & P0F_SYN) && (pk.tcp_type & P0F_ACK);
}

/* The fingerprints of @ip (@len); @passive: a packet a listener received. */
static void one(const struct p0f_db *db, const uint8_t *ip, size_t len, bool passive,
		struct fp_one *f)
{
	if (!ip || !len) {
		f->ja4t[0] = f->p0f[0] = f->label[0] = 0;
		return;
	}
	ja4t_of(ip, len, f->ja4t, sizeof(f->ja4t));
	p0f_fingerprint(db, ip, len, f->p0f, f->label);
	/* p0f fingerprints a SYN+ACK only as the answer to a SYN of its flow it saw ("Stray
	 * SYN+ACK with no flow" in its process.c): one sent to a listener is not p0f's */
	if (passive && syn_with_ack(ip, len))
		f->p0f[0] = f->label[0] = 0;
}

/* The wire's frame of record @c from its IP header on, into @ip and @len: false if none. */
static bool wire_frame(const struct conn_record *c, const uint8_t **ip, size_t *len)
{
	const struct point_record *pr = c->points;
	size_t mac;

	if (!pr || !(pr->mask & (1u << PT_WIRE)) || !pr->wire_frame_len)
		return false;
	mac = pr->copy[PT_WIRE].mac_len;
	if (pr->wire_frame_len <= mac)
		return false;
	*ip = pr->wire_frame + mac;
	*len = pr->wire_frame_len - mac;
	return true;
}

void record_fp_compute(const struct p0f_db *db, const struct conn_record *c,
		       struct record_fp *fp)
{
	size_t nm = report_native_mac_len(c);
	const uint8_t *n = c->native && c->native_len > nm ? c->native + nm : NULL;
	const uint8_t *b = c->bpf && c->bpf_len > c->bpf_mac_len ? c->bpf + c->bpf_mac_len : NULL;
	size_t nl = n ? c->native_len - nm : 0, bl = b ? c->bpf_len - c->bpf_mac_len : 0, wl;
	const uint8_t *w;

	bool passive = c->direction && !strcmp(c->direction, "passive");

	one(db, n, nl, passive, &fp->native);
	fp->has_wire = wire_frame(c, &w, &wl);
	if (fp->has_wire)
		one(db, w, wl, passive, &fp->wire);
	/* most records are identical from the IP header on: one computation serves both */
	if (n && b && nl == bl && !memcmp(n, b, nl))
		fp->bpf = fp->native;
	else
		one(db, b, bl, passive, &fp->bpf);
}

void fp_profile_of(const char *knobs, char *out, size_t n)
{
	size_t w = strcspn(knobs, " ");

	if (!memchr(knobs, '/', w))
		w = 0;
	snprintf(out, n, "%.*s", (int)w, knobs);
}

/* A fingerprint's hash: JA4T, a separator no string holds, the p0f label; never 0 (a free slot). */
static uint64_t fp_hash(const char *ja4t, const char *label)
{
	static const uint8_t sep = 0xff;
	uint64_t h = fnv1a_str(fnv1a(fnv1a_str(FNV1A_INIT, ja4t), &sep, 1), label);

	return h ? h : 1;
}

static struct fp_gen *gen_entry(struct fp_stats *s, const char *gen, const char *dir)
{
	struct fp_gen *g;

	for (uint64_t i = 0; i < s->ngens; i++)
		if (!strcmp(s->gens[i].gen, gen) && !strcmp(s->gens[i].direction, dir))
			return &s->gens[i];
	if (s->ngens == FP_GENS_MAX)
		return NULL;
	g = &s->gens[s->ngens];
	g->hash = calloc(2 * FP_DISTINCT_MAX, sizeof(*g->hash));
	g->count = calloc(2 * FP_DISTINCT_MAX, sizeof(*g->count));
	if (!g->hash || !g->count) {
		free(g->hash);
		free(g->count);
		g->hash = g->count = NULL;
		return NULL;
	}
	s->ngens++;
	snprintf(g->gen, sizeof(g->gen), "%s", gen);
	snprintf(g->direction, sizeof(g->direction), "%s", dir);
	return g;
}

void fp_stats_add_gen(struct fp_stats *s, const char *gen, const char *direction,
		      const struct record_fp *fp)
{
	const struct fp_one *b = &fp->bpf;
	const struct fp_one *f = b->ja4t[0] || b->p0f[0] ? b : &fp->native;
	struct fp_gen *g = gen_entry(s, gen, direction);
	uint64_t h = fp_hash(f->ja4t, f->label);
	size_t i;

	if (!g) {
		s->gens_dropped++;
		return;
	}
	g->records++;
	for (i = h % (2 * FP_DISTINCT_MAX); g->hash[i] && g->hash[i] != h;
	     i = (i + 1) % (2 * FP_DISTINCT_MAX))
		;
	if (!g->hash[i]) {
		if (g->distinct == FP_DISTINCT_MAX) {
			g->more = true;
			return;
		}
		g->hash[i] = h;
		g->distinct++;
	}
	if (++g->count[i] > g->top_records) {
		g->top_records = g->count[i];
		snprintf(g->top_ja4t, sizeof(g->top_ja4t), "%s", f->ja4t);
		snprintf(g->top_label, sizeof(g->top_label), "%s", f->label);
	}
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

	fp_stats_add_gen(s, c->gen ? c->gen : "unknown", c->direction ? c->direction : "passive", fp);
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
	json_u64(j, "generators_dropped", s->gens_dropped);
	fp_gens_json(j, s);
	json_close(j);
}

void fp_gens_json(struct json_out *j, const struct fp_stats *s)
{
	json_open(j, "generators", '[');
	for (uint64_t i = 0; i < s->ngens; i++) {
		const struct fp_gen *g = &s->gens[i];

		json_open(j, NULL, '{');
		json_str(j, "gen", g->gen);
		json_str(j, "direction", g->direction);
		json_u64(j, "records", g->records);
		json_u64(j, "distinct", g->distinct);
		json_bool(j, "distinct_is_lower_bound", g->more);
		json_str(j, "top_ja4t", g->top_ja4t);
		json_str(j, "top_p0f_label", g->top_label);
		json_u64(j, "top_records", g->top_records);
		json_close(j);
	}
	json_close(j);
}

void fp_stats_free(struct fp_stats *s)
{
	for (uint64_t i = 0; i < s->ngens; i++) {
		free(s->gens[i].hash);
		free(s->gens[i].count);
		s->gens[i].hash = s->gens[i].count = NULL;
	}
	s->ngens = 0;
}
