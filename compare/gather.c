// SPDX-License-Identifier: GPL-2.0
/* Gather: one connection's observation for the judge (gather.h). */
#define _GNU_SOURCE
#include "gather.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "mono_time.h"
#include "net_helpers.h"
#include "registry.h"
#include "topology.h"
#include "which_copy.h"

static void view_of(const struct capture_rec *r, struct copy_view *v)
{
	*v = (struct copy_view){ .data = r->data, .len = r->cap_len, .mac_len = r->mac_len,
				 .net_len = r->net_len, .tcp_len = r->tcp_len,
				 .dropped = r->flags & CAP_F_DROPPED,
				 .drop_reason = r->flags & CAP_F_DROPPED ?
						capture_drop_reason_name(r->fate_reason) : NULL,
				 .saved = r->flags & CAP_F_SAVED,
				 .saved_again = r->flags & CAP_F_SAVED_AGAIN,
				 .saved_size = r->saved_size,
				 .truncated = r->flags & CAP_F_TRUNCATED };
}

/* @last (the bound capture) and its earlier copies, taken from syn_copies. */
static void gather_copies(struct capture_client *cc, const struct capture_rec *last,
			  struct copies *cp)
{
	int k = 0;

	if (last->flags & CAP_F_RECAPTURED)
		k = capture_take_copies(cc, last, cp->rec, CAPTURE_MAX_COPIES - 1);
	if (k < 0)
		k = 0;
	cp->rec[k] = *last;
	cp->n = k + 1;
	cp->cut = (last->flags & CAP_F_COPIES_CUT) || cp->n < last->copies;
	for (int i = 0; i < cp->n; i++)
		view_of(&cp->rec[i], &cp->view[i]);
}

/* What the witness holds of one SYN (or SYN-ACK), for the judge: @cp's copies and the flags of
 * the last. */
static void observe_copies(const struct run *R, const struct copies *cp, struct observation *ob)
{
	const struct capture_rec *last = cp->n ? &cp->rec[cp->n - 1] : NULL;

	ob->copy = cp->view;
	ob->n = cp->n;
	ob->cut = cp->cut;
	ob->cut_saved = cp->n && (cp->rec[cp->n - 1].flags & CAP_F_CUT_SAVED);
	ob->mem_followed = R->mem != NULL;
	ob->env = &R->env;
	ob->tree = &R->o.tree;
	if (!last)
		return;
	ob->syncookie_proven = last->flags & CAP_F_COOKIE_ACK;
	ob->cookie_isn = last->cookie_isn;
	ob->socket_isn = last->local_isn;
	ob->request_seen = last->flags & CAP_F_SYNACK_REQ;
	ob->synack_cookie = last->flags & CAP_F_SYNACK_COOKIE;
	ob->have_tsecr = last->flags & CAP_F_SYNACK_TS;
	ob->tsecr = last->synack_tsecr;
	ob->parse_err = last->flags & CAP_F_PARSE_ERR;
	ob->drops = last->drops;
	ob->copies = last->copies;
	ob->drop_reason = last->drops ? capture_drop_reason_name(last->drop_reason) : NULL;
	ob->no_drop_reasons = !R->features.have[WF_DROP_REASON];
	ob->rst_seen = last->flags & CAP_F_RST;
	ob->synacks = last->synacks;
}

/*
 * The judged syncookie connection a cookie child's key @k (the flow, and the segment's seq - 1
 * as the kernel took it for the ISN) belongs to, in @first: the same flow and an ISN at most 3
 * below. The segment that made the child may be a later one of the first connection (its FIN
 * after a few bytes of data): the kernel's cookie check subtracts seq - 1 from the cookie and
 * finds an MSS index that many below the one it encoded, still valid while it stays in its table
 * of 4 (msstab, IPv4 and IPv6 alike). Returns that difference, or -1 if there is none.
 */
int cookie_child_origin(struct run *R, const struct capture_key *k, struct capture_key *first)
{
	return keyset_find_below(&R->cookie_keys, k, 3, first);
}

