// SPDX-License-Identifier: GPL-2.0
/* The names verdicts and reasons have in the records (verdict.h). */
#include "verdict.h"

const char *const verdict_names[V_MAX] = { "identical", "explained", "differ", "native-missing",
					   "bpf-missing", "unbound", "connection-failed",
					   "cookie-not-due", "cookie-missing", "capture-truncated",
					   "reader-differs" };
const char *const reason_names[R_MAX] = { "", "ipv4-option-rewrite", "syncookie",
					   "vlan-offload", "rejected-by-kernel", "syn-retransmit",
					   "witness-map-eviction", "dropped-by-kernel", "abandoned",
					   "syncookie-repeat", "syncookie-no-child" };
