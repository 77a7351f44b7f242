// SPDX-License-Identifier: GPL-2.0
/* A capture point's copy against the kernel's (points.h). */
#include "judge_point.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "decode.h"

const char *const point_verdict_names[PV_MAX] = { "identical", "explained", "differ", "missing",
						  "lost", "truncated", "not-compared" };

static int verdict(struct point_result *r, enum point_verdict v, const char *detail)
{
	r->verdict = v;
	snprintf(r->detail, sizeof(r->detail), "%s", detail);
	return v == PV_DIFFER || v == PV_MISSING || v == PV_TRUNCATED;
}

/* The point's copy, from where the mode's copy starts (mode 1: the network header), is the
 * kernel's byte for byte. */
static bool same_bytes(const struct point_input *in)
{
	size_t off = in->mode == 2 ? 0 : in->mac_len;

	return off <= in->len && in->len - off == in->native_len &&
	       !memcmp(in->copy + off, in->native, in->native_len);
}

/*
 * A copy taken before IP with two in-band tags (the wire's QinQ frame: libpcap puts the tag
 * the driver took into metadata back in front of the inner one) without its outer tag, into
 * @buf: the receive path holds the outer tag in metadata and takes the inner one out before
 * TCP saves, which classify() explains for one tag. Returns whether it was taken out.
 */
static bool outer_tag_out(const struct point_input *in, uint8_t *buf, struct compare_input *ci)
{
	if (in->mode != 2 || in->mac_len != 22 || in->len < 22 || in->len > CAPTURE_MAX ||
	    !eth_inband_tag(in->copy) || !eth_inband_tag(in->copy + 4))
		return false;
	memcpy(buf, in->copy, 12);
	memcpy(buf + 12, in->copy + 16, in->len - 16);
	ci->bpf = buf;
	ci->bpf_len = in->len - 4;
	ci->bpf_mac_len = 18;
	return true;
}

int judge_point(const struct point_input *in, struct point_result *r)
{
	struct compare_input ci = { .mode = in->mode, .native = in->native,
				    .native_len = in->native_len, .bpf = in->copy,
				    .bpf_len = in->len, .bpf_mac_len = in->mac_len, .env = in->env };
	struct compare_result cr;
	uint8_t untagged[CAPTURE_MAX];
	bool outer;

	memset(r, 0, sizeof(*r));
	r->diff_off = -1;
	if (!in->native || !in->native_len)
		return verdict(r, PV_NOT_COMPARED, "the kernel returned no copy");
	if (!in->copy_named)
		return verdict(r, PV_NOT_COMPARED, "the witness bound no copy to this socket: "
			       "nothing names the copy to look for");
	if (!in->copy && in->point_lost)
		return verdict(r, PV_LOST, "no copy at this point, whose store lost copies "
			       "during the run");
	if (!in->copy)
		return verdict(r, PV_MISSING, "no copy of this SYN at this point");
	if (in->cut)
		return verdict(r, PV_TRUNCATED, "the point's copy is cut short: what lies past "
			       "the cut is unproven");
	if (in->after_ip && same_bytes(in))
		return verdict(r, PV_IDENTICAL, "");
	outer = !in->after_ip && outer_tag_out(in, untagged, &ci);
	classify(&ci, &cr);
	r->diff_off = cr.diff_off;
	if (outer && cr.verdict == V_EXPLAINED && cr.reason == R_VLAN_OFFLOAD)
		snprintf(cr.detail, sizeof(cr.detail), "the copy's two in-band VLAN tags (ethertypes "
			 "%02x%02x, %02x%02x) are in skb metadata or taken out when TCP saves the MAC "
			 "header; all else equal", in->copy[12], in->copy[13], in->copy[16],
			 in->copy[17]);
	if (in->after_ip)
		return verdict(r, PV_DIFFER, cr.verdict == V_EXPLAINED ? "after IP receive "
			       "processing the point must see the kernel's bytes, not the wire's" :
			       cr.detail);
	if (cr.verdict == V_IDENTICAL)
		return verdict(r, PV_IDENTICAL, "");
	if (cr.verdict == V_EXPLAINED) {
		r->reason = cr.reason;
		return verdict(r, PV_EXPLAINED, cr.detail);
	}
	return verdict(r, PV_DIFFER, cr.detail);
}

enum point_verdict point_verdict_of_witness(const struct compare_result *res, int bad,
					    bool compared)
{
	if (!compared)
		return PV_NOT_COMPARED;
	if (bad)
		return res->verdict == V_TRUNCATED ? PV_TRUNCATED :
		       res->verdict == V_BPF_MISSING ? PV_MISSING : PV_DIFFER;
	if (res->reason == R_EVICTED)
		return PV_LOST;
	return res->verdict == V_IDENTICAL ? PV_IDENTICAL : PV_EXPLAINED;
}
