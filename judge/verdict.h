/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the judge decides (judge.h, run_verdicts.h): a verdict on one connection, the reason an
 * explained one is explained by, and the detail a record carries.
 */
#ifndef SYNTWIN_VERDICT_H
#define SYNTWIN_VERDICT_H

#include <stdbool.h>

/* V_UNBOUND: a SYN the witness captured that no socket took, with no proven drop (unbound.h). */
/* V_CONN_FAILED: a connection the client saw fail, with no evidence from the wire of why. */
/* V_COOKIE_NOT_DUE: a connection answered with a syncookie where the plan forced none. */
/* V_COOKIE_MISSING: a connection the plan put under forced syncookies that got none. */
/* V_TRUNCATED: the witness's copy was cut at CAPTURE_MAX: what lies past it is unproven. */
enum verdict { V_IDENTICAL, V_EXPLAINED, V_DIFFER, V_NATIVE_MISSING, V_BPF_MISSING, V_UNBOUND,
	       V_CONN_FAILED, V_COOKIE_NOT_DUE, V_COOKIE_MISSING, V_TRUNCATED, V_READER_DIFFERS,
	       V_MAX };
/* R_EVICTED is not an explanation: it names why a bpf-missing record is lost (the witness's LRU
 * maps overflowed), which makes the run partial rather than the kernel wrong. */
enum reason { R_NONE, R_IPV4_OPTION_REWRITE, R_SYNCOOKIE, R_VLAN_OFFLOAD, R_REJECTED, R_RETRANSMIT,
	      R_EVICTED, R_DROPPED, R_ABANDONED, R_COOKIE_REPEAT, R_COOKIE_NO_CHILD, R_MAX };

extern const char *const verdict_names[V_MAX];
extern const char *const reason_names[R_MAX];

struct compare_result {
	enum verdict verdict;
	enum reason reason;
	long diff_off;			/* first differing byte in the compared view, or -1 */
	char detail[256];		/* field and both values, or why */
	bool failure_proven;		/* a failed connection's failure matches the wire */
};

#endif
