// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the SYN profile parser (gen/profile.c) on arbitrary text, line by line, and
 * every shape it accepts crafted into a packet (gen/craft.c) that must then verify, unless the
 * shape asks for a bad checksum.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "craft.h"
#include "profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *line, *save = NULL;
	struct flow f4 = { .family = 4, .src = { 198, 19, 0, 1 }, .dst = { 198, 19, 0, 2 },
			   .sport = 40000, .dport = 7001 };
	struct flow f6 = { .family = 6, .src = { 0xfd, 0, 0x5a, 0x5a, [15] = 1 },
			   .dst = { 0xfd, 0, 0x5a, 0x5a, [15] = 2 }, .sport = 40000, .dport = 7001 };
	uint8_t pkt[CRAFT_MAX];
	struct syn_shape s;
	char err[256];

	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = 0;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (profile_parse_line(line, "fuzz", &s, err, sizeof(err)) != 1)
			continue;
		size_t n = craft_syn(&s, s.family == 6 ? &f6 : &f4, 12345, pkt);

		if (n > CRAFT_MAX)
			abort();
		if (s.bad != BAD_CSUM && craft_verify(pkt, n))
			abort(); /* a good shape crafted with a wrong checksum */
	}
	free(text);
	return 0;
}
