// SPDX-License-Identifier: GPL-2.0
/* The run's statistics and summary.json (summary.h). */
#define _GNU_SOURCE
#include "summary.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>

#include "decode.h"
#include "json_out.h"
#include "run_verdicts.h"

/*
 * TcpExt counters reported as growth over the run. The last two exist only with the series'
 * counter patch (kernel-series/VER/0001); there TCPSynNotSavedCookie counts exactly the accepted
 * sockets of TCP_SAVE_SYN listeners that came from a cookie, and is the syncookie proof.
 */
const char *const tcpext_names[TCPEXT_N] = { "SyncookiesRecv", "TCPTimeWaitOverflow",
					     "TCPSynSaved", "TCPSynNotSavedCookie" };

/*
 * A SYN's shape, as fingerprinting tools see it: family, TTL, TOS, IPv4 option kinds or IPv6
 * extension header types, TCP flags and the TCP option kinds in order (not their values).
 * FNV-1a of those bytes; distinct shapes are counted in a fixed open-addressing set.
 */
#define SHAPE_SET (1u << 16)

static uint64_t shape_of(const uint8_t *b, size_t len, size_t mac)
{
	uint64_t h = 0xcbf29ce484222325ull;
	struct syn_layout l;
	const uint8_t *ip = b + mac;
#define MIX(x) (h = (h ^ (uint8_t)(x)) * 0x100000001b3ull)

	if (syn_layout(b, len, mac, &l) || !l.family)
		return 0;
	MIX(l.family);
	if (l.family == AF_INET) {
		MIX(ip[8]);
		MIX(ip[1]);
		for (size_t i = 20; i < l.net_len; i += ip[i] <= 1 ? 1 : (ip[i + 1] ? ip[i + 1] : 1))
			MIX(ip[i]);
	} else {
		uint8_t next = ip[6];
		size_t off = 40;

		MIX(ip[7]);
		MIX((ip[0] & 0x0f) << 4 | ip[1] >> 4);
		while (off < l.net_len) {
			MIX(next);
			next = ip[off];
			off += (ip[off + 1] + 1u) * 8u;
		}
	}
	MIX(b[l.tcp_off + 13]);
	for (size_t i = l.tcp_off + 20; i < l.tcp_off + l.tcp_len;
	     i += b[i] <= 1 ? 1 : (b[i + 1] ? b[i + 1] : l.tcp_len)) {
		MIX(b[i]);
		if (!b[i])
			break;
	}
#undef MIX
	return h ? h : 1;
}

int stats_init(struct run_stats *st)
{
	*st = (struct run_stats){ 0 };
	st->shape_set = calloc(SHAPE_SET, sizeof(*st->shape_set));
	return st->shape_set ? 0 : -1;
}

uint64_t stats_count_shape(struct run_stats *st, const uint8_t *b, size_t len, size_t mac)
{
	return stats_count_shape_hash(st, shape_of(b, len, mac));
}

uint64_t stats_count_shape_hash(struct run_stats *st, uint64_t h)
{
	for (uint32_t i = (uint32_t)h % SHAPE_SET, n = 0; h && n < SHAPE_SET; i = (i + 1) % SHAPE_SET, n++) {
		if (st->shape_set[i] == h)
			break;
		if (!st->shape_set[i]) {
			st->shape_set[i] = h;
			st->shapes++;
			break;
		}
	}
	return h;
}

void stats_count_verdict(struct run_stats *st, const struct compare_result *res, int bad)
{
	st->verdict[res->verdict]++;
	st->reason[res->reason]++;
	st->unexplained += bad;
}

void stats_count_gen(struct run_stats *st, enum gen_id g, const struct compare_result *res)
{
	st->gen[g]++;
	st->proven[g] += judge_as_planned(&gen_rows[g], res);
}

uint64_t stats_cookies_proven(const struct run_stats *st)
{
	return st->reason[R_SYNCOOKIE] + st->reason[R_COOKIE_REPEAT];
}

