/* SPDX-License-Identifier: GPL-2.0 */
/* getsockopt(TCP_SAVED_SYN) as the comparator reads it, on passive (server) and active (client)
 * sockets alike. */
#ifndef SYNTWIN_NATIVE_READ_H
#define SYNTWIN_NATIVE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Reads the saved headers of @fd into @buf (@cap bytes). Every read first fills the whole
 * buffer with a pattern, and nothing past the length the kernel returns may change (a
 * getsockopt that writes more than it reports). With @check_small, the first read is with an
 * 8-byte buffer, which must fail with EINVAL and the needed length and keep the headers for
 * the exact-size read that follows (seed 004). @small (@smallsz bytes) gets "" (the small
 * buffer not checked, nothing written past), "ok", or how the read's contract was broken.
 * Returns the byte count (0: nothing saved) or -1.
 */
int read_native_checked(int fd, bool check_small, uint8_t *buf, size_t cap, char *small,
			size_t smallsz);
/* One read of @fd's saved headers into @buf (@cap bytes), *@needed as read_saved_syn() sets it,
 * checked as above: @why gets "" or what the kernel wrote past the length it returned. */
int read_native_guarded(int fd, uint8_t *buf, size_t cap, size_t *needed, char *why,
			size_t whysz);

#endif
