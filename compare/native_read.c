// SPDX-License-Identifier: GPL-2.0
/* The comparator's TCP_SAVED_SYN read with the small-buffer contract check (native_read.h). */
#include "native_read.h"

#include <errno.h>
#include <stdio.h>

#include "net_helpers.h"

int read_native_checked(int fd, bool check_small, uint8_t *buf, size_t cap, char *small,
			size_t smallsz)
{
	size_t needed = 0;
	int n;

	small[0] = 0;
	if (!check_small)
		return read_saved_syn(fd, buf, cap, NULL);
	n = read_saved_syn(fd, buf, 8, &needed);
	if (n < 0 && errno == EINVAL && needed > 8 && needed <= cap) {
		n = read_saved_syn(fd, buf, needed, NULL);
		snprintf(small, smallsz, n == (int)needed ? "ok" :
			 "EINVAL said %zu bytes, the exact read returned %d", needed, n);
	} else if (n == 0) {
		snprintf(small, smallsz, "ok");
	} else {
		snprintf(small, smallsz, "8-byte buffer: returned %d (errno %d, optlen %zu), "
			 "want -1/EINVAL and the needed length", n, n < 0 ? errno : 0, needed);
		n = n > 0 ? n : read_saved_syn(fd, buf, cap, NULL);
	}
	return n;
}
