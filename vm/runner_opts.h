/* SPDX-License-Identifier: GPL-2.0 */
/* Command line of syntwin-vm, parsed without side effects so host tests can drive it. */
#ifndef SYNTWIN_RUNNER_OPTS_H
#define SYNTWIN_RUNNER_OPTS_H

#include <stdbool.h>
#include <stddef.h>

struct runner_opts {
	const char *qemu;	/* QEMU binary */
	const char *kernel;	/* bzImage */
	const char *initrd;	/* gzip'd cpio */
	const char *accel;	/* "kvm" or "tcg" */
	const char *share;	/* host directory shared read-write, or NULL */
	const char *src;	/* host directory shared read-only at /src, or NULL */
	const char *log;	/* console log file */
	const char *append;	/* extra kernel arguments, or NULL */
	bool icount;		/* -icount shift=0,sleep=off: a clock of instructions */
	const char *tree;	/* the kernel tree's facts, copied into the ctl share, or NULL */
	int smp, mem_mb, timeout_s;
	bool verbose;		/* also show the boot, not just the command's output */
	char **cmd;		/* NULL-terminated guest command */
};

extern const char runner_usage[];

/* Returns 0, or -1 with the reason in @err. Never exits, never touches files. */
int runner_parse(int argc, char **argv, struct runner_opts *o, char *err, size_t errlen);

#endif
