// SPDX-License-Identifier: GPL-2.0
/* Host unit test: syntwin-vm's command line, good values and every kind of bad one. */
#include "check.h"
#include "runner_opts.h"
#include "splat.h"

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

/* The kernel's bug reports as it prints them (with and without a printk timestamp), and lines
 * that only look alike: a userspace message, a WARNING without the CPU, a word in a sentence. */
static void test_splats(void)
{
	static const struct {
		const char *line, *kind;
	} cases[] = {
		{ "WARNING: CPU: 1 PID: 123 at net/ipv4/tcp_input.c:6890 tcp_conn_request+0x4a/0x9c0", "WARNING" },
		{ "[   12.345678] WARNING: CPU: 0 PID: 1 at kernel/fork.c:1 x+0x1/0x2", "WARNING" },
		{ "BUG: KASAN: slab-out-of-bounds in tcp_conn_request+0x123/0x456", "BUG" },
		{ "BUG: sleeping function called from invalid context at mm/slab.h:1", "BUG" },
		{ "kernel BUG at net/ipv4/tcp.c:4242!", "BUG" },
		{ "Oops: 0000 [#1] SMP", "Oops" },
		{ "general protection fault, probably for non-canonical address 0xb405: 0000 [#1] SMP", "Oops" },
		{ "Kernel panic - not syncing: Fatal exception in interrupt", "panic" },
		{ "UBSAN: shift-out-of-bounds in net/ipv4/tcp_input.c:1:2", "UBSAN" },
		{ "WARNING: possible circular locking dependency detected", "lockdep" },
		{ "WARNING: inconsistent lock state", "lockdep" },
		{ "unreferenced object 0xffff888003a1c000 (size 96):", "kmemleak" },
		/* a debug guest's kernel log, as its console printed it (6.1, verbose scan) */
		{ "[   41.209883] kmemleak: unreferenced object 0xff11000006cec280 (size 96):", "kmemleak" },
		{ "[   41.209901] kmemleak:   comm \"syntwin-crafted\", pid 74, jiffies 4294906628", NULL },
		{ "kmemleak: Kernel memory leak detector initialized (mem pool available: 14849)", NULL },
		{ "rcu: INFO: rcu_sched self-detected stall on CPU", "RCU stall" },
		{ "INFO: task syntwin-server:99 blocked for more than 120 seconds.", "hung task" },
		{ "watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [x:1]", "soft lockup" },
		{ "syntwin: WARNING: CPU: this is userspace saying so", NULL },
		{ "WARNING: something a program printed", NULL },
		{ "the BUG: word in a sentence", NULL },
		{ "[    1.000000] tcp_bpf: BUG in nothing", NULL },
		{ "[ unterminated timestamp WARNING: CPU: 1", NULL },
		{ "", NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *k = splat_kind(cases[i].line);

		CHECK(k == cases[i].kind || (k && cases[i].kind && !strcmp(k, cases[i].kind)),
		      "'%s': %s, want %s", cases[i].line, k ? k : "none",
		      cases[i].kind ? cases[i].kind : "none");
	}
}

int main(void)
{
	struct runner_opts o;
	char err[256];

	CHECK_EQ_INT(parse(&o, err, (const char *[]){ BASE, "--smp", "2", "--mem", "256",
				 "--timeout", "30", "--share", "/tmp", "--tree", "/k/tree", "--",
				 "sh", "-c", "exit 7", NULL }), 0);
	CHECK(o.tree && !strcmp(o.tree, "/k/tree"), "--tree kept");
	CHECK_EQ_INT(o.smp, 2);
	CHECK_EQ_INT(o.mem_mb, 256);
	CHECK_EQ_INT(o.timeout_s, 30);
	CHECK(strcmp(o.cmd[0], "sh") == 0 && strcmp(o.cmd[2], "exit 7") == 0 && !o.cmd[3],
	      "guest command not kept whole");
	CHECK(strcmp(o.accel, "tcg") == 0, "default accel %s", o.accel);
	CHECK(!o.icount, "no --icount, no instruction clock");
	CHECK_EQ_INT(parse(&o, err, (const char *[]){ BASE, "--icount", "--", "true", NULL }), 0);
	CHECK(o.icount, "--icount kept");

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
		{ { BASE, "--accel", "kvm", "--icount", "--", "true" }, "--icount needs --accel tcg" },
		{ { BASE, "--share" }, "--share: missing value" },
		{ { BASE, "--tree", "", "--", "true" }, "--tree: missing value" },
		{ { BASE, "--bogus", "--", "true" }, "unknown option '--bogus'" },
		{ { BASE, "--" }, "no guest command" },
		{ { BASE }, "no guest command" },
		{ { "--initrd", "rd", "--", "true" }, "--kernel and --initrd are required" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ_INT(parse(&o, err, bad[i].args), -1);
		CHECK_STR_CONTAINS(err, bad[i].msg);
	}
	test_splats();
	return check_report("runner_opts");
}
