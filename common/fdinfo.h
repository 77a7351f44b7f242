/* SPDX-License-Identifier: GPL-2.0 */
/* One numeric field of /proc/self/fdinfo/FD (e.g. a BPF map's "memlock" or "max_entries"). */
#ifndef SYNTWIN_FDINFO_H
#define SYNTWIN_FDINFO_H

/* The value of "@field:" in @fd's fdinfo, or -1 if it is unreadable or absent. */
long long fdinfo_number(int fd, const char *field);

#endif
