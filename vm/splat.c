// SPDX-License-Identifier: GPL-2.0
/* Kernel splat lines (splat.h). */
#include "splat.h"

#include <string.h>

/* How the kernel begins each report, as it prints it. */
static const struct {
	const char *text;
	const char *kind;
} splats[] = {
	{ "WARNING: CPU: ", "WARNING" },		/* WARN(), WARN_ON() */
	{ "WARNING: possible circular locking dependency", "lockdep" },
	{ "WARNING: possible recursive locking", "lockdep" },
	{ "WARNING: inconsistent lock state", "lockdep" },
	{ "BUG: ", "BUG" },				/* BUG: KASAN, sleeping, spinlock, ... */
	{ "kernel BUG at ", "BUG" },			/* BUG(), BUG_ON() */
	{ "Oops: ", "Oops" },
	{ "general protection fault", "Oops" },
	{ "Kernel panic - not syncing", "panic" },
	{ "UBSAN: ", "UBSAN" },
	{ "kmemleak: unreferenced object 0x", "kmemleak" },	/* verbose report, kernel log */
	{ "unreferenced object 0x", "kmemleak" },		/* as its debugfs file prints it */
	{ "rcu: INFO: ", "RCU stall" },			/* self-detected stall, detected stalls */
	{ "INFO: task ", "hung task" },			/* ... blocked for more than N seconds */
	{ "watchdog: BUG: soft lockup", "soft lockup" },
};

const char *splat_kind(const char *line)
{
	const char *l = line;

	/* a printk timestamp in front, "[    1.234567] ", is skipped */
	if (l[0] == '[') {
		const char *e = strchr(l, ']');

		if (e && e[1] == ' ')
			l = e + 2;
	}
	for (size_t i = 0; i < sizeof(splats) / sizeof(splats[0]); i++)
		if (!strncmp(l, splats[i].text, strlen(splats[i].text)))
			return splats[i].kind;
	return NULL;
}
