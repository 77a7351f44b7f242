// SPDX-License-Identifier: GPL-2.0
/* Host unit test: syntwin-loader's command line, good values and every kind of bad one. */
#include "check.h"
#include "loader_opts.h"
#include "point_names.h"

static int parse(struct loader_opts *o, char *err, const char *const *args)
{
	char *argv[32];
	int argc = 0;

	argv[argc++] = "syntwin-loader";
	while (*args)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	err[0] = '\0';
	return loader_parse(argc, argv, o, err, 256);
}

int main(void)
{
	struct loader_opts o;
	char err[256];

	CHECK_EQ_INT(parse(&o, err, (const char *[]){ "attach", "--dev", "s0", "--dev", "tun0",
				 "--cgroup", "/sys/fs/cgroup", "--entries", "1024", "--netns",
				 "server", NULL }), 0);
	CHECK_EQ_INT(o.cmd, CMD_ATTACH);
	CHECK_EQ_INT(o.ndevs, 2);
	CHECK_EQ_INT(o.entries, 1024);
	CHECK(strcmp(o.netns, "server") == 0, "netns %s", o.netns);
	CHECK(!o.no_memory_follower, "memory follower off by default");
	CHECK_EQ_INT(o.ring_bytes, 0); /* sized from --entries */
	CHECK_EQ_INT(parse(&o, err, (const char *[]){ "attach", "--dev", "s0", "--cgroup", "/c",
				 "--ring-bytes", "4096", NULL }), 0);
	CHECK_EQ_INT(o.ring_bytes, 4096);
	CHECK_EQ_INT(parse(&o, err, (const char *[]){ "attach", "--dev", "s0", "--no-memory-follower",
				 "--cgroup", "/c", NULL }), 0);
	CHECK(o.no_memory_follower && o.ndevs == 1 && strcmp(o.cgroup, "/c") == 0,
	      "--no-memory-follower takes no value");
	CHECK_EQ_INT(parse(&o, err, (const char *[]){ "stats", "--no-memory-follower", NULL }), -1);
	/* the capture points: a list; alone, they need no cgroup but at least one BPF point */
	CHECK_EQ_INT(parse(&o, err, (const char *[]){ "attach", "--dev", "s0", "--cgroup", "/c",
				 "--points", "xdp,tcp", "--xdp-generic", NULL }), 0);
	CHECK_EQ_INT(o.points, 1u << PT_XDP | 1u << PT_TCP);
	CHECK(o.xdp_generic && !o.only_points, "--xdp-generic takes no value");
	CHECK_EQ_INT(parse(&o, err, (const char *[]){ "attach", "--dev", "s0", "--cgroup", "/c",
				 "--points", "xdp,bogus", NULL }), -1);
	CHECK_STR_CONTAINS(err, "'bogus' is not a capture point");
	CHECK_EQ_INT(parse(&o, err, (const char *[]){ "attach", "--dev", "s0", "--only-points",
				 "--points", "tc", NULL }), 0);
	CHECK(o.only_points && o.points == 1u << PT_TC && !o.cgroup, "tc alone, no cgroup");
	CHECK_EQ_INT(parse(&o, err, (const char *[]){ "attach", "--dev", "s0", "--only-points",
				 "--points", "wire", NULL }), -1);
	CHECK_STR_CONTAINS(err, "--only-points needs --points with tc, xdp or tcp");
	CHECK_EQ_INT(parse(&o, err, (const char *[]){ "attach", "--dev", "s0", "--points", "xdp",
				 NULL }), -1);
	CHECK_EQ_INT(parse(&o, err, (const char *[]){ "stats", "--points", "xdp", NULL }), -1);
	/* decimal only, as the shell reads numbers: "010" is ten, "0x10" is refused */
	CHECK_EQ_INT(parse(&o, err, (const char *[]){ "lookup", "--cookie", "0x10", NULL }), -1);
	CHECK_EQ_INT(parse(&o, err, (const char *[]){ "lookup", "--cookie", "010", "--json", NULL }), 0);
	CHECK_EQ_INT(o.cookie, 10);
	CHECK(o.json, "--json not set");
	CHECK_EQ_INT(parse(&o, err, (const char *[]){ "stats", NULL }), 0);
	CHECK_EQ_INT(o.cmd, CMD_STATS);

	static const struct {
		const char *args[10];
		const char *msg;
	} bad[] = {
		{ { NULL }, "no command" },
		{ { "frobnicate" }, "unknown command 'frobnicate'" },
		{ { "attach", "--dev", "s0" }, "needs at least one --dev and a --cgroup" },
		{ { "attach", "--cgroup", "/sys/fs/cgroup" }, "needs at least one --dev" },
		{ { "attach", "--dev" }, "--dev: missing value" },
		{ { "attach", "--dev", "a-name-far-too-long", "--cgroup", "/c" }, "longer than an interface name" },
		{ { "attach", "--dev", "s0", "--cgroup", "/c", "--entries", "8" }, "--entries: 8 is out of range" },
		{ { "attach", "--dev", "s0", "--cgroup", "/c", "--entries", "lots" }, "--entries: 'lots' is not" },
		{ { "attach", "--dev", "s0", "--cgroup", "/c", "--entries", "" }, "--entries: missing value" },
		{ { "attach", "--dev", "s0", "--cgroup", "/c", "--ring-bytes", "2048" }, "--ring-bytes: 2048 is out of range" },
		{ { "attach", "--dev", "s0", "--cgroup", "/c", "--ring-bytes", "12288" }, "--ring-bytes: 12288 is not a power of two" },
		{ { "stats", "--ring-bytes", "4096" }, "stats: unknown option '--ring-bytes'" },
		{ { "lookup" }, "lookup: needs --cookie" },
		{ { "lookup", "--cookie", "0" }, "--cookie: 0 is out of range" },
		{ { "lookup", "--cookie", "-3" }, "--cookie: '-3' is not" },
		{ { "detach", "--json" }, "detach: unknown option '--json'" },
		{ { "dump", "--dev", "s0" }, "dump: unknown option '--dev'" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ_INT(parse(&o, err, bad[i].args), -1);
		CHECK_STR_CONTAINS(err, bad[i].msg);
	}
	return check_report("loader_opts");
}
