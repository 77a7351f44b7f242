/* SPDX-License-Identifier: GPL-2.0 */
/* Compare the kernel's saved SYN with the BPF capture and classify any difference. */
#ifndef SYNTWIN_CLASSIFY_H
#define SYNTWIN_CLASSIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "verdict.h"

/* What the IPv4 option model needs to know of the host that received the SYN. */
struct ipv4_env {
	uint64_t lo_ms, hi_ms;	/* the run's window on the receiver's clock, ms since the epoch */
	const uint32_t *addrs;	/* its own and its subnets' broadcast addresses, network order */
	size_t n_addrs;
};

struct compare_input {
	int mode;			/* TCP_SAVE_SYN value of the listener: 1 or 2 */
	const uint8_t *native;		/* TCP_SAVED_SYN bytes, or NULL when none was returned */
	size_t native_len;
	const uint8_t *bpf;		/* capture: MAC..TCP bytes, or NULL when there is none */
	size_t bpf_len;
	size_t bpf_mac_len;
	bool syncookie_proven;		/* the witness validated this flow's ACK as a syncookie */
	const struct ipv4_env *env;	/* for ipv4-option-rewrite; NULL: no stamp can be proven */
};

/* Always fills @out; returns 1 if the verdict is unexplained (a failure), else 0. */
int classify(const struct compare_input *in, struct compare_result *out);

/*
 * What 6.1's __ip_options_compile() makes of IPv4 header @ip (@hl bytes) on local receive:
 * bytes after an END option become END; Record Route gets the local address at its pointer and
 * the pointer advances by 4; Timestamp gets a time (with flag 1 the address first; with flag 3
 * only where the prespecified address is not ordinary unicast) and its pointer advances, or its
 * overflow count goes up when full; duplicate RR or TS, source routes (accept_source_route is
 * off), and malformed RR, TS, RA or CIPSO make the kernel drop the packet. @want receives the
 * expected bytes; *@stamp the offset in the header of the 4-byte time written, or -1.
 * Returns 0, or -1 if the kernel drops this header (that SYN is never saved).
 */
int ipv4_expected_rewrite(const uint8_t *ip, size_t hl, const struct ipv4_env *env,
			  uint8_t *want, long *stamp);
/*
 * __ip_options_compile() on receive, before ip_rcv_options() looks at source routing: as
 * ipv4_expected_rewrite(), but a well-formed LSRR or SSRR is compiled, its offset in the header
 * put in *@srr (0: none). Returns 0, or -1 if the options are malformed (the kernel drops the
 * packet whatever its source-routing setting).
 */
int ipv4_options_compile(const uint8_t *ip, size_t hl, const struct ipv4_env *env,
			 uint8_t *want, long *stamp, size_t *srr);
/* A time written by inet_current_timestamp() (host order) lies in @env's window, mod a day. */
bool ipv4_stamp_in_window(uint32_t ms_since_midnight, const struct ipv4_env *env);

#endif
