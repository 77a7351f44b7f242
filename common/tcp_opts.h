/* SPDX-License-Identifier: GPL-2.0 */
/* Reading TCP options, shared by the crafted peer and the comparator. */
#ifndef SYNTWIN_TCP_OPTS_H
#define SYNTWIN_TCP_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The TSval of the last timestamp option among TCP options @o (@len bytes, after the fixed
 * 20-byte header), as the kernel keeps the last one it parses; false if there is none.
 */
bool tcp_last_tsval(const uint8_t *o, size_t len, uint32_t *val);

#endif
