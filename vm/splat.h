/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel splats: the lines with which the kernel reports a bug it caught (WARN, BUG, Oops,
 * KASAN, UBSAN, lockdep, kmemleak, RCU stalls, hung tasks). The runner scans the guest
 * kernel's own log (dmesg, printed between markers after the command) and fails a run that
 * has one, whatever the command said.
 */
#ifndef SYNTWIN_SPLAT_H
#define SYNTWIN_SPLAT_H

/* The kind of splat @line begins (e.g. "WARNING"), or NULL if it begins none. */
const char *splat_kind(const char *line);

#endif
