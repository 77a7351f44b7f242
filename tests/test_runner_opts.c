// SPDX-License-Identifier: GPL-2.0
/* Host unit test: syntwin-vm's command line, good values and every kind of bad one. */
#include "check.h"
#include "runner_opts.h"

static int parse(struct runner_opts *o, char *err, const char *const *args)
{
	char *argv[32];
	int argc = 0;

	argv[argc++] = "syntwin-vm";
	while (*args)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	err[0] = '\0';
	return runner_parse(argc, argv, o, err, 256);
}

#define BASE "--kernel", "bz", "--initrd", "rd"

int main(void)
{
	struct runner_opts o;
	char err[256];

	CHECK_EQ_INT(parse(&o, err, (const char *[]){ BASE, "--smp", "2", "--mem", "256",
				 "--timeout", "30", "--share", "/tmp", "--", "sh", "-c",
				 "exit 7", NULL }), 0);
	CHECK_EQ_INT(o.smp, 2);
	CHECK_EQ_INT(o.mem_mb, 256);
	CHECK_EQ_INT(o.timeout_s, 30);
	CHECK(strcmp(o.cmd[0], "sh") == 0 && strcmp(o.cmd[2], "exit 7") == 0 && !o.cmd[3],
	      "guest command not kept whole");
	CHECK(strcmp(o.accel, "tcg") == 0, "default accel %s", o.accel);

	static const struct {
		const char *args[12];
		const char *msg;
	} bad[] = {
		{ { BASE, "--smp", "0", "--", "true" }, "--smp: 0 is out of range" },
		{ { BASE, "--smp", "65", "--", "true" }, "--smp: 65 is out of range" },
		{ { BASE, "--smp", "two", "--", "true" }, "--smp: 'two' is not" },
		{ { BASE, "--smp", "-1", "--", "true" }, "--smp: '-1' is not" },
		{ { BASE, "--mem", "12x", "--", "true" }, "--mem: '12x' is not a number" },
		{ { BASE, "--mem", "64", "--", "true" }, "--mem: 64 is out of range" },
		{ { BASE, "--timeout", "", "--", "true" }, "--timeout: missing value" },
		{ { BASE, "--timeout", "99999999999999999999", "--", "true" }, "--timeout" },
		{ { BASE, "--timeout" }, "--timeout: missing value" },
		{ { BASE, "--accel", "xen", "--", "true" }, "--accel: 'xen'" },
		{ { BASE, "--share" }, "--share: missing value" },
		{ { BASE, "--bogus", "--", "true" }, "unknown option '--bogus'" },
		{ { BASE, "--" }, "no guest command" },
		{ { BASE }, "no guest command" },
		{ { "--initrd", "rd", "--", "true" }, "--kernel and --initrd are required" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ_INT(parse(&o, err, bad[i].args), -1);
		CHECK_STR_CONTAINS(err, bad[i].msg);
	}
	return check_report("runner_opts");
}
