/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The socket-knob matrix of the socket generator (sock_gen.h): which kernel-built SYN a connection gets. Every value
 * comes from the run's seed, so a connection's SYN shape is reproducible from (seed, index).
 */
#ifndef SYNTWIN_KNOBS_H
#define SYNTWIN_KNOBS_H

#include <stddef.h>
#include <stdint.h>

enum ip_opt_kind { IPOPT_NONE, IPOPT_NOP, IPOPT_RR, IPOPT_TS, IPOPT_KINDS };
enum v6_ext_kind { V6EXT_NONE, V6EXT_HOP, V6EXT_DST, V6EXT_BOTH, V6EXT_KINDS };
enum vlan_kind { VLAN_NONE, VLAN_QINQ, VLAN_1Q, VLAN_KINDS };

struct knobs {
	int family;		/* AF_INET or AF_INET6 */
	int mode;		/* the listener's TCP_SAVE_SYN (picks the port) */
	int mss;		/* TCP_MAXSEG before connect; 0: default */
	int rcvbuf;		/* SO_RCVBUF (window and window scale); 0: default */
	int tos;		/* IP_TOS / IPV6_TCLASS; -1: default */
	int ttl;		/* IP_TTL / IPV6_UNICAST_HOPS; -1: default */
	int ipopt;		/* enum ip_opt_kind (IPv4) */
	int v6ext;		/* enum v6_ext_kind (IPv6) */
	int tfo;		/* SYN carries data (MSG_FASTOPEN) */
	int md5;		/* TCP_MD5SIG (from the MD5 source address) */
	int src_port;		/* bind to this source port first; 0: ephemeral */
	int vlan;		/* enum vlan_kind: over which VLAN of the veth pair */
	/* per-netns sysctls of the client netns, for this connection's batch; -1: unchanged */
	int sack, timestamps, wscale, ecn;
};

/* Probabilities in permille; the default mix covers every knob value many times in 10,000. */
struct knob_mix {
	unsigned int mss, rcvbuf, tos, ttl, ipopt, v6ext, tfo, md5, src_port, sysctl, vlan;
};
extern const struct knob_mix knob_mix_default, knob_mix_plain;

/* The knobs of connection @i. Sysctls are drawn by pick_sysctls(), once per batch. */
void knobs_pick(uint64_t *rng, uint64_t i, const struct knob_mix *mix, struct knobs *k);
void knobs_pick_sysctls(uint64_t *rng, const struct knob_mix *mix, struct knobs *k);

/* "mss=1200 rcvbuf=4096 ..." (only what is not default). Returns the length. */
int knobs_describe(const struct knobs *k, char *buf, size_t len);

/* The IP_OPTIONS / IPV6_{HOP,DST}OPTS bytes for a kind; returns the length (0: none). */
size_t knobs_ipopt_bytes(int kind, uint8_t *buf);
size_t knobs_v6ext_bytes(uint8_t *buf);

#endif