static void summary_memory(struct json_out *j, const struct run_stats *st)
{
	json_open(j, "memory_follower", '{');
	json_u64(j, "allocated", st->mem.allocs);
	json_u64(j, "freed", st->mem.frees);
	json_i64(j, "outstanding", st->mem.live);
	/* the follower's second kfrees (events), then what the server made of each address: freed
	 * twice in one function (a verdict), or again from another (a reuse it may have missed) */
	json_u64(j, "second_kfrees_seen", st->mem.double_frees);
	json_u64(j, "double_frees", st->mem_double_confirmed);
	json_u64(j, "double_frees_unconfirmed", st->mem_double_unconfirmed);
	json_u64(j, "double_frees_reused", st->mem_double_reused);
	json_u64(j, "second_kfrees_unrecorded", st->mem.double_unrecorded);
	json_u64(j, "missed_runs", st->mem.missed);
	json_u64(j, "ctx_overflow", st->mem.ctx_overflow);
	json_u64(j, "ctx_missed_runs", st->mem.ctx_missed);
	json_u64(j, "outside_ctx", st->mem.outside_ctx);
	json_bool(j, "kmem_cache_alloc_twin", st->mem.cache_progs == 2);
	json_u64(j, "kmem_cache_alloc_programs", (uint64_t)st->mem.cache_progs);
	/* the owner read of the first saved copy freed, where kmem_cache_alloc is not followed
	 * ("none": not read) */
	json_str(j, "first_copy_owner", mem_owner_name((enum mem_owner)st->mem.owner_check));
	json_u64(j, "unattributed", st->mem.unattributed);
	json_u64(j, "untracked", st->mem.untracked);
	json_u64(j, "verdicts", st->mem_leaks);
	json_u64(j, "settle_ms", st->mem_settle_ms);
	json_close(j);
}

static void summary_planned(struct json_out *j, const struct run_meta *m, const struct run_stats *st)
{
	json_open(j, "planned", '{');
	json_open(j, "held_back", '{');
	json_u64(j, "planned", m->held_back);
	json_u64(j, "proven_syn_retransmit", st->proven[GEN_HELD_BACK]);
	json_close(j);
	json_open(j, "abandoned", '{');
	json_u64(j, "planned", m->abandoned);
	json_u64(j, "proven_reset", st->proven[GEN_ABANDONED_RST]);
	json_u64(j, "proven_expired", st->proven[GEN_ABANDONED_EXPIRE]);
	json_u64(j, "proven_listener_closed", st->proven[GEN_ABANDONED_CLOSE]);
	json_close(j);
	json_open(j, "dup_synack", '{');
	json_u64(j, "planned", m->dup_synack);
	json_u64(j, "proven_syn_retransmit", st->proven[GEN_DUP_SYNACK]);
	json_close(j);
	for (int g = 0; g < GEN_MAX && m->own; g++) {
		if (!gen_rows[g].per_run)
			continue;
		json_open(j, gen_rows[g].name, '{');
		json_u64(j, "planned", m->own[g]);
		json_u64(j, "proven", st->proven[g]);
		json_close(j);
	}
	json_close(j);
}

static void summary_tcpext(struct json_out *j, const struct run_stats *st,
			   const struct summary_now *now)
{
	json_open(j, "tcpext", '{');
	for (int i = 0; i < TCPEXT_N; i++) {
		if (now->tcpext[i] < 0 || st->tcpext_base[i] < 0)
			json_null_at(j, tcpext_names[i]);
		else
			json_i64(j, tcpext_names[i], now->tcpext[i] - st->tcpext_base[i]);
	}
	json_close(j);
}

static void summary_syncookie(struct json_out *j, const struct run_stats *st,
			      const struct summary_now *now, bool final)
{
	struct cookie_counts c = { .counter = st->cookie_counter, .proven = stats_cookies_proven(st),
				   .lost = st->lost,
				   .growth = now->cookie_counter < 0 || st->cookies_base < 0 ? -1 :
					     now->cookie_counter - st->cookies_base };
	bool agree = judge_cookie_counter(&c);

	json_str(j, "syncookie_proof", "witness: the flow's ACK validated as a syncookie at tc "
		 "ingress (bpf_tcp_check_syncookie) with no request socket");
	json_open(j, "syncookie_cross_check", '{');
	json_str(j, "counter", st->cookie_counter);
	json_i64(j, "growth", c.growth);
	json_u64(j, "proven", c.proven);
	json_str(j, "rule", cookie_counter_rule(&c));
	if (final)
		json_bool(j, "agree", agree);
	else
		json_null_at(j, "agree");
	json_close(j);
}

