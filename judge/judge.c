// SPDX-License-Identifier: GPL-2.0
/* The judge: one observation in, one verdict out (see judge.h). */
#include "judge.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "abandoned.h"
#include "unbound.h"

int abandon_kind_of(enum gen_declares d)
{
	switch (d) {
	case DECLARES_ABANDON_RST:
		return ABANDON_RST;
	case DECLARES_ABANDON_EXPIRE:
		return ABANDON_EXPIRE;
	case DECLARES_ABANDON_CLOSE:
		return ABANDON_CLOSE;
	default:
		return -1;
	}
}

static int unexplained(struct compare_result *res, enum verdict v)
{
	res->verdict = v;
	res->reason = R_NONE;
	return 1;
}

/*
 * A SYN no socket took, answered with a syncookie (the witness validated the ACK its SYN-ACK
 * asks for against the listener, which held no request socket), and no segment of the flow
 * validated at tc (no child was owed): a cookie keeps no state, so nothing may have been saved
 * for it. Explained when the memory follower saw no saved-SYN allocation for any copy and none
 * is left; a must-drop SYN answered at all, or any allocation, is unexplained.
 */
static int judge_cookie_no_child(const struct observation *ob, struct compare_result *res)
{
	*res = (struct compare_result){ .diff_off = -1 };
	if (ob->declares == DECLARES_DROP) {
		snprintf(res->detail, sizeof(res->detail), "the kernel answered a SYN it must drop "
			 "(%s) with a syncookie", ob->knobs ? ob->knobs : "no knobs named");
		return unexplained(res, V_DIFFER);
	}
	if (!ob->mem_followed) {
		snprintf(res->detail, sizeof(res->detail), "answered with a syncookie and no child "
			 "made, but without the memory follower nothing shows that nothing was saved");
		return unexplained(res, V_UNBOUND);
	}
	int saved = 0; /* the first copy an allocation was tied to (1-based), 0 if none */

	for (int i = 0; i < ob->n && !saved; i++)
		saved = ob->copy[i].saved ? i + 1 : 0;
	if (saved || ob->leaked_at) {
		snprintf(res->detail, sizeof(res->detail), "answered with a syncookie, yet the "
			 "kernel allocated a saved copy for it (copy %d of %d%s%s)", saved ? saved : 1,
			 ob->n, ob->leaked_at ? ", never freed: " : "",
			 ob->leaked_at ? ob->leaked_at : "");
		return unexplained(res, V_DIFFER);
	}
	res->verdict = V_EXPLAINED;
	res->reason = R_COOKIE_NO_CHILD;
	snprintf(res->detail, sizeof(res->detail), "answered with a syncookie (its SYN-ACK's ISN "
		 "validated as a cookie, no request socket), and no segment of the flow made a child "
		 "(%u SYN-ACK(s), no validated ACK): a cookie keeps nothing, and nothing was saved",
		 ob->synacks);
	return 0;
}

/* The copies of the SYN there were, as the witness counted them, kept or not (more than it
 * keeps: cut); UINT_MAX where its count saturated, so that no count of drops reaches it. */
static unsigned int copies_counted(const struct observation *ob)
{
	if (ob->copies >= 255)
		return UINT_MAX;
	return ob->copies > (unsigned int)ob->n ? ob->copies : (unsigned int)ob->n;
}

/* A SYN no socket took: planned abandoned, dropped for a reason its bytes show, answered with a
 * cookie whose ACK never came, or unbound. */
