// SPDX-License-Identifier: GPL-2.0
/* The judge's run-level rules (run_verdicts.h). */
#define _GNU_SOURCE
#include "run_verdicts.h"

#include <stdio.h>
#include <string.h>

#include <linux/types.h>

#include "capture.h"

int judge_client_failed(const struct client_failure *f, struct compare_result *res)
{
	*res = (struct compare_result){ .verdict = V_CONN_FAILED, .diff_off = -1 };
	snprintf(res->detail, sizeof(res->detail), "%s #%llu (%s) failed in the client before its "
		 "SYN-ACK was saved (%s): connection-failed, nothing on the wire to show why",
		 f->gen, (unsigned long long)f->index, f->knobs, strerrorname_np(f->err));
	return 1;
}

/* "func+0x1f" -> the length of "func" */
static size_t function_len(const char *sym)
{
	return strcspn(sym, "+");
}

/* @s after the @n bytes @dst (@cap bytes) holds, cut to fit as snprintf() would. */
static void append(char *dst, size_t cap, size_t n, const char *s)
{
	size_t len = strlen(s);

	if (n >= cap)
		return;
	if (len > cap - 1 - n)
		len = cap - 1 - n;
	memcpy(dst + n, s, len);
	dst[n + len] = 0;
}

int judge_memory(const struct mem_finding *f, struct compare_result *res)
{
	char what[400];
	size_t n;

	*res = (struct compare_result){ .verdict = V_DIFFER, .diff_off = -1 };
	if (f->kind == MEM_OUTSTANDING) {
		snprintf(what, sizeof(what), "was never freed (outstanding at the end of the run)");
	} else {
		if (function_len(f->free_site) != function_len(f->free2_site) ||
		    strncmp(f->free_site, f->free2_site, function_len(f->free_site))) {
			snprintf(res->detail, sizeof(res->detail), "freed at %s, again at %s: another "
				 "function, %s", f->free_site, f->free2_site, f->other_owner ?
				 "on an object of another slab cache (the page was given back and "
				 "taken): a reuse, not a double free" : "not judged");
			return 0;
		}
		snprintf(what, sizeof(what), "was freed twice in one function (%s, then %s)",
			 f->free_site, f->free2_site);
	}
	n = (size_t)snprintf(res->detail, sizeof(res->detail), "a saved copy of %llu bytes "
			     "(allocated for isn %u) ", (unsigned long long)f->bytes, f->isn);
	append(res->detail, sizeof(res->detail), n, what);
	return 1;
}

bool mem_other_owner(uint64_t owner2)
{
	return owner2 == MEM_OWNER_OTHER;
}

static bool exact_counter(const struct cookie_counts *c)
{
	return !strcmp(c->counter, "TCPSynNotSavedCookie");
}

bool judge_cookie_counter(const struct cookie_counts *c)
{
	if (c->growth < 0)
		return false;
	if (exact_counter(c))
		return (uint64_t)c->growth >= c->proven && (uint64_t)c->growth <= c->proven + c->lost;
	return (uint64_t)c->growth >= c->proven;
}

const char *cookie_counter_rule(const struct cookie_counts *c)
{
	if (!exact_counter(c))
		return "proven <= growth";
	return c->lost ? "proven <= growth <= proven + records_lost" : "proven == growth";
}

enum leftover judge_leftover(const struct leftover_facts *f)
{
	/* a copy the faulty wire delivered after its connection (same flow and ISN) was judged:
	 * the witness saw it, the connection is counted once */
	if (f->wire_faults && f->key_judged)
		return LEFT_LATE_COPY;
	if (f->wire_faults && f->answers_judged)
		return LEFT_LATE_ANSWER;
	/* its connection was judged already, bpf-missing: its binding was evicted */
	if (f->flow_missing)
		return LEFT_LATE_CAPTURE;
	return LEFT_JUDGE;
}

bool judge_as_planned(const struct gen_row *row, const struct compare_result *res)
{
	if (row->planned == R_NONE)
		return row->per_run && res->verdict == V_IDENTICAL;
	return res->verdict == V_EXPLAINED && res->reason == row->planned;
}

uint64_t passive_paid(uint64_t conns, uint64_t duplicate_children, uint64_t cookie_no_child,
		      bool judged)
{
	return conns - duplicate_children + (judged ? cookie_no_child : 0);
}

bool judge_run_partial(const struct run_end *e)
{
	return e->passive_paid < e->passive_planned ||
	       e->active + e->active_unrecorded < e->active_planned || e->evictions > 0 || e->lost ||
	       e->write_failed || e->keys_lost || e->points_lost;
}

int judge_run_status(const struct run_end *e, bool partial)
{
	if (e->write_failed)
		return 2;
	return e->unexplained || partial || e->expectations_failed ? 1 : 0;
}
