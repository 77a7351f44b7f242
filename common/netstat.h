/* SPDX-License-Identifier: GPL-2.0 */
/* TcpExt counters of the caller's network namespace (/proc/net/netstat). */
#ifndef SYNTWIN_NETSTAT_H
#define SYNTWIN_NETSTAT_H

#include <stdint.h>

/* Counter @name (e.g. "SyncookiesRecv"), or -1 if the file or this kernel lacks it. */
int64_t tcpext_counter(const char *name);

#endif
