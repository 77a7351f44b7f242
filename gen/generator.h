/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every generator of the run's event loop is: a module behind these calls, run in the
 * order of the loop's table (generators.c: the planned handshakes, every generator of its own,
 * the crafted phase, the sockets). A generator of its own is gen/own/NAME.c defining
 * `const struct gen_ops NAME_ops` with .own set to its row (registry.h): the build puts every
 * such file in the table. Its labels, active records, failures and give-ups go to the sink
 * (events.h), in memory.
 *
 * The loop's part: open() once its turn comes, step() every round (it starts what may start
 * and times out what waited too long), event() for each epoll event whose data.u32 is one of
 * its tags, wait_ms() before sleeping, finished() after each step, close() at the end.
 */
#ifndef SYNTWIN_GENERATOR_H
#define SYNTWIN_GENERATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "events.h"

struct crafted_opts;
struct plan;
struct planned;
struct sock_gen_opts;

/* What the run's generators make (NULL or all zero: a phase left out). */
struct gen_opts {
	const struct plan *plan;	/* the run's: a generator of its own reads its count and seed
					 * there (own[], own_seed[]) */
	const struct planned *planned;
	uint64_t planned_seed;
	const struct crafted_opts *crafted;
	const struct sock_gen_opts *sockets;
};

struct gen_ops {
	const char *what;		/* "the socket generator", for messages */
	int own;			/* a generator of its own: its row (enum gen_id, registry.h),
					 * whose per_run it makes; 0: one of the loop's own phases */
	size_t size;			/* of its state */
	uint32_t tag, tags;		/* its epoll data.u32 values: tag .. tag + tags - 1 */
	/* Is it asked for by @o? */
	bool (*asked)(const struct gen_opts *o);
	/* Ready to run, its fds on @ep. Returns 0, or -1 (printed). */
	int (*open)(void *g, const struct gen_opts *o, gen_sink sink, void *ctx, int ep,
		    uint32_t tag);
	/* One step. Returns 0, or -1 on an error that stops it (counted). */
	int (*step)(void *g);
	void (*event)(void *g, uint32_t tag);
	bool (*finished)(const void *g);
	/* How long the loop may sleep before step() is due (at most 1000 ms). */
	int (*wait_ms)(const void *g);
	/* The end (what is open closed, if the run was cut short). Returns its failures. */
	uint64_t (*close)(void *g);
};

extern const struct gen_ops planned_ops, crafted_ops, sock_gen_ops;

#endif
