// SPDX-License-Identifier: GPL-2.0
/* Verdicts on abandoned handshakes (abandoned.h). */
#include "abandoned.h"

#include <linux/types.h>
#include <stdio.h>

#include "capture.h"
#include "decode.h"

static const char *const ended[] = { "reset", "expired", "listener closed" };

static int fail(struct compare_result *res)
{
	res->verdict = V_DIFFER;
	res->reason = R_NONE;
	return 1;
}

/* Copy @c is the request's, and no other copy had an allocation (judge_one_request()). */
static int other_copies(const struct abandoned_input *in, int c, struct compare_result *res)
{
	struct compare_input none = { .mode = in->mode };
	struct copies_input ci = { .in = &none, .copy = in->copy, .n = in->n, .cut = in->cut,
				   .cut_saved = in->cut_saved, .copies = in->copies,
				   .drops = in->drops, .mem_followed = true };

	return judge_one_request(&ci, c, res);
}

int judge_abandoned(const struct abandoned_input *in, struct compare_result *res)
{
	int c = copy_that_created(in->copy, in->n);
	const struct copy_view *v;
	struct syn_layout l;
	size_t want;

	*res = (struct compare_result){ .verdict = V_EXPLAINED, .reason = R_ABANDONED,
					.diff_off = -1 };
	if (c < 0) {
		snprintf(res->detail, sizeof(res->detail), "the kernel dropped every copy of this "
			 "SYN (%d), so no request was made", in->n);
		return fail(res);
	}
	v = &in->copy[c];
	if (syn_layout(v->data, v->len, v->mac_len, &l)) {
		snprintf(res->detail, sizeof(res->detail), "the witness's copy does not parse");
		return fail(res);
	}
	/* what TCP_SAVE_SYN keeps: network + TCP header, and in mode 2 the MAC header too */
	want = SAVED_SYN_HDR + l.net_len + l.tcp_len + (in->mode == 2 ? v->mac_len : 0);
	if (!v->saved || v->saved_again || v->saved_size != want) {
		snprintf(res->detail, sizeof(res->detail), "the request's saved copy: %s%u bytes "
			 "allocated, %zu expected (struct saved_syn %d + the headers)",
			 v->saved_again ? "two allocations, " : "", v->saved ? v->saved_size : 0, want,
			 SAVED_SYN_HDR);
		return fail(res);
	}
	if (other_copies(in, c, res))
		return fail(res);
	if (in->kind == ABANDON_EXPIRE && (in->rst_seen || in->synacks != 1 + in->synack_retries)) {
		snprintf(res->detail, sizeof(res->detail), "planned to expire, but the witness saw %s"
			 "%u SYN-ACKs (an expired request sends 1 + tcp_synack_retries = %u)",
			 in->rst_seen ? "an RST and " : "", in->synacks, 1 + in->synack_retries);
		return fail(res);
	}
	if (in->kind == ABANDON_CLOSE && (in->rst_seen || in->synacks != 1)) {
		snprintf(res->detail, sizeof(res->detail), "planned to lose its listener before its "
			 "first timer, but the witness saw %s%u SYN-ACKs (such a request sends 1)",
			 in->rst_seen ? "an RST and " : "", in->synacks);
		return fail(res);
	}
	if (in->kind == ABANDON_RST && !in->rst_seen) {
		snprintf(res->detail, sizeof(res->detail), "planned to be reset, but the witness saw no "
			 "RST for it");
		return fail(res);
	}
	if (in->leaked_at) {
		snprintf(res->detail, sizeof(res->detail), "the request is gone (%s) but its saved copy "
			 "(%u bytes, allocated at %s) was never freed", ended[in->kind],
			 v->saved_size, in->leaked_at);
		return fail(res);
	}
	if (in->kind == ABANDON_EXPIRE)
		snprintf(res->detail, sizeof(res->detail), "the request expired after %u SYN-ACKs; "
			 "copy %d of %d saved (%u bytes) and freed", in->synacks, c + 1, in->n,
			 v->saved_size);
	else
		snprintf(res->detail, sizeof(res->detail), "%s; copy %d of %d saved (%u bytes) and "
			 "freed", in->kind == ABANDON_RST ? "reset by its peer" :
			 "its listener closed while it was pending", c + 1, in->n, v->saved_size);
	return 0;
}
