// SPDX-License-Identifier: GPL-2.0
/* Compare native and BPF SYN bytes and classify differences precisely (see classify.h). */
#include "classify.h"

#include <stdio.h>
#include <string.h>

#include "decode.h"

/* inet_addr_type(net, addr) != RTN_UNICAST, as the prespecified-timestamp case asks: the
 * zero network, limited broadcast and multicast by range; the host's own and its subnets'
 * broadcast addresses by @env's list; 127/8 (the loopback route is up in the server netns). */
static bool stamps_for(const uint8_t *a, const uint8_t *daddr, const struct ipv4_env *env)
{
	if (a[0] == 0 || a[0] == 127 || (a[0] & 0xf0) == 0xe0 || !memcmp(a, "\xff\xff\xff\xff", 4))
		return true;
	if (!memcmp(a, daddr, 4))
		return true;
	for (size_t i = 0; env && i < env->n_addrs; i++)
		if (!memcmp(a, &env->addrs[i], 4))
			return true;
	return false;
}

/* One RR option at @o (@ol bytes): 6.1's IPOPT_RR case. */
static int model_rr(uint8_t *o, size_t ol, const uint8_t *local)
{
	if (ol < 3 || o[2] < 4)
		return -1;
	if (o[2] <= ol) {
		if ((size_t)o[2] + 3 > ol)
			return -1;
		memcpy(&o[o[2] - 1], local, 4);
		o[2] += 4;
	}
	return 0;
}

/* One Timestamp option at @o: 6.1's IPOPT_TIMESTAMP case. Sets *@stamp to the offset in @o of
 * the time the kernel writes (inet_current_timestamp()), or leaves it. */
static int model_ts(uint8_t *o, size_t ol, const uint8_t *local, const struct ipv4_env *env,
		    long *stamp)
{
	if (ol < 4 || o[2] < 5)
		return -1;
	if (o[2] > ol) {
		/* full: the overflow count goes up, except for prespecified addresses */
		if ((o[3] & 0x0f) != 3) {
			if ((o[3] >> 4) == 15)
				return -1;
			o[3] = (uint8_t)((o[3] & 0x0f) | (((o[3] >> 4) + 1) << 4));
		}
		return 0;
	}
	if ((size_t)o[2] + 3 > ol)
		return -1;
	switch (o[3] & 0x0f) {
	case 0: /* IPOPT_TS_TSONLY */
		*stamp = o[2] - 1;
		o[2] += 4;
		break;
	case 1: /* IPOPT_TS_TSANDADDR */
		if ((size_t)o[2] + 7 > ol)
			return -1;
		memcpy(&o[o[2] - 1], local, 4);
		*stamp = o[2] + 3;
		o[2] += 8;
		break;
	case 3: /* IPOPT_TS_PRESPEC: stamped unless the address is an ordinary unicast one */
		if ((size_t)o[2] + 7 > ol)
			return -1;
		if (!stamps_for(&o[o[2] - 1], local, env))
			break;
		*stamp = o[2] + 3;
		o[2] += 8;
		break;
	default: /* other flags: left alone on receive */
		break;
	}
	return 0;
}

int ipv4_options_compile(const uint8_t *ip, size_t hl, const struct ipv4_env *env,
			 uint8_t *want, long *stamp, size_t *srr)
{
	const uint8_t *local = ip + 16; /* local delivery: spec_dst is our daddr */
	bool rr = false, ts = false;
	size_t i = 20;

	memcpy(want, ip, hl);
	*stamp = -1;
	*srr = 0;
	while (i < hl) {
		uint8_t *o = want + i, kind = o[0];
		size_t ol;

		if (kind == 0) { /* IPOPT_END: every byte after it becomes END */
			memset(o, 0, hl - i);
			break;
		}
		if (kind == 1) {
			i++;
			continue;
		}
		if (i + 1 >= hl || o[1] < 2 || i + o[1] > hl)
			return -1;
		ol = o[1];
		switch (kind) {
		case 131: /* LSRR */
		case 137: /* SSRR: a pointer below 4, or a second source route, is malformed */
			if (ol < 3 || o[2] < 4 || *srr)
				return -1;
			*srr = i;
			break;
		case 7: /* IPOPT_RR, once */
			if (rr || model_rr(o, ol, local))
				return -1;
			rr = true;
			break;
		case 68: /* IPOPT_TIMESTAMP, once */
			if (ts || model_ts(o, ol, local, env, stamp))
				return -1;
			if (*stamp >= 0)
				*stamp += (long)i;
			ts = true;
			break;
		case 148: /* IPOPT_RA */
			if (ol < 4)
				return -1;
			break;
		case 134: /* IPOPT_CIPSO: no NETLABEL, so the stub's length checks */
			if (ol < 8 || !(o[2] | o[3] | o[4] | o[5]))
				return -1;
			for (size_t t = 6; t < ol; t += o[t + 1])
				if (t + 1 == ol || !o[t + 1] || o[t + 1] > ol - t)
					return -1;
			break;
		default:
			break;
		}
		i += ol;
	}
	return 0;
}

