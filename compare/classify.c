// SPDX-License-Identifier: GPL-2.0
/* Compare native and BPF SYN bytes and classify differences precisely (see classify.h). */
#include "classify.h"

#include <stdio.h>
#include <string.h>

#include "decode.h"

const char *const verdict_names[V_MAX] = { "identical", "explained", "differ", "native-missing",
					   "bpf-missing" };
const char *const reason_names[R_MAX] = { "", "ipv4-option-rewrite", "syncookie",
					   "vlan-offload", "rejected-by-kernel", "syn-retransmit",
					   "witness-map-eviction" };

int ipv4_expected_rewrite(const uint8_t *ip, size_t hl, uint8_t *want, uint8_t *any)
{
	const uint8_t *local = ip + 16; /* local delivery: the address written is our daddr */
	size_t i = 20;

	memcpy(want, ip, hl);
	memset(any, 0, hl);
	while (i < hl) {
		uint8_t *o = want + i, kind = o[0];
		size_t ol;

		if (kind == 0)
			break;
		if (kind == 1) {
			i++;
			continue;
		}
		if (i + 1 >= hl || o[1] < 2 || i + o[1] > hl)
			return -1;
		ol = o[1];
		if (kind == 7) { /* Record Route */
			if (ol < 3 || o[2] < 4)
				return -1;
			if (o[2] <= ol) {
				if ((size_t)o[2] + 3 > ol)
					return -1;
				memcpy(&o[o[2] - 1], local, 4);
				o[2] += 4;
			}
		} else if (kind == 68) { /* Timestamp */
			if (ol < 4 || o[2] < 5)
				return -1;
			if (o[2] <= ol) {
				size_t t;

				if ((size_t)o[2] + 3 > ol)
					return -1;
				switch (o[3] & 0x0f) {
				case 0:
					t = o[2] - 1;
					o[2] += 4;
					break;
				case 1:
					if ((size_t)o[2] + 7 > ol)
						return -1;
					memcpy(&o[o[2] - 1], local, 4);
					t = o[2] + 3;
					o[2] += 8;
					break;
				case 3:
					if ((size_t)o[2] + 7 > ol)
						return -1;
					/* Prespecified: stamped only where the address is ours. */
					if (memcmp(&o[o[2] - 1], local, 4))
						goto next;
					t = o[2] + 3;
					o[2] += 8;
					break;
				default:
					goto next;
				}
				memset(any + i + t, 1, 4);
			} else if ((o[3] & 0x0f) != 3) {
				if ((o[3] >> 4) == 15)
					return -1;
				o[3] += 0x10;
			}
		}
next:
		i += ol;
	}
	return 0;
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
	    ((view[12] == 0x81 && view[13] == 0x00) || (view[12] == 0x88 && view[13] == 0xa8))) {
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

	/* IPv4 options the kernel rewrites on receive: explained only if every byte matches
	 * (after taking out an in-band VLAN tag, as above). */
	size_t ip = mac;
	size_t hl = ip < vlen ? (view[ip] & 0x0f) * 4u : 0;

	if (hl > 20 && (view[ip] >> 4) == 4 && ip + hl <= vlen) {
		uint8_t want[60], any[60];

		if (ipv4_expected_rewrite(view + ip, hl, want, any) == 0 &&
		    memcmp(in->native, view, ip) == 0 &&
		    memcmp(in->native + ip + hl, view + ip + hl, vlen - ip - hl) == 0) {
			for (i = 0; i < hl; i++)
				if (!any[i] && in->native[ip + i] != want[i])
					break;
			if (i == hl) {
				out->verdict = V_EXPLAINED;
				out->reason = R_IPV4_OPTION_REWRITE;
				return 0;
			}
			char more[128];

			snprintf(more, sizeof(more), "; not the receive-path RR/TS rewrite (ip byte %zu: "
				 "expected 0x%02x)", i, want[i]);
			strncat(out->detail, more, sizeof(out->detail) - strlen(out->detail) - 1);
		}
	}
	return 1;
}
