/* SPDX-License-Identifier: GPL-2.0 */
/* Compare the kernel's saved SYN with the BPF capture and classify any difference. */
#ifndef SYNTWIN_CLASSIFY_H
#define SYNTWIN_CLASSIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum verdict { V_IDENTICAL, V_EXPLAINED, V_DIFFER, V_NATIVE_MISSING, V_BPF_MISSING, V_MAX };
/* R_EVICTED is not an explanation: it names why a bpf-missing record is lost (the witness's LRU
 * maps overflowed), which makes the run partial rather than the kernel wrong. */
enum reason { R_NONE, R_IPV4_OPTION_REWRITE, R_SYNCOOKIE, R_VLAN_OFFLOAD, R_REJECTED, R_RETRANSMIT,
	      R_EVICTED, R_MAX };

extern const char *const verdict_names[V_MAX];
extern const char *const reason_names[R_MAX];

struct compare_input {
	int mode;			/* TCP_SAVE_SYN value of the listener: 1 or 2 */
	const uint8_t *native;		/* TCP_SAVED_SYN bytes, or NULL when none was returned */
	size_t native_len;
	const uint8_t *bpf;		/* capture: MAC..TCP bytes, or NULL when there is none */
	size_t bpf_len;
	size_t bpf_mac_len;
	bool syncookie_proven;		/* the kernel counted a syncookie validation for this one */
};

struct compare_result {
	enum verdict verdict;
	enum reason reason;
	long diff_off;			/* first differing byte in the compared view, or -1 */
	char detail[256];		/* field and both values, or why */
};

/* Always fills @out; returns 1 if the verdict is unexplained (a failure), else 0. */
int classify(const struct compare_input *in, struct compare_result *out);

/*
 * What 6.1's ip_options_compile() makes of IPv4 header @ip (@hl bytes) on local receive:
 * Record Route gets the local address at its pointer and the pointer advances by 4; Timestamp
 * gets a time (and for flag 1 the address) and its pointer advances, or its overflow count goes
 * up when full. @want receives the expected bytes, @any marks bytes whose value is free (times).
 * Returns 0, or -1 if the options are ones the kernel rejects (that SYN is never saved).
 */
int ipv4_expected_rewrite(const uint8_t *ip, size_t hl, uint8_t *want, uint8_t *any);

#endif