int ipv4_expected_rewrite(const uint8_t *ip, size_t hl, const struct ipv4_env *env,
			  uint8_t *want, long *stamp)
{
	size_t srr;

	/* source routing is off (accept_source_route 0): ip_rcv_options() drops a source route */
	return ipv4_options_compile(ip, hl, env, want, stamp, &srr) || srr ? -1 : 0;
}

bool ipv4_stamp_in_window(uint32_t ms_since_midnight, const struct ipv4_env *env)
{
	const uint64_t day = 86400000;
	uint64_t lo, hi, v = ms_since_midnight;

	if (!env || v >= day || env->hi_ms < env->lo_ms)
		return false;
	if (env->hi_ms - env->lo_ms >= day)
		return true;
	lo = env->lo_ms % day;
	hi = env->hi_ms % day;
	return lo <= hi ? v >= lo && v <= hi : v >= lo || v <= hi; /* the window spans midnight */
}

/*
 * The native copy equals what 6.1's __ip_options_compile() makes of the captured header: every
 * byte as modelled, and the one time it writes a real time (milliseconds since midnight UT in
 * network order) inside the run's window. Fills @out and returns true if so; else appends why
 * not to @out->detail and returns false.
 */
static bool explain_ipv4_rewrite(const struct compare_input *in, const uint8_t *view, size_t vlen,
				 size_t ip, struct compare_result *out)
{
	size_t hl = ip < vlen ? (view[ip] & 0x0f) * 4u : 0, i;
	uint8_t want[60];
	long stamp;
	char more[160];

	if (hl <= 20 || (view[ip] >> 4) != 4 || ip + hl > vlen)
		return false;
	if (ipv4_expected_rewrite(view + ip, hl, in->env, want, &stamp) ||
	    memcmp(in->native, view, ip) ||
	    memcmp(in->native + ip + hl, view + ip + hl, vlen - ip - hl))
		return false;
	for (i = 0; i < hl; i++)
		if ((stamp < 0 || i < (size_t)stamp || i >= (size_t)stamp + 4) &&
		    in->native[ip + i] != want[i])
			break;
	if (i < hl) {
		snprintf(more, sizeof(more), "; not the receive-path option rewrite (ip byte %zu: "
			 "expected 0x%02x)", i, want[i]);
	} else if (stamp >= 0) {
		const uint8_t *t = in->native + ip + stamp;
		uint32_t v = (uint32_t)t[0] << 24 | (uint32_t)t[1] << 16 | t[2] << 8 | t[3];

		if (ipv4_stamp_in_window(v, in->env)) {
			out->verdict = V_EXPLAINED;
			out->reason = R_IPV4_OPTION_REWRITE;
			return true;
		}
		snprintf(more, sizeof(more), "; the timestamp written at ip byte %ld (%u ms after "
			 "midnight UT) is not a time within the run", stamp, v);
	} else {
		out->verdict = V_EXPLAINED;
		out->reason = R_IPV4_OPTION_REWRITE;
		return true;
	}
	strncat(out->detail, more, sizeof(out->detail) - strlen(out->detail) - 1);
	return false;
}

/*
 * Bytes equal to the capture where the kernel must have changed them: a mode-2 copy that kept
 * an in-band VLAN tag (the receive path takes it into skb metadata, skb_vlan_untag(), before
 * IP and TCP see the packet: the saved MAC header is the 14 bytes without it), or IPv4 RR or
 * Timestamp options saved as received where 6.1's and 6.12's __ip_options_compile() writes
 * into them on local delivery. Only one form is right for a given path; the capture says
 * which. Returns true (verdict and detail set) if the kernel kept the other one.
 */
static bool unchanged_but_due(const struct compare_input *in, const uint8_t *view, size_t vlen,
			      size_t mac, struct compare_result *out)
{
	size_t hl = mac < vlen ? (view[mac] & 0x0f) * 4u : 0;
	uint8_t want[60];
	long stamp;

	if (in->mode == 2 && mac == 18 && vlen >= 18 &&
	    eth_inband_tag(view)) {
		out->verdict = V_DIFFER;
		out->diff_off = 12;
		snprintf(out->detail, sizeof(out->detail), "the kernel's MAC header kept the capture's "
			 "in-band VLAN tag (ethertype %02x%02x): the receive path takes it into skb "
			 "metadata before TCP saves, so the copy must be the 14-byte header without it",
			 view[12], view[13]);
		return true;
	}
	if (hl <= 20 || (view[mac] >> 4) != 4 || mac + hl > vlen ||
	    ipv4_expected_rewrite(view + mac, hl, in->env, want, &stamp) ||
	    (!memcmp(want, view + mac, hl) && stamp < 0))
		return false;
	out->verdict = V_DIFFER;
	out->diff_off = (long)mac + 20;
	snprintf(out->detail, sizeof(out->detail), "the kernel saved the IPv4 options as received, "
		 "but its receive path rewrites them on local delivery (Record Route or Timestamp with "
		 "room: __ip_options_compile())");
	return true;
}

