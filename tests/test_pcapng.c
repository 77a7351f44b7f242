// SPDX-License-Identifier: GPL-2.0
/*
 * Writes a pcapng file with record/pcapng.c for tests/pcapng_tools.sh to read back with
 * tshark: frames of odd lengths (padding) on both interfaces, comments of every length modulo
 * 4, an empty one, one of 300 bytes, and non-ASCII UTF-8.
 * usage: test_pcapng FILE     prints what each frame must read back as, one line each:
 *        "FRAME_NUMBER<TAB>INTERFACE<TAB>LENGTH<TAB>SECONDS<TAB>COMMENT"
 */
#include <stdio.h>
#include <string.h>

#include "pcapng.h"

int main(int argc, char **argv)
{
	static const char *const comments[] = { "a", "ab", "abc", "abcd", "", "record 7 of shard 1/4, passive SYN: Gr\xc3\xbc\xc3\x9f" };
	uint8_t frame[1600];
	char longc[301];
	FILE *f;
	int n = 0;

	if (argc != 2) {
		fputs("usage: test_pcapng FILE\n", stderr);
		return 2;
	}
	f = fopen(argv[1], "w");
	if (!f || pcapng_start(f)) {
		perror(argv[1]);
		return 1;
	}
	memset(longc, 'x', 300);
	longc[300] = 0;
	for (size_t i = 0; i < sizeof(frame); i++)
		frame[i] = (uint8_t)i;
	for (int i = 0; i < 7; i++) {
		const char *c = i < 6 ? comments[i] : longc;
		int iface = i % 2 ? PCAPNG_IF_RAW : PCAPNG_IF_ETHERNET;
		size_t len = 40 + (size_t)i * 7 + (i == 6 ? 1400 : 0);

		/* a plausible first byte for each link type: IPv4 on raw, any MAC on Ethernet */
		frame[0] = iface == PCAPNG_IF_RAW ? 0x45 : 0x02;
		if (pcapng_frame(f, iface, 1000u + (uint64_t)i, (uint32_t)i, frame, len, c)) {
			perror("pcapng_frame");
			return 1;
		}
		printf("%d\t%d\t%zu\t%d\t%s\n", ++n, iface, len, 1000 + i, c);
	}
	if (fclose(f)) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