static int judge_no_socket(const struct observation *ob, struct compare_result *res)
{
	const struct copy_view *last = ob->n > 0 ? &ob->copy[ob->n - 1] : NULL;
	int kind = abandon_kind_of(ob->declares);

	if (!last) {
		*res = (struct compare_result){ .diff_off = -1 };
		snprintf(res->detail, sizeof(res->detail), "no SYN-ACK came and the witness has no "
			 "capture of this SYN (isn %u)", ob->isn);
		return unexplained(res, V_BPF_MISSING);
	}
	if (kind >= 0) {
		struct abandoned_input in = { .kind = (enum abandon_kind)kind, .copy = ob->copy,
					      .n = ob->n, .cut = ob->cut, .cut_saved = ob->cut_saved,
					      .copies = ob->copies, .drops = ob->drops,
					      .mode = ob->listener_mode,
					      .rst_seen = ob->rst_seen, .synacks = ob->synacks,
					      .synack_retries = ob->synack_retries,
					      .leaked_at = ob->leaked_at };

		return judge_abandoned(&in, res);
	}
	if (ob->synack_cookie && !ob->syncookie_proven)
		return judge_cookie_no_child(ob, res);
	struct unbound_input in = { .bytes = last->data, .len = last->len,
				    .mac_len = last->mac_len, .parse_err = ob->parse_err,
				    .drops = ob->drops, .drop_reason = ob->drop_reason,
				    .no_drop_reasons = ob->no_drop_reasons,
				    .copies = copies_counted(ob), .synacks = ob->synacks,
				    .saved = ob->leaked_at != NULL,
				    .declared = ob->declares, .tree = ob->tree,
				    .to_listener = ob->to_listener };

	for (int i = 0; i < ob->n; i++)
		in.saved |= ob->copy[i].saved;
	return judge_unbound(&in, res);
}

/*
 * A passive socket made by a cookie ACK that tc validated after its SYN's capture was taken:
 * explained as the SYN's second child when an earlier connection of the same flow and ISN was
 * proven a syncookie connection (so the SYN was answered with a cookie, and any copy of its ACK
 * validates again: the kernel keeps no state to refuse it), and the kernel saved nothing for it
 * (a cookie child has no SYN to keep). Anything else is unexplained.
 */
static int judge_cookie_child(const struct observation *ob, struct compare_result *res)
{
	*res = (struct compare_result){ .diff_off = -1 };
	if (ob->cookie_isn != ob->socket_isn) {
		snprintf(res->detail, sizeof(res->detail), "a socket bound to a cookie ACK tc "
			 "validated (cookie %u), but its own ISN is %u: no cookie made it, and the "
			 "witness has no capture of its SYN", ob->cookie_isn, ob->socket_isn);
		return unexplained(res, V_BPF_MISSING);
	}
	if (ob->native) {
		snprintf(res->detail, sizeof(res->detail), "a syncookie child (its cookie ACK "
			 "validated at tc) has %zu saved bytes: a cookie child keeps none",
			 ob->native_len);
		return unexplained(res, V_DIFFER);
	}
	if (!ob->cookie_conn_judged) {
		snprintf(res->detail, sizeof(res->detail), "a syncookie child whose SYN the witness "
			 "has no capture of, and no earlier syncookie connection of its flow and ISN");
		return unexplained(res, V_BPF_MISSING);
	}
	res->verdict = V_EXPLAINED;
	res->reason = R_COOKIE_REPEAT;
	snprintf(res->detail, sizeof(res->detail), "a second child of an earlier syncookie "
		 "connection's SYN, made by a late copy of one of its segments (same flow, seq - 1 "
		 "= its ISN + %d) whose cookie tc validated with no socket for the flow; nothing "
		 "saved", ob->cookie_seq_offset);
	return 0;
}

/*
 * An active connection that failed after its SYN-ACK was saved: its bytes are judged like any
 * other's (@bad, @res); the failure is explained only by the wire: ECONNRESET, and the witness saw
 * an RST from the server reach the client with seq = the SYN-ACK's ISN + 1 (the server reset the
 * connection it had answered and had sent nothing since). Any other error, or a reset the wire
 * did not carry, is connection-failed, whatever the bytes say.
 */
