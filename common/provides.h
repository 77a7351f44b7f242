/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a kernel series declares it implements beyond the stock TCP_SAVE_SYN API: the one source
 * of what a run expects of the kernel, never the kernel under test itself. A series directory
 * holds it as `provides` (kernel-series/VER/provides); a mutant inherits its reference's; a
 * stock kernel (--series none) or a series without the file declares nothing. One declaration
 * a line, '#' starts a comment:
 *
 *   synack-save          a connecting socket with TCP_SAVE_SYN saves its SYN-ACK's headers:
 *                        every socket connection is checked in the active direction too
 *   counter NAME         TcpExt counter NAME exists (/proc/net/netstat) and counts as the
 *                        run's expectations say (expect.h)
 *   selftest NAME        the series adds selftest NAME, and it runs and passes (no skip)
 *
 * What the kernel shows may only add failures: a declared counter that is missing, a
 * declared SYN-ACK never saved, a declared selftest absent are failures, never a reason to
 * test less.
 */
#ifndef SYNTWIN_PROVIDES_H
#define SYNTWIN_PROVIDES_H

#include <stdbool.h>
#include <stddef.h>

#define PROVIDES_MAX 16		/* counters, and selftests, per declaration */
#define PROVIDES_NAME 48	/* a counter's or selftest's name, with its NUL */

struct json_out;

struct provides {
	bool synack_save;
	char counter[PROVIDES_MAX][PROVIDES_NAME];
	size_t ncounters;
	char selftest[PROVIDES_MAX][PROVIDES_NAME];
	size_t nselftests;
};

/* @text (NUL-terminated) into @p. Returns 0, or -1 with the line and what is wrong in @err. */
int provides_parse(const char *text, struct provides *p, char *err, size_t errlen);
/* The file @path into @p. Returns 0, or -1 (@err: cannot read it, or provides_parse's). */
int provides_load(const char *path, struct provides *p, char *err, size_t errlen);
/* Does @p declare TcpExt counter @name? */
bool provides_counter(const struct provides *p, const char *name);
/* @p as an object named @key of @j: {"synack_save": .., "counters": [..], "selftests": [..]}. */
void provides_json(struct json_out *j, const char *key, const struct provides *p);
/* One line for people: "synack-save, counters TCPSynSaved TCPSynAckSaved, selftest x", or
 * "nothing beyond the stock TCP_SAVE_SYN API". */
void provides_describe(const struct provides *p, char *buf, size_t len);

#endif