static void summary_counts(struct json_out *j, const struct run_meta *m, const struct run_stats *st)
{
	json_u64(j, "connections", st->conns);
	json_u64(j, "expected_connections", m->connections);
	/* the run's size as asked for (what --rerun walks again): without the planned
	 * held-back connections and the generators of their own, made on top of it */
	uint64_t on_top = m->held_back;

	for (int g = 0; g < GEN_MAX && m->own; g++)
		on_top += m->own[g];
	json_u64(j, "requested_connections", m->connections > on_top ? m->connections - on_top : 0);
	json_u64(j, "active_connections", st->active);
	json_u64(j, "expected_active", m->active);
	json_open(j, "generators", '{');
	for (int g = 0; g < GEN_MAX; g++)
		json_u64(j, gen_rows[g].name, st->gen[g]);
	json_close(j);
	json_u64(j, "duplicate_children", st->duplicate_children);
	json_u64(j, "client_failed", st->client_failed);
	json_u64(j, "client_failed_proven", st->client_failed_proven);
	json_u64(j, "test_corrupted", st->test_corrupted);
	json_u64(j, "late_captures", st->late_captures);
	json_u64(j, "late_copies", st->late_copies);
	json_u64(j, "late_answers", st->late_answers);
	json_u64(j, "gave_up", st->gave_up);
	json_u64(j, "gave_up_dropped", st->gave_up_dropped);
	if (st->unclaimed_bindings >= 0)
		json_i64(j, "unclaimed_bindings", st->unclaimed_bindings);
	else
		json_null_at(j, "unclaimed_bindings");
	json_u64(j, "bad_labels", st->bad_labels);
	json_u64(j, "distinct_syn_shapes", st->shapes);
	json_u64(j, "identical", st->verdict[V_IDENTICAL]);
	json_open(j, "explained", '{');
	for (int r = R_IPV4_OPTION_REWRITE; r < R_MAX; r++)
		if (r != R_EVICTED)
			json_u64(j, reason_names[r], st->reason[r]);
	json_close(j);
	json_u64(j, "unexplained", st->unexplained);
	json_u64(j, "differ", st->verdict[V_DIFFER]);
	json_u64(j, "native_missing", st->verdict[V_NATIVE_MISSING]);
	json_u64(j, "bpf_missing", st->verdict[V_BPF_MISSING]);
	json_u64(j, "connection_failed", st->verdict[V_CONN_FAILED]);
	json_u64(j, "cookie_not_due", st->verdict[V_COOKIE_NOT_DUE]);
	json_u64(j, "cookie_missing", st->verdict[V_COOKIE_MISSING]);
	json_u64(j, "capture_truncated", st->verdict[V_TRUNCATED]);
	json_u64(j, "reader_differs", st->verdict[V_READER_DIFFERS]);
	json_u64(j, "small_buffer_checks", st->small_buffer_checks);
}