/* A record with no SYN (CAP_F_NO_SYN): the socket is a cookie child whose SYN's capture was
 * taken before its ACK came (bind_cookie_child() in bpf/syn_sockops.bpf.c). */
static void observe_cookie_child(struct run *R, const struct capture_rec *rec,
				 struct observation *ob)
{
	struct capture_key k, first;

	ob->cookie_child = rec->flags & CAP_F_COOKIE_ACK;
	ob->cookie_isn = rec->cookie_isn;
	ob->socket_isn = rec->local_isn;
	ob->cookie_seq_offset = capture_key_of(rec, &k) ? -1 : cookie_child_origin(R, &k, &first);
	ob->cookie_conn_judged = ob->cookie_seq_offset >= 0;
}

bool cookie_due_of(const struct run *R, const char *gen, uint64_t index)
{
	return gen_id_of(gen) == GEN_SOCKETS && index >= R->cookie_at &&
	       index - R->cookie_at < R->cookie_tail;
}

void gather_socket(struct run *R, const struct conn_record *c, const uint8_t *native, int n,
		   const char *small, struct socket_seen *g)
{
	bool active = !strcmp(c->direction, "active");
	struct observation *ob = &g->ob;
	struct capture_key flow4;

	*ob = (struct observation){ .socket = true, .active = active, .mode = c->mode,
				    .native = n > 0 ? native : NULL,
				    .native_len = n > 0 ? (size_t)n : 0, .small_buffer = small,
				    .gen = c->gen, .declares = gen_declares_of(c->gen),
				    .knobs = c->knobs, .map_entries = R->cc.capacity,
				    .client_errno = active ? c->client_errno : 0 };
	R->env.hi_ms = realtime_ms() + 1000;
	g->have_bpf = capture_take_bound(&R->cc, c->cookie, &g->rec, &g->reads) == 0;
	g->have_reads = g->have_bpf;
	ob->reads = g->have_reads ? &g->reads : NULL;
	if (g->have_bpf && (g->rec.flags & CAP_F_NO_SYN)) {
		g->have_bpf = false; /* evidence of a cookie child, but no SYN */
		observe_cookie_child(R, &g->rec, ob);
	}
	g->cp.n = 0;
	if (g->have_bpf)
		gather_copies(&R->cc, &g->rec, &g->cp);
	/* The witness's evidence, the syncookie proof among it (prove_syncookie() in
	 * bpf/syn_capture.bpf.c): per connection, and nothing the saved-SYN code can touch. */
	observe_copies(R, &g->cp, ob);
	/* A missing capture is put down to eviction only while the maps have evicted more
	 * records than were already put down to it (rare: one map walk each). */
	ob->evicted = !g->have_bpf && !ob->cookie_child &&
		      capture_evictions(&R->cc) > (long long)R->st.lost;
	/* the copy the kernel's bytes are judged against (which_copy.h), -1 if none */
	g->judged = copy_that_created(g->cp.view, g->cp.n);
	ob->cookie_due = !active && cookie_due_of(R, c->gen, c->gen_index);
	if (!active && g->have_bpf && !capture_key_of(&g->rec, &flow4)) {
		flow4.seq = 0;
		ob->flow_reused = keyset_has(&R->passive_flows, &flow4);
		/* out of memory: a later reopening of it would be cookie-missing (a failure, never a
		 * false pass) */
		if (keyset_add(&R->passive_flows, &flow4))
			fprintf(stderr, "syntwin: out of memory keeping passive 4-tuples\n");
	}
}

void gather_unbound(struct run *R, const struct capture_key *k, const struct capture_rec *r,
		    struct observation *ob, char *site, size_t sitelen)
{
	static struct copies cp;

