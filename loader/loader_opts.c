// SPDX-License-Identifier: GPL-2.0
/* Parse and validate syntwin-loader's command line (see loader_opts.h). */
#include "loader_opts.h"

#include <stdio.h>
#include <string.h>

#include "parse_num.h"
#include "point_names.h"

const char loader_usage[] =
	"usage: syntwin-loader attach --dev IFNAME[@NETNS] [--dev ...] --cgroup PATH [--entries N]\n"
	"                             [--netns NAME]   (NAME: the default netns of the devices)\n"
	"                             [--ring-bytes B]   (the ring's size: a power of two, 4096..2^30)\n"
	"                             [--no-memory-follower]   (no kmalloc/kfree programs)\n"
	"                             [--points LIST] [--xdp-generic] [--only-points]\n"
	"                             (capture points beside tc: xdp, tcp; alone: no witness)\n"
	"       syntwin-loader detach\n"
	"       syntwin-loader dump [--json]\n"
	"       syntwin-loader stats [--json]\n"
	"       syntwin-loader lookup --cookie C [--json]\n";

int loader_parse(int argc, char **argv, struct loader_opts *o, char *err, size_t errlen)
{
	static const char *const names[] = { "attach", "detach", "dump", "stats", "lookup" };
	bool have_cookie = false;
	uint64_t v;
	int i;

	memset(o, 0, sizeof(*o));
	o->entries = 65536;
	if (argc < 2) {
		snprintf(err, errlen, "no command");
		return -1;
	}
	for (i = 0; i < 5 && strcmp(argv[1], names[i]); i++)
		;
	if (i == 5) {
		snprintf(err, errlen, "unknown command '%s'", argv[1]);
		return -1;
	}
	o->cmd = (enum loader_cmd)i;
	for (i = 2; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		bool takes_value = strcmp(a, "--json") && strcmp(a, "--no-memory-follower") &&
				   strcmp(a, "--xdp-generic") && strcmp(a, "--only-points");

		if (takes_value && (!val || !*val)) {
			snprintf(err, errlen, "%s: missing value", a);
			return -1;
		}
		if (strcmp(a, "--json") == 0 && o->cmd != CMD_ATTACH && o->cmd != CMD_DETACH) {
			o->json = true;
		} else if (strcmp(a, "--dev") == 0 && o->cmd == CMD_ATTACH) {
			if (o->ndevs == LOADER_MAX_DEVS) {
				snprintf(err, errlen, "--dev: at most %d devices", LOADER_MAX_DEVS);
				return -1;
			}
			/* IFNAME or IFNAME@NETNS (a device in another network namespace) */
			size_t nl = strcspn(val, "@");

			if (nl >= 16 || nl == 0) {
				snprintf(err, errlen, "--dev: '%.*s' is %s an interface name", (int)nl, val,
					 nl ? "longer than" : "not");
				return -1;
			}
			if (val[nl] == '@' && (!val[nl + 1] || strlen(val + nl + 1) > 60)) {
				snprintf(err, errlen, "--dev: '%s': no network namespace after '@'", val);
				return -1;
			}
			o->devs[o->ndevs++] = val;
		} else if (strcmp(a, "--no-memory-follower") == 0 && o->cmd == CMD_ATTACH) {
			o->no_memory_follower = true;
		} else if (strcmp(a, "--points") == 0 && o->cmd == CMD_ATTACH) {
			if (points_parse(val, &o->points, err, errlen))
				return -1;
		} else if (strcmp(a, "--xdp-generic") == 0 && o->cmd == CMD_ATTACH) {
			o->xdp_generic = true;
		} else if (strcmp(a, "--only-points") == 0 && o->cmd == CMD_ATTACH) {
			o->only_points = true;
		} else if (strcmp(a, "--netns") == 0 && o->cmd == CMD_ATTACH) {
			o->netns = val;
		} else if (strcmp(a, "--cgroup") == 0 && o->cmd == CMD_ATTACH) {
			o->cgroup = val;
		} else if (strcmp(a, "--entries") == 0 && o->cmd == CMD_ATTACH) {
			if (parse_u64_range(a, val, 16, 1u << 24, &v, err, errlen))
				return -1;
			o->entries = (uint32_t)v;
		} else if (strcmp(a, "--ring-bytes") == 0 && o->cmd == CMD_ATTACH) {
			if (parse_u64_range(a, val, 4096, 1u << 30, &v, err, errlen))
				return -1;
			if (v & (v - 1)) {
				snprintf(err, errlen, "--ring-bytes: %s is not a power of two", val);
				return -1;
			}
			o->ring_bytes = (uint32_t)v;
		} else if (strcmp(a, "--cookie") == 0 && o->cmd == CMD_LOOKUP) {
			if (parse_u64_range(a, val, 1, UINT64_MAX, &o->cookie, err, errlen))
				return -1;
			have_cookie = true;
		} else {
			snprintf(err, errlen, "%s: unknown option '%s'", names[o->cmd], a);
			return -1;
		}
		if (takes_value)
			i++;
	}
	if (o->only_points && !(o->points & (1u << PT_XDP | 1u << PT_TCP | 1u << PT_TC))) {
		snprintf(err, errlen, "attach: --only-points needs --points with tc, xdp or tcp");
		return -1;
	}
	if (o->cmd == CMD_ATTACH && (!o->ndevs || (!o->cgroup && !o->only_points))) {
		snprintf(err, errlen, "attach: needs at least one --dev and a --cgroup");
		return -1;
	}
	if (o->cmd == CMD_LOOKUP && !have_cookie) {
		snprintf(err, errlen, "lookup: needs --cookie");
		return -1;
	}
	return 0;
}
