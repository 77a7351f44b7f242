/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one walker of TCP and IPv4 option areas (both lay options out alike: kinds 0, end of
 * list, and 1, no-op, are one byte; every other kind has a length byte that counts the kind
 * and itself), shared by the decoder, the crafted peer and the comparator. The IPv4 option
 * model in judge/classify.c walks on its own: it reproduces the kernel's own parse, errors
 * included, which is not a generic walk.
 */
#ifndef SYNTWIN_TCP_OPTS_H
#define SYNTWIN_TCP_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct opt {
	uint8_t kind;
	size_t off;	/* where it starts in the area */
	size_t len;	/* its length as its bytes give it: 1 for kinds 0 and 1, and for a bad one */
	bool bad;	/* a kind with no length byte left, or with a length below 2 */
};

/*
 * The option at *@pos of area @o (@n bytes) into @out, and *@pos moved past it. Returns false
 * when *@pos is at or past the end. An option whose length runs past the area is returned as its
 * length byte says: the caller checks off + len against what it may read.
 */
bool opt_next(const uint8_t *o, size_t n, size_t *pos, struct opt *out);

/*
 * The TSval of the last timestamp option among TCP options @o (@len bytes, after the fixed
 * 20-byte header), as the kernel keeps the last one it parses; false if there is none.
 */
bool tcp_last_tsval(const uint8_t *o, size_t len, uint32_t *val);

#endif
