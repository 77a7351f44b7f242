// SPDX-License-Identifier: GPL-2.0
/*
 * syntwin-client: the socket-knob generator (sock_gen.h) on its own, for a server started
 * separately: its labels and active records go over the channel (client_msg.h). A run does not
 * use it for connections (syntwin-server runs the same generator in its own loop); run-guest.sh
 * asks it how many connections a selection makes (--count).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sock_gen.h"

static const char usage[] = "usage: syntwin-client [OPTION...]\n";

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

/* The sink: one datagram to the server. */
static int to_channel(void *ctx, const struct active_msg *m)
{
	return send(*(int *)ctx, m, sizeof(*m), 0) == sizeof(*m) ? 0 : -1;
}

int main(int argc, char **argv)
{
	static struct sock_gen g;
	struct sock_gen_opts o;
	struct epoll_event evs[SOCK_GEN_MAX_PARALLEL];
	int ufd, ep, rc = 0;

	if (parse(argc, argv, &o))
		return 2;
	if (o.count) {
		uint64_t cnt;

		if (sock_gen_count(&o, &cnt))
			return 2;
		printf("%llu\n", (unsigned long long)cnt);
		return 0;
	}
	ufd = client_channel_connect();
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ufd < 0 || ep < 0 || sock_gen_open(&g, &o, to_channel, &ufd, ep, 0))
		return 2;
	while (!sock_gen_finished(&g)) {
		int n;

		if (sock_gen_step(&g)) {
			rc = 2;
			break;
		}
		if (sock_gen_finished(&g))
			break;
		n = epoll_wait(ep, evs, SOCK_GEN_MAX_PARALLEL, 1000);
		for (int e = 0; e < n; e++)
			sock_gen_event(&g, evs[e].data.u32);
		if (n < 0 && errno != EINTR) {
			perror("syntwin-client: epoll_wait");
			rc = 2;
			break;
		}
	}
	/* a failed connection is the server's to judge; the client fails on its own errors */
	if (sock_gen_close(&g) && !rc)
		rc = 1;
	return rc;
}
