// SPDX-License-Identifier: GPL-2.0
/* Parse and validate syntwin-vm's command line (see runner_opts.h). */
#include "runner_opts.h"

#include <stdio.h>
#include <string.h>

#include "parse_num.h"

const char runner_usage[] =
	"usage: syntwin-vm --kernel BZIMAGE --initrd CPIO [--accel kvm|tcg] [--smp N] [--mem MB]\n"
	"                  [--timeout S] [--share DIR] [--src DIR] [--log FILE] [--append ARGS]\n"
	"                  [--tree FILE] [--icount] [--verbose] -- CMD [ARGS...]\n"
	"  --tree FILE  the kernel tree's facts (compare/tree_facts.h), given to the guest as\n"
	"               /mnt/ctl/tree\n"
	"  --icount     (tcg) the guest's clock counts instructions, one a nanosecond: timings\n"
	"               repeat to the instruction, whatever else the host runs\n";

int runner_parse(int argc, char **argv, struct runner_opts *o, char *err, size_t errlen)
{
	static const char *const str_flags[] = { "--qemu", "--kernel", "--initrd", "--accel",
						 "--share", "--src", "--log", "--append", "--tree" };
	const char **str_dst[] = { &o->qemu, &o->kernel, &o->initrd, &o->accel,
				   &o->share, &o->src, &o->log, &o->append, &o->tree };
	int i;

	memset(o, 0, sizeof(*o));
	o->qemu = "qemu-system-x86_64";
	o->accel = "tcg";
	o->log = "/dev/null";
	o->smp = 1;
	o->mem_mb = 512;
	o->timeout_s = 600;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		size_t k;

		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (strcmp(a, "--verbose") == 0) {
			o->verbose = true;
			continue;
		}
		if (strcmp(a, "--icount") == 0) {
			o->icount = true;
			continue;
		}
		for (k = 0; k < sizeof(str_flags) / sizeof(str_flags[0]); k++)
			if (strcmp(a, str_flags[k]) == 0)
				break;
		if (k < sizeof(str_flags) / sizeof(str_flags[0])) {
			if (!v || !*v) {
				snprintf(err, errlen, "%s: missing value", a);
				return -1;
			}
			*str_dst[k] = v;
			i++;
			continue;
		}
		if (strcmp(a, "--smp") == 0) {
			if (parse_int_range(a, v, 1, 64, &o->smp, err, errlen))
				return -1;
		} else if (strcmp(a, "--mem") == 0) {
			if (parse_int_range(a, v, 128, 16384, &o->mem_mb, err, errlen))
				return -1;
		} else if (strcmp(a, "--timeout") == 0) {
			if (parse_int_range(a, v, 1, 86400, &o->timeout_s, err, errlen))
				return -1;
		} else {
			snprintf(err, errlen, "unknown option '%s'", a);
			return -1;
		}
		i++;
	}
	if (!o->kernel || !o->initrd) {
		snprintf(err, errlen, "--kernel and --initrd are required");
		return -1;
	}
	if (strcmp(o->accel, "kvm") && strcmp(o->accel, "tcg")) {
		snprintf(err, errlen, "--accel: '%s' is neither kvm nor tcg", o->accel);
		return -1;
	}
	if (o->icount && strcmp(o->accel, "tcg")) {
		snprintf(err, errlen, "--icount needs --accel tcg (KVM runs the guest's instructions "
			 "on the host's CPU, uncounted)");
		return -1;
	}
	if (i >= argc) {
		snprintf(err, errlen, "no guest command (put it after --)");
		return -1;
	}
	o->cmd = argv + i;
	return 0;
}
