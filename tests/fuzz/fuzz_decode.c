// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the header decoder and the classifier on arbitrary bytes. Byte 0 picks the
 * link-layer length (0, 14 or 18) and the TCP_SAVE_SYN mode; the rest is one header block, given
 * to syn_layout(), syn_decode_text() and syn_field_name() at every offset, then compared with a
 * copy of itself changed at one byte (byte 1 says where) as native against witness.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"
#include "decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t macs[] = { 0, 14, 18 };
	struct compare_result res;
	struct syn_layout l;
	uint8_t *a, *b;
	char text[512];
	size_t mac, len;
	int mode;

	if (size < 2)
		return 0;
	mac = macs[data[0] % 3];
	mode = data[0] & 0x10 ? 2 : 1;
	len = size - 2;
	/* exact-size heap copies, so ASan sees any read past the end */
	a = malloc(len ? len : 1);
	b = malloc(len ? len : 1);
	if (!a || !b)
		abort();
	memcpy(a, data + 2, len);
	memcpy(b, data + 2, len);
	if (len)
		b[data[1] % len] ^= 0xa5;

	syn_layout(a, len, mac, &l);
	syn_decode_text(a, &l, text, sizeof(text));
	for (size_t off = 0; off < len; off++)
		syn_field_name(a, &l, off, text, sizeof(text));

	struct compare_input in = { .mode = mode, .native = a, .native_len = len, .bpf = b,
				    .bpf_len = len, .bpf_mac_len = mac,
				    .syncookie_proven = data[0] & 0x20 };
	classify(&in, &res);
	in.native = data[0] & 0x40 ? NULL : a;
	in.native_len = in.native ? (len > mac ? len - mac : 0) : 0;
	if (in.native && mode == 1)
		in.native = a + (len > mac ? mac : len);
	classify(&in, &res);
	if (len >= 20) {
		uint8_t want[60];
		size_t hl = (a[0] & 0x0f) * 4u;
		long stamp;

		if (hl >= 20 && hl <= len && hl <= 60 &&
		    ipv4_expected_rewrite(a, hl, NULL, want, &stamp) == 0 && stamp >= 0 &&
		    (stamp < 20 || (size_t)stamp + 4 > hl))
			__builtin_trap(); /* a stamp outside the options */
		ipv4_stamp_in_window((uint32_t)len, NULL);
	}
	free(a);
	free(b);
	return 0;
}
