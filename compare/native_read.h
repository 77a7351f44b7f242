/* SPDX-License-Identifier: GPL-2.0 */
/* getsockopt(TCP_SAVED_SYN) as the comparator reads it, on passive (server) and active (client)
 * sockets alike. */
#ifndef SYNTWIN_NATIVE_READ_H
#define SYNTWIN_NATIVE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Reads the saved headers of @fd into @buf (@cap bytes). With @check_small, first with an
 * 8-byte buffer, which must fail with EINVAL and the needed length and keep the headers for the
 * exact-size read that follows (seed 004). @small (@smallsz bytes) gets "" (not checked), "ok",
 * or how the contract was broken. Returns the byte count (0: nothing saved) or -1.
 */
int read_native_checked(int fd, bool check_small, uint8_t *buf, size_t cap, char *small,
			size_t smallsz);

#endif
