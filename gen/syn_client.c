// SPDX-License-Identifier: GPL-2.0
/*
 * syntwin-client --count: how many connections the socket-knob generator (sock_gen.h) makes for
 * a selection (a rerun, a shard), for the run's plan (gen/driver.c). The generator itself runs
 * in syntwin-server's event loop.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "sock_gen.h"

static const char usage[] = "usage: syntwin-client --count [OPTION...]\n";

static int parse(int argc, char **argv, struct sock_gen_opts *o)
{
	char err[256];

	sock_gen_opts_init(o);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int rc;

		if (strncmp(a, "--", 2)) {
			fprintf(stderr, "syntwin-client: bad argument '%s'\n%s%s", a, usage,
				sock_gen_usage);
			return -1;
		}
		if (sock_gen_flag(o, a + 2))
			continue;
		if (!v) {
			fprintf(stderr, "syntwin-client: %s: missing value\n%s%s", a, usage,
				sock_gen_usage);
			return -1;
		}
		i++;
		rc = sock_gen_opt(o, a + 2, v, err, sizeof(err));
		if (rc == 0) {
			fprintf(stderr, "syntwin-client: bad option '%s %s'\n%s%s", a, v, usage,
				sock_gen_usage);
			return -1;
		}
		if (rc < 0) {
			fprintf(stderr, "syntwin-client: %s\n", err);
			return -1;
		}
	}
	if (sock_gen_opts_check(o, err, sizeof(err))) {
		fprintf(stderr, "syntwin-client: %s\n", err);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sock_gen_opts o;
	uint64_t cnt;

	if (parse(argc, argv, &o))
		return 2;
	if (!o.count) {
		fprintf(stderr, "syntwin-client: only counts (--count); a run makes its connections "
			"in syntwin-server\n%s%s", usage, sock_gen_usage);
		return 2;
	}
	if (sock_gen_count(&o, &cnt))
		return 2;
	printf("%llu\n", (unsigned long long)cnt);
	return 0;
}