static int judge_failed_connection(const struct observation *ob, struct compare_result *res,
				   int bad)
{
	size_t len = strlen(res->detail);

	if (ob->client_errno == ECONNRESET && ob->rst_seen) {
		res->failure_proven = true;
		snprintf(res->detail + len, sizeof(res->detail) - len, "%sthen reset by the server "
			 "(ECONNRESET; the witness saw its RST reach the client)", len ? "; " : "");
		return bad;
	}
	if (bad)
		return bad;
	*res = (struct compare_result){ .diff_off = -1 };
	snprintf(res->detail, sizeof(res->detail), "the connection failed after its SYN-ACK (%s)%s",
		 strerror(ob->client_errno), ob->client_errno == ECONNRESET ?
		 ", but the witness saw no RST from the server reach the client" :
		 ": nothing on the wire explains it");
	return unexplained(res, V_CONN_FAILED);
}

/*
 * A passive socket made from a cookie the witness validated: the flow's cookie ACK, and the
 * socket's own ISN is that cookie (a child of a request has the request's ISN, whatever ACK
 * validated before it).
 */
static bool cookie_made(const struct observation *ob)
{
	return !ob->active && ob->syncookie_proven && ob->cookie_isn == ob->socket_isn;
}

/* A missing copy the cookie ACK does not explain: said why, for the detail. */
static void name_foreign_cookie(const struct observation *ob, struct compare_result *res)
{
	if (res->verdict != V_NATIVE_MISSING || ob->active || !ob->syncookie_proven ||
	    cookie_made(ob))
		return;
	snprintf(res->detail, sizeof(res->detail), "TCP_SAVED_SYN returned nothing; the witness "
		 "validated a cookie ACK of the flow (cookie %u), but this socket's own ISN is %u: "
		 "no cookie made it", ob->cookie_isn, ob->socket_isn);
}

/* The witness's copy that made the socket (the last the kernel kept, else the last), NULL when
 * it has none. */
static const struct copy_view *made_the_socket(const struct observation *ob)
{
	int c = copy_that_created(ob->copy, ob->n);

	return ob->n ? &ob->copy[c >= 0 ? c : ob->n - 1] : NULL;
}

/* The in-kernel readers of the socket's copy against its userspace read, split where the
 * witness's copy that made the socket says (readers.h). */
static int judge_socket_readers(const struct observation *ob, struct compare_result *res)
{
	const struct copy_view *v = made_the_socket(ob);
	struct readers_input in = { .reads = ob->reads, .native = ob->native,
				    .native_len = ob->native_len, .mode = ob->mode,
				    .net_len = v ? v->net_len : 0, .tcp_len = v ? v->tcp_len : 0 };

	return judge_readers(&in, res);
}

/* A socket's saved bytes against the witness's copies, then what holds whatever they say. */
static int judge_socket(const struct observation *ob, struct compare_result *res)
{
	bool made = cookie_made(ob);
	struct compare_input in = { .mode = ob->mode, .native = ob->native,
				    .native_len = ob->native ? ob->native_len : 0,
				    .syncookie_proven = made, .env = ob->env };
	struct copies_input ci = { .in = &in, .copy = ob->copy, .n = ob->n, .cut = ob->cut,
				   .cut_saved = ob->cut_saved, .copies = ob->copies, .drops = ob->drops,
				   .active = ob->active, .have_tsecr = ob->have_tsecr,
				   .tsecr = ob->tsecr, .mem_followed = ob->mem_followed,
				   .cookie_made = made, .request_seen = ob->request_seen };
	int bad = ob->cookie_child && !ob->active && ob->n == 0 ? judge_cookie_child(ob, res) :
		  judge_copies(&ci, res);

	name_foreign_cookie(ob, res);

	if (res->verdict == V_BPF_MISSING && ob->evicted) {
		/* lost by the witness, not a kernel difference: the run becomes partial */
		res->reason = R_EVICTED;
		snprintf(res->detail, sizeof(res->detail), "no capture: the witness's maps "
			 "overflowed (%u entries) and evicted it", ob->map_entries);
		bad = 0;
	}
	if (ob->declares == DECLARES_DROP) {
		snprintf(res->detail, sizeof(res->detail), "the kernel accepted a SYN it must drop (%s)",
			 ob->knobs ? ob->knobs : "no knobs named");
		bad = unexplained(res, V_DIFFER);
	} else if (!ob->active && ob->n) {
		/* whoever made it (a replay declares nothing): its bytes may forbid a connection */
		const struct copy_view *v = made_the_socket(ob);
		const char *rule = listener_drop_rule(v->data, v->len, v->mac_len, ob->tree);

		if (rule) {
			snprintf(res->detail, sizeof(res->detail), "the kernel made a connection of a "
				 "SYN its listener must drop (%s: docs/verdicts.md's drop rules)", rule);
			bad = unexplained(res, V_DIFFER);
		}
	}
	if (ob->small_buffer && ob->small_buffer[0] && strcmp(ob->small_buffer, "ok")) {
		/* the API broke its contract: unexplained, whatever the bytes say */
		if (!bad) {
			snprintf(res->detail, sizeof(res->detail),
				 "TCP_SAVED_SYN read contract: %s", ob->small_buffer);
			unexplained(res, V_DIFFER);
		}
		bad = 1;
	}
	if (!bad)
		bad = judge_socket_readers(ob, res);
	if (ob->active && ob->client_errno)
		bad = judge_failed_connection(ob, res, bad);
	return bad;
}

