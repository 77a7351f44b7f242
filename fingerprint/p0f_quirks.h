/* SPDX-License-Identifier: GPL-2.0 */
/* p0f's TCP quirks, in the order its raw_sig prints them (shared by p0f.c and p0f_db.c). */
#ifndef SYNTWIN_P0F_QUIRKS_H
#define SYNTWIN_P0F_QUIRKS_H

enum {
	Q_DF = 1u << 0, Q_NZ_ID = 1u << 1, Q_ZERO_ID = 1u << 2, Q_ECN = 1u << 3,
	Q_NZ_MBZ = 1u << 4, Q_FLOW = 1u << 5, Q_ZERO_SEQ = 1u << 6, Q_NZ_ACK = 1u << 7,
	Q_ZERO_ACK = 1u << 8, Q_NZ_URG = 1u << 9, Q_URG = 1u << 10, Q_PUSH = 1u << 11,
	Q_ZERO_TS1 = 1u << 12, Q_NZ_TS2 = 1u << 13, Q_OPT_EOL_NZ = 1u << 14, Q_EXWS = 1u << 15,
	Q_OPT_BAD = 1u << 16,
	Q_COUNT = 17
};

/* Q_* bit i is spelled p0f_quirk_names[i] in p0f.fp and in raw_sig. */
static const char *const p0f_quirk_names[Q_COUNT] = {
	"df", "id+", "id-", "ecn", "0+", "flow", "seq-", "ack+", "ack-", "uptr+", "urgf+",
	"pushf+", "ts1-", "ts2+", "opt+", "exws", "bad"
};

enum { WIN_NORMAL, WIN_ANY, WIN_MOD, WIN_MSS, WIN_MTU };

/* TCP flags p0f looks at */
enum { P0F_FIN = 0x01, P0F_SYN = 0x02, P0F_RST = 0x04, P0F_PUSH = 0x08, P0F_ACK = 0x10,
       P0F_URG = 0x20, P0F_ECE = 0x40, P0F_CWR = 0x80 };

#define P0F_MAX_DIST 35
#define P0F_SPECIAL_MSS 1331	/* p0f-sendsyn's probes */
#define P0F_SPECIAL_WIN 1337

#endif