	/* a planned abandoned handshake, or a SYN answered with a cookie, is judged on every copy
	 * and its memory too (judge_cookie_no_child()) */
	if (abandon_kind_of(ob->declares) >= 0 || (r->flags & CAP_F_SYNACK_COOKIE)) {
		gather_copies(&R->cc, r, &cp);
		ob->leaked_at = leaked_site(R, k, site, sitelen);
	} else {
		cp.rec[0] = *r;
		view_of(&cp.rec[0], &cp.view[0]);
		cp.n = 1;
		cp.cut = false;
	}
	observe_copies(R, &cp, ob);
	/* the plan's listeners: PORT_BASE mode 1, the next mode 2 (and again for abandon-close) */
	ob->listener_mode = (ntohs(k->dport) - TOPO_PORT_BASE) % 2 + 1;
	ob->to_listener = (unsigned int)(ntohs(k->dport) - TOPO_PORT_BASE) < 2 ||
			  (unsigned int)(ntohs(k->dport) - TOPO_CLOSE_PORT) < 2;
	ob->synack_retries = R->synack_retries;
}

/* Was @l given before @syn_ns (a SYN's first copy), as the SYN's own label must have been? */
static bool given_before(const struct label *l, uint64_t syn_ns)
{
	return l->t_ns && l->t_ns < syn_ns;
}

int take_syn_label(struct run *R, const struct capture_key *f, bool has_isn, uint32_t isn,
		   uint64_t syn_ns, struct label *l, bool *dup)
{
	const struct label *live = labels_peek(&R->labels, f, has_isn, isn, syn_ns);
	const struct label *failed = labels_peek(&R->failed_labels, f, false, 0, syn_ns);
	bool use_failed = failed && (!live || (!live->has_isn && given_before(failed, syn_ns) &&
			  (!given_before(live, syn_ns) || failed->t_ns > live->t_ns)));

	if (use_failed)
		return labels_take(&R->failed_labels, f, false, 0, syn_ns, l, dup);
	return labels_take(&R->labels, f, has_isn, isn, syn_ns, l, dup);
}

/*
 * The label of the connection whose SYN had flow @f (and ISN @isn if @has_isn): its generator
 * gave it before making the SYN, in this process, so it is here if there is one.
 */
static void attach_label(struct run *R, struct conn_record *c, const struct capture_key *f,
			 bool has_isn, uint32_t isn, uint64_t syn_ns, struct label *keep)
{
	bool dup;

	/* (set aside: a connection the client saw fail, reset after its child was made) */
	if (take_syn_label(R, f, has_isn, isn, syn_ns, keep, &dup))
		return;
	c->gen = keep->gen;
	c->knobs = keep->knobs;
	c->gen_index = keep->index;
	c->gen_seed = keep->seed;
	if (dup) {
		/* One SYN, two sockets (a syncookie ACK and the FIN behind it on two CPUs). */
		R->st.duplicate_children++;
		fprintf(stderr, "syntwin: a second socket from the SYN of %s #%llu (isn %u)\n",
			keep->gen, (unsigned long long)keep->index, isn);
	}
}

void gather_label(struct run *R, struct conn_record *c, struct label *keep)
{
	struct capture_key f = c->flow;
	struct capture_rec peek;
	struct capture_key k;
	uint64_t syn_ns;
	bool have_key;

	/* The label is found by the witness's key (flow + ISN); without a capture, by the
	 * socket's flow. */
	have_key = capture_peek_bound(&R->cc, c->cookie, &peek) == 0 &&
		   capture_key_of(&peek, &k) == 0;
	/* a later child of a syncookie connection: its label is that connection's */
	if (have_key && (peek.flags & CAP_F_NO_SYN)) {
		struct capture_key seg = k;

		have_key = cookie_child_origin(R, &seg, &k) >= 0;
	}
	if (have_key) {
		f = k;
		/* The peer may be gone already (reset before the accept; getpeername() fails). */
		memcpy(c->flow.saddr, k.saddr, sizeof(k.saddr));
		c->flow.sport = k.sport;
	}
	/* a cookie child's SYN is an earlier connection's: its label is found as a duplicate */
	syn_ns = have_key && !(peek.flags & CAP_F_NO_SYN) ? capture_first_ts(&R->cc, &peek) : 0;
	attach_label(R, c, &f, have_key, have_key ? k.seq : 0, syn_ns, keep);
}
