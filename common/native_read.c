// SPDX-License-Identifier: GPL-2.0
/* The comparator's TCP_SAVED_SYN read with its contract checks (native_read.h). */
#include "native_read.h"

#include <errno.h>
#include <stdio.h>

#include "net_helpers.h"

/* The pattern a read's buffer holds before the read: a byte that varies with its place, so a
 * copy of the buffer's own start cannot pass for it. */
static uint8_t guard_byte(size_t i)
{
	return (uint8_t)(0xa5 ^ (i * 0x3b));
}

/*
 * getsockopt(TCP_SAVED_SYN) of @fd with @len bytes of @buf (@cap bytes, all filled with the
 * pattern first): no byte past the length it returns (past none, when it fails) may change --
 * a kernel that copies more than it reports reads past its copy on the heap. A breach goes to
 * @why (@whysz) unless one is there already. Returns read_saved_syn()'s result.
 */
static int guarded_read(int fd, uint8_t *buf, size_t len, size_t cap, size_t *needed, char *why,
			size_t whysz)
{
	size_t from, at, last = 0, changed = 0;
	int n;

	for (size_t i = 0; i < cap; i++)
		buf[i] = guard_byte(i);
	n = read_saved_syn(fd, buf, len, needed);
	from = n > 0 ? (size_t)n : 0;
	for (at = from; at < cap && buf[at] == guard_byte(at); at++)
		;
	for (size_t i = at; i < cap; i++)
		if (buf[i] != guard_byte(i))
			last = i, changed++;
	if (at < cap && !why[0])
		snprintf(why, whysz, "given %zu bytes, it returned %d and wrote %zu bytes past that "
			 "(offsets %zu..%zu)", len, n, changed, at, last);
	return n;
}

int read_native_guarded(int fd, uint8_t *buf, size_t cap, size_t *needed, char *why,
			size_t whysz)
{
	why[0] = 0;
	return guarded_read(fd, buf, cap, cap, needed, why, whysz);
}

int read_native_checked(int fd, bool check_small, uint8_t *buf, size_t cap, char *small,
			size_t smallsz)
{
	size_t needed = 0;
	int n;

	small[0] = 0;
	if (!check_small)
		return guarded_read(fd, buf, cap, cap, NULL, small, smallsz);
	n = guarded_read(fd, buf, 8, cap, &needed, small, smallsz);
	if (small[0])
		return n > 0 ? n : guarded_read(fd, buf, cap, cap, NULL, small, smallsz);
	if (n < 0 && errno == EINVAL && needed > 8 && needed <= cap) {
		n = guarded_read(fd, buf, needed, cap, NULL, small, smallsz);
		if (!small[0])
			snprintf(small, smallsz, n == (int)needed ? "ok" :
				 "small buffer: EINVAL said %zu bytes, the exact read returned %d",
				 needed, n);
	} else if (n == 0) {
		snprintf(small, smallsz, "ok");
	} else {
		snprintf(small, smallsz, "small buffer: 8 bytes: returned %d (errno %d, optlen %zu), "
			 "want -1/EINVAL and the needed length", n, n < 0 ? errno : 0, needed);
		n = n > 0 ? n : guarded_read(fd, buf, cap, cap, NULL, small, smallsz);
	}
	return n;
}
