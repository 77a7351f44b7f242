// SPDX-License-Identifier: GPL-2.0
/*
 * syntwin-client (guest, client netns): N seeded connections spread over the server's four
 * listeners (IPv4/IPv6 x TCP_SAVE_SYN 1/2). A seeded fraction of IPv4 SYNs carries Record Route
 * or Timestamp IP options, which the kernel rewrites on receive (an explained difference).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "net_helpers.h"
#include "parse_num.h"
#include "rng.h"

static const char usage[] =
	"usage: syntwin-client [--connections N] [--seed S] [--netns NAME] [--rr-permille P]\n"
	"                      [--ts-permille P] [--server4 A] [--server6 A]\n";

int main(int argc, char **argv)
{
	uint64_t n = 1000, seed = 1, rr = 10, ts = 10;
	const char *netns = "client", *s4 = "198.18.0.2", *s6 = "fd00:5959::2";
	/* NOP + RR with two slots; NOP + TS (timestamps only) with two slots. */
	static const uint8_t opt_rr[12] = { 1, 7, 11, 4 };
	static const uint8_t opt_ts[16] = { 1, 68, 12, 5, 0 };
	uint64_t failed = 0, done = 0;
	char err[256];

	for (int i = 1; i < argc; i += 2) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int rc = 0;

		if (!strcmp(a, "--connections"))
			rc = parse_u64_range(a, v, 1, 100000000, &n, err, sizeof(err));
		else if (!strcmp(a, "--seed"))
			rc = parse_u64_range(a, v, 0, UINT64_MAX, &seed, err, sizeof(err));
		else if (!strcmp(a, "--rr-permille"))
			rc = parse_u64_range(a, v, 0, 1000, &rr, err, sizeof(err));
		else if (!strcmp(a, "--ts-permille"))
			rc = parse_u64_range(a, v, 0, 1000, &ts, err, sizeof(err));
		else if (!strcmp(a, "--netns") && v)
			netns = v;
		else if (!strcmp(a, "--server4") && v)
			s4 = v;
		else if (!strcmp(a, "--server6") && v)
			s6 = v;
		else {
			fprintf(stderr, "syntwin-client: bad option '%s'%s\n%s", a, v ? "" : " (no value)",
				usage);
			return 2;
		}
		if (rc) {
			fprintf(stderr, "syntwin-client: %s\n", err);
			return 2;
		}
	}
	if (enter_netns(netns))
		return 2;
	for (uint64_t i = 0; i < n; i++) {
		int family = i % 2 ? AF_INET6 : AF_INET, mode = (i / 2) % 2 + 1;
		struct sockaddr_storage ss;
		socklen_t sl = make_sockaddr(family, family == AF_INET ? s4 : s6, 7000 + mode, &ss);
		uint64_t r = rng_next(&seed) % 1000;
		int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (family == AF_INET && r < rr)
			setsockopt(fd, IPPROTO_IP, IP_OPTIONS, opt_rr, sizeof(opt_rr));
		else if (family == AF_INET && r < rr + ts)
			setsockopt(fd, IPPROTO_IP, IP_OPTIONS, opt_ts, sizeof(opt_ts));
		if (connect(fd, (struct sockaddr *)&ss, sl)) {
			if (failed++ < 5)
				log_err("connect #%llu", (unsigned long long)i);
		} else {
			done++;
		}
		close(fd);
	}
	printf("client: %llu connections made, %llu failed\n", (unsigned long long)done,
	       (unsigned long long)failed);
	return failed ? 1 : 0;
}