static bool cookie_reason(enum reason r)
{
	return r == R_SYNCOOKIE || r == R_COOKIE_REPEAT || r == R_COOKIE_NO_CHILD;
}

/*
 * Syncookies where the plan says, and only there. A cookie explains a missing copy only for a
 * connection made while the plan forced them: anywhere else (tcp_syncookies=1, a listener
 * backlog the run never fills) the kernel lost a SYN it had to keep. And a passive socket
 * made while cookies were forced must come from one, unless its SYN reopened a 4-tuple judged
 * before (answered from TIME_WAIT: tcp_conn_request() takes no cookie with an ISN given).
 */
static int judge_cookie_due(const struct observation *ob, struct compare_result *res, int bad)
{
	if (bad || ob->active)
		return bad;
	if (cookie_reason(res->reason) && !ob->cookie_due) {
		snprintf(res->detail, sizeof(res->detail), "explained as %s by the witness's cookie "
			 "proof, but the plan forced no syncookies for this connection (%s, %s): a "
			 "SYN the kernel had to keep", reason_names[res->reason],
			 ob->gen ? ob->gen : "no label", ob->knobs ? ob->knobs : "no knobs named");
		return unexplained(res, V_COOKIE_NOT_DUE);
	}
	if (ob->socket && ob->cookie_due && !ob->flow_reused && !cookie_reason(res->reason) &&
	    (res->verdict == V_IDENTICAL || res->verdict == V_EXPLAINED)) {
		snprintf(res->detail, sizeof(res->detail), "the plan forced syncookies for this "
			 "connection (tcp_syncookies=2) and its 4-tuple was new, yet no cookie made it: "
			 "the kernel %s", ob->native ? "made a request and saved its SYN" :
			 "made its socket without a cookie the witness could validate");
		return unexplained(res, V_COOKIE_MISSING);
	}
	return bad;
}

/*
 * A copy the witness cut at CAPTURE_MAX proves nothing past its end: a kernel whose copy
 * stops at the same byte would compare equal. Unexplained, whatever the bytes say, and named
 * for what it is (the witness's limit, not the kernel's fault).
 */
static int judge_truncated(const struct observation *ob, struct compare_result *res, int bad)
{
	for (int i = 0; i < ob->n; i++) {
		if (!ob->copy[i].truncated)
			continue;
		snprintf(res->detail, sizeof(res->detail), "the witness's copy %d of %d was cut at "
			 "%zu bytes (its headers are longer than the capture holds): nothing past that "
			 "can be compared", i + 1, ob->n, ob->copy[i].len);
		return unexplained(res, V_TRUNCATED);
	}
	return bad;
}

int judge(const struct observation *ob, struct compare_result *res)
{
	int bad;

	*res = (struct compare_result){ .diff_off = -1 };
	bad = ob->socket ? judge_socket(ob, res) : judge_no_socket(ob, res);
	bad = judge_truncated(ob, res, bad);
	return judge_cookie_due(ob, res, bad);
}
