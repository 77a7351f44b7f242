// SPDX-License-Identifier: GPL-2.0
/* pcapng blocks (pcapng.h), in the host's byte order, which the byte-order magic records. */
#include "pcapng.h"

#include <string.h>

#define BT_SHB 0x0a0d0d0au
#define BT_IDB 0x00000001u
#define BT_EPB 0x00000006u
#define OPT_END 0
#define OPT_COMMENT 1
#define IF_NAME 2
#define LINKTYPE_ETHERNET 1
#define LINKTYPE_RAW 101

static size_t pad4(size_t n) { return (n + 3) & ~(size_t)3; }

static int put(FILE *f, const void *p, size_t n)
{
	static const uint8_t zeros[4];

	if (fwrite(p, 1, n, f) != n)
		return -1;
	return fwrite(zeros, 1, pad4(n) - n, f) == pad4(n) - n ? 0 : -1;
}

static int put32(FILE *f, uint32_t v) { return put(f, &v, 4); }

/* An option: code, length, value padded to 4 bytes. */
static int put_opt(FILE *f, uint16_t code, const void *v, size_t len)
{
	uint16_t h[2] = { code, (uint16_t)len };

	return put(f, h, 4) || (len && put(f, v, len)) ? -1 : 0;
}

static size_t opt_size(size_t len) { return 4 + pad4(len); }

static int idb(FILE *f, uint16_t linktype, const char *name)
{
	uint32_t len = (uint32_t)(20 + opt_size(strlen(name)) + 4);
	uint16_t lt[2] = { linktype, 0 };

	return put32(f, BT_IDB) || put32(f, len) || put(f, lt, 4) || put32(f, 0) ||
	       put_opt(f, IF_NAME, name, strlen(name)) || put_opt(f, OPT_END, NULL, 0) ||
	       put32(f, len) ? -1 : 0;
}

int pcapng_start(FILE *f)
{
	uint16_t ver[2] = { 1, 0 };
	uint64_t section_len = UINT64_MAX; /* not given */

	if (put32(f, BT_SHB) || put32(f, 28) || put32(f, 0x1a2b3c4du) || put(f, ver, 4) ||
	    put(f, &section_len, 8) || put32(f, 28))
		return -1;
	/* the order is PCAPNG_IF_ETHERNET, PCAPNG_IF_RAW */
	return idb(f, LINKTYPE_ETHERNET, "mac-header") || idb(f, LINKTYPE_RAW, "ip") ? -1 : 0;
}

int pcapng_frame(FILE *f, int iface, uint64_t sec, uint32_t usec, const uint8_t *p, size_t len,
		 const char *comment)
{
	size_t clen = strlen(comment) > 65000 ? 65000 : strlen(comment);
	uint64_t ts = sec * 1000000u + usec; /* the default resolution: microseconds */
	uint32_t blen = (uint32_t)(28 + pad4(len) + opt_size(clen) + 4 + 4);
	uint32_t hdr[5] = { (uint32_t)iface, (uint32_t)(ts >> 32), (uint32_t)ts, (uint32_t)len,
			    (uint32_t)len };

	return put32(f, BT_EPB) || put32(f, blen) || put(f, hdr, sizeof(hdr)) || put(f, p, len) ||
	       put_opt(f, OPT_COMMENT, comment, clen) || put_opt(f, OPT_END, NULL, 0) ||
	       put32(f, blen) ? -1 : 0;
}