static void describe_diff(const uint8_t *a, const uint8_t *b, size_t len, size_t mac_len,
			  long off, char *buf, size_t n)
{
	struct syn_layout l;
	char field[96];

	syn_layout(b, len, mac_len, &l);
	syn_field_name(b, &l, (size_t)off, field, sizeof(field));
	snprintf(buf, n, "offset %ld (%s): native 0x%02x vs bpf 0x%02x", off, field, a[off], b[off]);
}

int classify(const struct compare_input *in, struct compare_result *out)
{
	const uint8_t *view;
	uint8_t untagged[512];
	size_t vlen, off, i, mac;
	bool vlan = false;

	memset(out, 0, sizeof(*out));
	out->diff_off = -1;
	if (!in->bpf) {
		out->verdict = V_BPF_MISSING;
		snprintf(out->detail, sizeof(out->detail), "no BPF capture for this connection");
		return 1;
	}
	if (!in->native || !in->native_len) {
		if (in->syncookie_proven) {
			out->verdict = V_EXPLAINED;
			out->reason = R_SYNCOOKIE;
			snprintf(out->detail, sizeof(out->detail),
				 "validated by a syncookie: the kernel keeps no saved SYN");
			return 0;
		}
		out->verdict = V_NATIVE_MISSING;
		snprintf(out->detail, sizeof(out->detail),
			 "TCP_SAVED_SYN returned nothing and no syncookie was counted");
		return 1;
	}
	/* Mode 1 saves network..TCP; mode 2 adds the MAC header. */
	off = in->mode == 2 ? 0 : in->bpf_mac_len;
	if (off > in->bpf_len) {
		out->verdict = V_DIFFER;
		snprintf(out->detail, sizeof(out->detail), "capture shorter than its MAC header");
		return 1;
	}
	view = in->bpf + off;
	vlen = in->bpf_len - off;
	mac = in->mode == 2 ? in->bpf_mac_len : 0;
	/*
	 * An 802.1Q/802.1ad tag in the captured bytes (the inner tag of a QinQ frame: the outer one
	 * is already in skb metadata at tc ingress) is moved into metadata by the kernel's second
	 * receive round (skb_vlan_untag()) before TCP saves the MAC header, so mode 2's copy has a
	 * 14-byte MAC header without it. Compare against the capture with that tag taken out.
	 */
	if (mac == 18 && vlen >= 18 && vlen <= sizeof(untagged) && in->native_len + 4 == vlen &&
	    eth_inband_tag(view)) {
		memcpy(untagged, view, 12);
		memcpy(untagged + 12, view + 16, vlen - 16);
		view = untagged;
		vlen -= 4;
		mac = 14;
		vlan = true;
	}
	if (vlen == in->native_len && memcmp(view, in->native, vlen) == 0) {
		if (vlan) {
			out->verdict = V_EXPLAINED;
			out->reason = R_VLAN_OFFLOAD;
			snprintf(out->detail, sizeof(out->detail),
				 "the capture's in-band VLAN tag (ethertype %02x%02x) is in skb "
				 "metadata when TCP saves the MAC header; all else equal",
				 in->bpf[off + 12], in->bpf[off + 13]);
			return 0;
		}
		if (unchanged_but_due(in, view, vlen, mac, out))
			return 1;
		out->verdict = V_IDENTICAL;
		return 0;
	}
	for (i = 0; i < vlen && i < in->native_len && view[i] == in->native[i]; i++)
		;
	out->diff_off = (long)i;
	out->verdict = V_DIFFER;
	if (vlen != in->native_len) {
		snprintf(out->detail, sizeof(out->detail), "length: native %zu vs bpf %zu, first "
			 "difference at %zu", in->native_len, vlen, i);
		return 1;
	}
	describe_diff(in->native, view, vlen, mac, (long)i, out->detail, sizeof(out->detail));

	/* A mode-2 copy as long as the tagged capture kept the in-band tag: wrong whatever else
	 * differs, never explained by the other bytes (the options below). */
	if (in->mode == 2 && mac == 18 && vlen >= 18 && eth_inband_tag(view)) {
		strncat(out->detail, "; and the kernel's MAC header kept the capture's in-band VLAN "
			"tag", sizeof(out->detail) - strlen(out->detail) - 1);
		return 1;
	}
	/* IPv4 options the kernel rewrites on receive: explained only if every byte matches
	 * (after taking out an in-band VLAN tag, as above). */
	if (explain_ipv4_rewrite(in, view, vlen, mac, out))
		return 0;
	return 1;
}
