// SPDX-License-Identifier: GPL-2.0
/* Which copy the kernel saved, and what it allocated for it (which_copy.h). */
#include "which_copy.h"

#include <linux/types.h>
#include <stdio.h>
#include <string.h>

#include "capture.h"
#include "decode.h"
#include "tcp_opts.h"

int copy_that_created(const struct copy_view *copy, int n)
{
	for (int i = n - 1; i >= 0; i--)
		if (!copy[i].dropped)
			return i;
	return -1;
}

bool copy_tsval(const struct copy_view *c, uint32_t *tsval)
{
	struct syn_layout l;

	if (syn_layout(c->data, c->len, c->mac_len, &l) || l.tcp_off + l.tcp_len > c->len)
		return false;
	return tcp_last_tsval(c->data + l.tcp_off + 20, l.tcp_len - 20, tsval);
}

/* The kernel's bytes against copy @i. */
static int against(const struct copies_input *ci, int i, struct compare_result *r)
{
	struct compare_input in = *ci->in;

	in.bpf = ci->copy[i].data;
	in.bpf_len = ci->copy[i].len;
	in.bpf_mac_len = ci->copy[i].mac_len;
	return classify(&in, r);
}

/* "2 and 3 dropped (NOT_SPECIFIED)": the copies after @c, for details. */
static void dropped_after(const struct copies_input *ci, int c, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (int i = c + 1; i < ci->n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%d", used ? ", " : "", i + 1);
	if (used && used < len)
		snprintf(buf + used, len - used, " dropped (%s)",
			 ci->copy[c + 1].drop_reason ? ci->copy[c + 1].drop_reason : "reason unknown");
}

/* The verdict is "differ"; the caller has written the detail. */
static int differ(struct compare_result *res)
{
	res->verdict = V_DIFFER;
	res->reason = R_NONE;
	return 1;
}

/* The bytes: the kernel's copy against the one that created the connection. */
static int judge_which(const struct copies_input *ci, int c, struct compare_result *res)
{
	char after[96];
	int bad = against(ci, c, res);

	if (!bad) {
		/* the created copy is not the last: the kernel kept its first, as it must */
		if (c < ci->n - 1 && ci->in->native &&
		    (res->verdict == V_IDENTICAL || res->verdict == V_EXPLAINED)) {
			const char *was = res->verdict == V_EXPLAINED ? reason_names[res->reason] : "";

			dropped_after(ci, c, after, sizeof(after));
			res->verdict = V_EXPLAINED;
			res->reason = R_RETRANSMIT;
			snprintf(res->detail, sizeof(res->detail), "the witness saw %d copies; the "
				 "kernel saved copy %d, the one that %s (%s)%s%s", ci->n, c + 1,
				 ci->active ? "established the socket" : "created the request",
				 after, was[0] ? ", equal but for " : "", was);
		}
		return 0;
	}
	for (int j = 0; j < ci->n; j++) {
		struct compare_result rj;

		if (j == c || against(ci, j, &rj))
			continue;
		snprintf(res->detail, sizeof(res->detail), "the kernel saved copy %d of %d, but copy "
			 "%d made the connection (the last one the kernel did not drop)", j + 1,
			 ci->n, c + 1);
		return differ(res);
	}
	if (ci->cut)
		strncat(res->detail, "; more copies came than the witness keeps",
			sizeof(res->detail) - strlen(res->detail) - 1);
	return 1;
}

/*
 * The TSecr cross-check (timestamps): the answer echoes copy @c's TSval -- the server's last
 * SYN-ACK to a SYN (passive), the client's first ACK to a SYN-ACK (active).
 */
static int judge_tsecr(const struct copies_input *ci, int c, struct compare_result *res)
{
	const char *answer = ci->active ? "the client's ACK" : "the SYN-ACK";
	uint32_t tv;
	int echoed = -1;

	if (!ci->have_tsecr || !copy_tsval(&ci->copy[c], &tv) || tv == ci->tsecr)
		return 0;
	for (int j = 0; j < ci->n && echoed < 0; j++)
		if (copy_tsval(&ci->copy[j], &tv) && tv == ci->tsecr)
			echoed = j;
	if (echoed >= 0)
		snprintf(res->detail, sizeof(res->detail), "which-copy proofs disagree: copy %d of %d "
			 "is the last the kernel did not drop, but %s's TSecr %u echoes copy %d",
			 c + 1, ci->n, answer, ci->tsecr, echoed + 1);
	else
		snprintf(res->detail, sizeof(res->detail), "which-copy proofs disagree: %s's TSecr "
			 "%u echoes none of the %d copies the witness saw", answer, ci->tsecr, ci->n);
	return differ(res);
}

/* Copy @j, before @c and not dropped, made a request of its own that ended (passive: a SYN whose
 * request died before a later copy made another), which saved its own copy. Never on the
 * active side: one socket, so a SYN-ACK copy the kernel did not drop is the one that
 * established it, and an earlier one not dropped is a copy consumed without a trace. */
static bool earlier_request(const struct copies_input *ci, int j, int c)
{
	return !ci->active && j < c && !ci->copy[j].dropped;
}

/*
 * No other saved copy: a copy the kernel dropped, or one after @c (each reached the request or
 * the socket @c made), must not have made an allocation, even one freed since (a kernel that
 * replaced its saved copy with an identical later one shows nothing in the bytes), nor an
 * earlier one but for an earlier request's (earlier_request()).
 */
static int judge_other_saves(const struct copies_input *ci, int c, struct compare_result *res)
{
	for (int j = 0; j < ci->n; j++) {
		const struct copy_view *o = &ci->copy[j];

		if (j == c || !o->saved || earlier_request(ci, j, c))
			continue;
		snprintf(res->detail, sizeof(res->detail), "the kernel also allocated a saved copy "
			 "(%u bytes) while processing copy %d of %d, %s", o->saved_size, j + 1, ci->n,
			 o->dropped ? "a copy it dropped" : j > c ? "which came after the one that "
			 "made the connection" : "before the one that established the socket, and "
			 "did not drop it");
		return differ(res);
	}
	return 0;
}

/* The bytes a saved copy of @v takes (struct saved_syn and the headers of @mode: a MAC header
 * the kernel keeps is Ethernet's 14, an offloaded tag in the skb's metadata). */
static size_t copy_save_size(const struct copy_view *v, int mode)
{
	return SAVED_SYN_HDR + v->net_len + v->tcp_len + (mode == 2 && v->mac_len ? 14 : 0);
}

/* Could copy @v have made the request whose SYN-ACK the witness saw? Kept by the kernel (not
 * dropped), and its allocation the size a copy of it takes. (Which copy the request's SYN-ACK
 * echoes is judge_tsecr()'s: the last copy kept is the one that made it.) */
static bool request_copy(const struct copies_input *ci, const struct copy_view *v)
{
	return !v->dropped && v->saved_size == copy_save_size(v, ci->in->mode);
}

/*
 * One allocation among the copies of a proven syncookie child's SYN is a request's, not the
 * connection's, when the witness saw that request answer (a copy that arrived after the cookie
 * window made it; it lives and dies apart, its copy followed to its own kfree) and the copy that
 * allocated could have made it (request_copy()): @res's detail says so. Returns true if it is,
 * false if the copies' allocations are to be judged as the connection's.
 */
static bool request_made_the_save(const struct copies_input *ci, struct compare_result *res)
{
	int saves = 0, at = -1;
	size_t len;

	if (!ci->cookie_made || !ci->request_seen)
		return false;
	for (int j = 0; j < ci->n; j++) {
		if (!ci->copy[j].saved)
			continue;
		saves += 1 + ci->copy[j].saved_again;
		at = j;
	}
	if (saves != 1 || !request_copy(ci, &ci->copy[at]))
		return false;
	len = strlen(res->detail);
	snprintf(res->detail + len, sizeof(res->detail) - len, "; copy %d of %d made a request of its "
		 "own (its SYN-ACK left a request socket), whose saved copy (%u bytes) is not this "
		 "connection's", at + 1, ci->n, ci->copy[at].saved_size);
	return true;
}

/*
 * TCP_SAVED_SYN returned nothing (a syncookie child, or a copy missing): then the kernel may
 * have allocated nothing for the copy that made the connection, nor for any later copy or one
 * it dropped (a copy before @c that was not dropped made an earlier request of its own), unless
 * the one allocation was a request's the witness saw (request_made_the_save()).
 */
static int judge_nothing_saved(const struct copies_input *ci, int c, struct compare_result *res)
{
	if (request_made_the_save(ci, res))
		return 0;
	for (int j = 0; j < ci->n; j++) {
		const struct copy_view *o = &ci->copy[j];

		if (!o->saved || earlier_request(ci, j, c))
			continue;
		snprintf(res->detail, sizeof(res->detail), "the kernel allocated a saved copy (%u bytes) "
			 "while processing copy %d of %d, yet TCP_SAVED_SYN returned nothing",
			 o->saved_size, j + 1, ci->n);
		return differ(res);
	}
	return 0;
}

/* A copy the witness did not keep had an allocation: which one it was, and whether the kernel
 * dropped it or made an earlier request with it, is not known, so nothing about the
 * allocations is proven. */
static int judge_cut_saved(const struct copies_input *ci, struct compare_result *res)
{
	if (!ci->cut_saved)
		return 0;
	snprintf(res->detail, sizeof(res->detail), "the kernel allocated a saved copy while "
		 "processing one of the copies the witness did not keep (%u%s came, %d kept): "
		 "which copy, and whether the kernel dropped it, is not known", ci->copies,
		 ci->copies >= 255 ? " or more" : "", ci->n);
	return differ(res);
}

/*
 * The allocation: one, made for copy @c, of SAVED_SYN_HDR + the bytes read back. Copy @c and no
 * other, even one of the same bytes (a duplicate the kernel dropped): the witness marks the very
 * copy whose sk_buff TCP saved from (bpf/copy_skbs.bpf.h), so a save on another is the kernel's.
 */
static int judge_memory(const struct copies_input *ci, int c, struct compare_result *res)
{
	const struct copy_view *v = NULL;
	size_t want = SAVED_SYN_HDR + ci->in->native_len;
	int allocs = 0;

	if (!ci->mem_followed)
		return 0;
	if (judge_cut_saved(ci, res))
		return 1;
	if (!ci->in->native)
		return judge_nothing_saved(ci, c, res);
	if (ci->copy[c].saved) {
		v = &ci->copy[c];
		allocs = 1 + v->saved_again;
	}
	if (!v) {
		for (int j = 0; j < ci->n; j++) {
			if (!ci->copy[j].saved)
				continue;
			snprintf(res->detail, sizeof(res->detail), "the kernel allocated its saved copy "
				 "(%u bytes) while processing copy %d of %d, but copy %d made the "
				 "connection", ci->copy[j].saved_size, j + 1, ci->n, c + 1);
			return differ(res);
		}
		snprintf(res->detail, sizeof(res->detail), "the memory follower saw no saved-SYN "
			 "allocation for this connection, yet TCP_SAVED_SYN returned bytes");
		return differ(res);
	}
	if (allocs > 1) {
		snprintf(res->detail, sizeof(res->detail), "the kernel made two saved-SYN allocations "
			 "for one copy");
		return differ(res);
	}
	if (v->saved_size != want) {
		snprintf(res->detail, sizeof(res->detail), "the kernel allocated %u bytes for a saved "
			 "copy of %zu header bytes (struct saved_syn %d + %zu = %zu)", v->saved_size,
			 ci->in->native_len, SAVED_SYN_HDR, ci->in->native_len, want);
		return differ(res);
	}
	return judge_other_saves(ci, c, res);
}

/*
 * Copies the witness did not keep (more came than it keeps: cut) may have come after @c, the
 * last kept copy the kernel did not drop (all but the last kept copy came before those it did
 * not keep), and one of them not dropped would have made the connection instead. @c is proven
 * only if it is the last copy, or if the flow's drops are exactly the kept copies dropped and
 * every copy not kept (a count the witness could not keep exactly, saturated or off by any
 * number, proves nothing).
 */
static int judge_cut(const struct copies_input *ci, int c, struct compare_result *res)
{
	unsigned int kept_dropped = 0, unkept;

	if (!ci->cut || c == ci->n - 1)
		return 0;
	for (int i = 0; i < ci->n; i++)
		kept_dropped += ci->copy[i].dropped;
	unkept = ci->copies > (unsigned int)ci->n ? ci->copies - (unsigned int)ci->n : 0;
	if (ci->copies < 255 && unkept && ci->drops == kept_dropped + unkept)
		return 0;
	snprintf(res->detail, sizeof(res->detail), "copy %d of the %d the witness kept is the last "
		 "it kept that the kernel did not drop, but %u%s cop%s came and the kernel dropped %u "
		 "(%u of those kept): a copy it did not keep may have made the connection", c + 1,
		 ci->n, ci->copies, ci->copies >= 255 ? " or more" : "", ci->copies == 1 ? "y" : "ies",
		 ci->drops, kept_dropped);
	return differ(res);
}

int judge_one_request(const struct copies_input *ci, int c, struct compare_result *res)
{
	return judge_cut(ci, c, res) || judge_cut_saved(ci, res) || judge_other_saves(ci, c, res);
}

int judge_copies(const struct copies_input *ci, struct compare_result *res)
{
	int c, bad;

	if (ci->n <= 0) {
		struct compare_input in = *ci->in;

		in.bpf = NULL;
		in.bpf_len = in.bpf_mac_len = 0;
		return classify(&in, res);
	}
	c = copy_that_created(ci->copy, ci->n);
	if (c < 0) {
		res->diff_off = -1;
		snprintf(res->detail, sizeof(res->detail), "the kernel dropped all %d copies the "
			 "witness saw (%s), yet a connection was made", ci->n,
			 ci->copy[0].drop_reason ? ci->copy[0].drop_reason : "reason unknown");
		return differ(res);
	}
	bad = judge_cut(ci, c, res);
	if (!bad)
		bad = judge_which(ci, c, res);
	if (!bad)
		bad = judge_tsecr(ci, c, res);
	if (!bad)
		bad = judge_memory(ci, c, res);
	return bad;
}