static void summary_witness(struct json_out *j, const struct run_stats *st,
			    const struct summary_now *now)
{
	/* captures judged "unbound" (no socket, no proven drop), and those still waiting */
	json_u64(j, "unbound_captures", st->verdict[V_UNBOUND]);
	json_u64(j, "waiting_captures", now->waiting);
	json_u64(j, "records_written", st->records_written);
	json_u64(j, "records_lost", st->lost);
	if (st->evictions >= 0)
		json_i64(j, "witness_evictions", st->evictions);
	else
		json_null_at(j, "witness_evictions");
	/* how the consumer took flow entries at their sockets' bind (capture.h: struct
	 * take_slot): by take_flow, or by bpf() where it could not */
	json_open(j, "witness_take", '{');
	json_u64(j, "by_program", now->taken_by_program);
	json_u64(j, "fallbacks", now->take_fallbacks);
	json_close(j);
	/* what the witness has of the kernel, read from it at the start (witness_features.h) */
	json_open(j, "witness_features", '{');
	for (int i = 0; i < WF_MAX; i++)
		json_bool(j, witness_feature_keys[i], now->features && now->features->have[i]);
	json_close(j);
	json_open(j, "memory", '{');
	json_i64(j, "slab_bytes_start", st->slab_start);
	json_i64(j, "slab_bytes_end", st->slab_end);
	json_i64(j, "saved_syn_slab_bytes_start", st->syn_slab_start);
	json_i64(j, "saved_syn_slab_bytes_end", st->syn_slab_end);
	json_i64(j, "witness_map_bytes", now->map_bytes);
	json_close(j);
	json_open(j, "bpf_counters", '{');
	for (int i = 0; i < CNT_MAX; i++)
		json_u64(j, now->cnt_names[i], now->cnt[i]);
	json_close(j);
	/* the last unexpected helper failure of each program (source line in bpf/, errno) */
	json_open(j, "bpf_last_error", '{');
	for (__u32 slot = 0; slot < 2; slot++) {
		if (!now->err[slot].line)
			continue;
		json_open(j, slot ? "sockops" : "tc", '{');
		json_u64(j, "line", now->err[slot].line);
		json_i64(j, "err", now->err[slot].err);
		json_close(j);
	}
	json_close(j);
}

int summary_write(const char *dir, const struct run_meta *m, const struct run_stats *st,
		  const struct summary_now *now, bool final)
{
	struct json_out j;
	struct utsname u;
	const char *doc;
	int rc;

	uname(&u);
	json_init(&j, true);
	json_open(&j, NULL, '{');
	summary_counts(&j, m, st);
	summary_witness(&j, st, now);
	summary_tcpext(&j, st, now);
	summary_syncookie(&j, st, now, final);
	summary_planned(&j, m, st);
	if (final) {
		summary_memory(&j, st);
		expect_json(&j, &st->expect);
	}
	provides_json(&j, "declared", m->decl);
	tree_facts_json(&j, "tree", m->tree);
	fp_stats_json(&j, &st->fp);
	points_summary_json(&j, &st->points);
	json_str(&j, "kernel", u.release);
	json_str(&j, "series_hash", m->series_hash);
	json_u64(&j, "seed", m->seed);
	json_str(&j, "mix", m->mix);
	json_str(&j, "rerun_of", m->rerun_of);
	json_str(&j, "shard", m->shard);
	json_str(&j, "netem", m->netem);
	json_str(&j, "netem_back", m->netem_back);
	json_bool(&j, "partial", st->partial);
	json_close(&j);
	doc = json_done(&j);
	if (!doc) {
		fprintf(stderr, "syntwin-server: the summary could not be built (out of memory)\n");
		errno = ENOMEM;
		json_free(&j);
		return -1;
	}
	rc = write_file_atomic(dir, "summary.json", doc);
	json_free(&j);
	return rc;
}

void summary_print_result(const struct run_stats *st, bool active)
{
	char actives[64] = "";

	if (active)
		snprintf(actives, sizeof(actives), " + %llu active (SYN-ACK)",
			 (unsigned long long)st->active);
	printf("%llu connections%s: %llu identical, %llu explained (", (unsigned long long)st->conns,
	       actives, (unsigned long long)st->verdict[V_IDENTICAL],
	       (unsigned long long)st->verdict[V_EXPLAINED]);
	for (int r = R_IPV4_OPTION_REWRITE, first = 1; r < R_MAX; r++) {
		if (r == R_EVICTED)
			continue;
		printf("%s%s %llu", first ? "" : ", ", reason_names[r],
		       (unsigned long long)st->reason[r]);
		first = 0;
	}
	printf("), %llu unexplained%s\n", (unsigned long long)st->unexplained,
	       st->partial ? " (PARTIAL)" : "");
}
