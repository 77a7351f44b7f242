// SPDX-License-Identifier: GPL-2.0
/* syntwin-vm: boot the guest kernel in QEMU, run one command in it, return its exit status. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runner_opts.h"
#include "splat.h"

/* Exit statuses of our own, outside what the guest command returns through us. */
enum { EXIT_USAGE = 2, EXIT_TIMEOUT = 124, EXIT_GUEST_FAILED = 125 };

#define TAIL_LINES 30
#define LINE_MAX_LEN 4096
#define MAX_ARGS 64

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

struct argv_buf {
	char *v[MAX_ARGS];
	int n;
};

static void add(struct argv_buf *a, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (a->n >= MAX_ARGS - 1) {
		fprintf(stderr, "syntwin-vm: too many QEMU arguments\n");
		exit(EXIT_USAGE);
	}
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		exit(EXIT_GUEST_FAILED);
	va_end(ap);
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

/* The machine: no default devices, and a guest reboot (which panic=-1 turns a panic into) exits. */
static void machine_args(struct argv_buf *a, const struct runner_opts *o)
{
	add(a, "%s", o->qemu);
	add(a, "-nodefaults");
	add(a, "-no-reboot");
	add(a, "-display");
	add(a, "none");
	add(a, "-machine");
	add(a, "pc");
	add(a, "-accel");
	add(a, "%s", o->accel);
	if (o->icount) {
		/* One instruction a nanosecond of guest time, and no idle time taken from the
		 * host's clock (sleep=off: an idle guest jumps to its next timer). A benchmark's
		 * rates then count instructions, repeatable to the instruction. */
		add(a, "-icount");
		add(a, "shift=0,sleep=off");
	}
	add(a, "-cpu");
	add(a, "%s", strcmp(o->accel, "kvm") == 0 ? "host" : "max");
	add(a, "-smp");
	add(a, "%d", o->smp);
	add(a, "-m");
	add(a, "%d", o->mem_mb);
}

static void kernel_args(struct argv_buf *a, const struct runner_opts *o)
{
	add(a, "-kernel");
	add(a, "%s", o->kernel);
	add(a, "-initrd");
	add(a, "%s", o->initrd);
	add(a, "-append");
	add(a, "%s%s%s",
	    "console=ttyS0 "	/* the only console: our stdout pipe */
	    "panic=-1 "		/* reboot at once on panic; -no-reboot makes that an exit */
	    "oops=panic "	/* an oops is a failure of the run, not something to limp past */
	    "loglevel=4 "	/* warnings and worse reach the console (and the log tail) */
	    "mitigations=off "	/* speculative-execution defences only slow TCG down */
	    "random.trust_cpu=on " /* no entropy wait on boot */
	    /* Slab caches unmerged: a kmalloc cache's objects then come from kmalloc() alone,
	     * which the memory follower traces (loader/slab_merge.c); merged, any cache of the
	     * size hands them out and every kmem_cache_alloc() must be followed too. */
	    "slab_nomerge",
	    o->append ? " " : "", o->append ? o->append : "");
	/* The serial port is our stdout; signal=off: ^C reaches us, not the guest. */
	add(a, "-chardev");
	add(a, "stdio,id=con,signal=off");
	add(a, "-serial");
	add(a, "chardev:con");
}

/* @path with every comma doubled, as QEMU's option parser wants it inside a value. */
static char *qemu_value(const char *path)
{
	size_t n = strlen(path), commas = 0;
	char *v, *w;

	for (const char *p = path; *p; p++)
		commas += *p == ',';
	v = malloc(n + commas + 1);
	if (!v)
		exit(EXIT_GUEST_FAILED);
	for (w = v; *path; path++) {
		*w++ = *path;
		if (*path == ',')
			*w++ = ',';
	}
	*w = '\0';
	return v;
}

static void plan9_arg(struct argv_buf *a, const char *tag, const char *path, bool ro)
{
	char *v = qemu_value(path);

	add(a, "-fsdev");
	add(a, "local,id=%s,path=%s,security_model=none%s", tag, v, ro ? ",readonly=on" : "");
	free(v);
	add(a, "-device");
	add(a, "virtio-9p-pci,fsdev=%s,mount_tag=%s", tag, tag);
}

static int write_file(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* Host file @from (at most 4 KiB: a facts file) as @name in @dir. */
static int copy_file(const char *dir, const char *name, const char *from)
{
	char text[4096];
	FILE *f = fopen(from, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(text, 1, sizeof(text) - 1, f);
	if (ferror(f) || !feof(f)) {
		int err = ferror(f) ? EIO : EFBIG;

		fclose(f);
		errno = err;
		return -1;
	}
	fclose(f);
	text[n] = '\0';
	return write_file(dir, name, text);
}

/* The command travels as a shell script in the ctl share: no kernel command line quoting. */
static char *shell_script(char **argv)
{
	size_t cap = 64, len = 0;
	char *s = malloc(cap);

	if (!s)
		return NULL;
	s[0] = '\0';
	for (int i = 0; argv[i]; i++) {
		size_t need = len + 4 * strlen(argv[i]) + 8;

		if (need > cap) {
			char *t = realloc(s, need * 2);

			if (!t) {
				free(s);
				return NULL;
			}
			s = t;
			cap = need * 2;
		}
		s[len++] = '\'';
		for (const char *p = argv[i]; *p; p++) {
			if (*p == '\'') {
				memcpy(s + len, "'\\''", 4);
				len += 4;
			} else {
				s[len++] = *p;
			}
		}
		s[len++] = '\'';
		s[len++] = argv[i + 1] ? ' ' : '\n';
		s[len] = '\0';
	}
	return s;
}

struct console {
	FILE *log;
	char line[LINE_MAX_LEN];
	size_t len;
	char tail[TAIL_LINES][LINE_MAX_LEN];
	int tail_next, tail_count;
	bool ready, panicked, exit_seen, fatal, verbose;
	bool kernel_spoke;	/* the guest kernel printed a line: QEMU did start it */
	int exit_marker;
	int klog;		/* 0 before the kernel log section, 1 in it, 2 after it */
	bool klog_unreadable;
	const char *splat_kind;	/* the first splat in the kernel log (splat.h), or NULL */
	char splat[LINE_MAX_LEN];
};

/* A line of the kernel log section: scanned, kept in the log file only. Returns true if @l
 * belonged to the section (or marked it). */
static bool klog_line(struct console *c, const char *l)
{
	const char *kind;

	if (!strcmp(l, "SYNTWIN-KLOG-BEGIN") && c->klog == 0) {
		c->klog = 1;
		return true;
	}
	if (c->klog != 1)
		return false;
	if (!strcmp(l, "SYNTWIN-KLOG-END"))
		c->klog = 2;
	else if (!strcmp(l, "SYNTWIN-KLOG-UNREADABLE"))
		c->klog_unreadable = true;
	else if (!c->splat_kind && (kind = splat_kind(l))) {
		c->splat_kind = kind;
		snprintf(c->splat, sizeof(c->splat), "%s", l);
	}
	return true;
}

static void console_line(struct console *c)
{
	char *l = c->line;

	l[c->len] = '\0';
	c->len = 0;
	if (klog_line(c, l))
		return;
	snprintf(c->tail[c->tail_next], LINE_MAX_LEN, "%s", l);
	c->tail_next = (c->tail_next + 1) % TAIL_LINES;
	if (c->tail_count < TAIL_LINES)
		c->tail_count++;
	if (strstr(l, "Kernel panic - not syncing"))
		c->panicked = true;
	/* printk's "[    0.000000] " timestamp, or our init's first marker */
	if ((l[0] == '[' && strchr(l, ']')) || !strcmp(l, "SYNTWIN-READY") || strstr(l, "Linux version"))
		c->kernel_spoke = true;
	if (strcmp(l, "SYNTWIN-READY") == 0) {
		c->ready = true;
		return;
	}
	if (sscanf(l, "SYNTWIN-EXIT %d", &c->exit_marker) == 1) {
		c->exit_seen = true;
		return;
	}
	if (strncmp(l, "SYNTWIN-FATAL", 13) == 0)
		c->fatal = true;
	if (c->ready || c->verbose || c->fatal) {
		puts(l);
		fflush(stdout);
	}
}

static void console_feed(struct console *c, const char *buf, size_t n)
{
	fwrite(buf, 1, n, c->log);
	fflush(c->log);
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '\r')
			continue;
		if (buf[i] == '\n' || c->len == LINE_MAX_LEN - 1) {
			console_line(c);
			continue;
		}
		c->line[c->len++] = buf[i];
	}
}

static void console_tail(const struct console *c, const char *log_path)
{
	int first = (c->tail_next - c->tail_count + TAIL_LINES) % TAIL_LINES;

	fprintf(stderr, "syntwin-vm: last %d console lines (full log: %s):\n", c->tail_count, log_path);
	for (int i = 0; i < c->tail_count; i++)
		fprintf(stderr, "  | %s\n", c->tail[(first + i) % TAIL_LINES]);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int read_status(const char *ctl, int *status)
{
	char path[PATH_MAX];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/status", ctl);
	f = fopen(path, "r");
	if (!f)
		return -1;
	ok = fscanf(f, "%d", status) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

static void remove_ctl(const char *ctl)
{
	static const char *const names[] = { "cmd", "status", "mounts", "tree" };
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", ctl, names[i]);
		unlink(path);
	}
	rmdir(ctl);
}

static void stop_qemu(pid_t pid)
{
	kill(pid, SIGTERM);
	for (int i = 0; i < 20; i++) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return;
		usleep(100000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Reads QEMU's output into the console until the guest reports its exit (and 5 s more for it
 * to reboot), QEMU ends, or @deadline passes. Returns true if the guest timed out. */
static bool pump_console(struct console *con, int fd, double deadline)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		double left = deadline - now_s();
		char buf[8192];
		ssize_t n;
		int rc;

		if (interrupted)
			return false;
		/* The status is reported: give the guest a moment to reboot, then stop QEMU ourselves. */
		if (con->exit_seen && left > 5)
			deadline = now_s() + 5, left = 5;
		if (left <= 0)
			return !con->exit_seen;
		rc = poll(&p, 1, (int)(left * 1000) + 1);
		if (rc <= 0)
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		console_feed(con, buf, n);
	}
}

/* The run's exit status from what the guest reported, or why it reported nothing. */
static int guest_status(struct console *con, const struct runner_opts *o, const char *ctl,
			int status, bool timed_out)
{
	int rc = -1;

	if (interrupted) {
		fprintf(stderr, "syntwin-vm: interrupted; guest stopped\n");
		return 128 + interrupted;
	}
	if (timed_out) {
		fprintf(stderr, "syntwin-vm: error: guest timed out after %d s (--timeout)\n",
			o->timeout_s);
		console_tail(con, o->log);
		return EXIT_TIMEOUT;
	}
	if (read_status(ctl, &rc) == 0 || (con->exit_seen && (rc = con->exit_marker, 1))) {
		if (rc == 127)
			fprintf(stderr, "syntwin-vm: guest command '%s' not found or not executable\n",
				o->cmd[0]);
		return rc;
	}
	if (!con->kernel_spoke && WIFEXITED(status) && WEXITSTATUS(status)) {
		/* QEMU itself failed before the guest kernel printed anything: nothing was tested. */
		fprintf(stderr, "syntwin-vm: error: QEMU failed to start the guest (status %d)\n",
			WEXITSTATUS(status));
		console_tail(con, o->log);
		return EXIT_USAGE;
	}
	if (con->panicked)
		fprintf(stderr, "syntwin-vm: error: guest kernel panic\n");
	else if (!con->ready)
		fprintf(stderr, "syntwin-vm: error: guest never reached userspace%s\n",
			WIFEXITED(status) && WEXITSTATUS(status) ? " (QEMU failed)" : "");
	else
		fprintf(stderr, "syntwin-vm: error: guest stopped without reporting a status\n");
	console_tail(con, o->log);
	return EXIT_GUEST_FAILED;
}

/*
 * A command that ended in a guest whose kernel reported a bug (a splat in its log) fails: exit
 * 1 where the command said 0, the splat named, the console log kept. So does one whose kernel
 * log could not be read, where nothing else failed.
 */
static int splat_status(const struct console *con, const struct runner_opts *o, int rc)
{
	if (con->splat_kind) {
		fprintf(stderr, "syntwin-vm: error: kernel splat (%s): %s\n"
			"syntwin-vm: console log kept: %s\n", con->splat_kind, con->splat, o->log);
		return rc == 0 ? 1 : rc;
	}
	if (rc == 0 && con->exit_seen && (con->klog != 2 || con->klog_unreadable)) {
		fprintf(stderr, "syntwin-vm: error: the guest kernel's log was not read, so no splat "
			"can be ruled out (console log: %s)\n", o->log);
		return 1;
	}
	return rc;
}

int main(int argc, char **argv)
{
	struct runner_opts o;
	struct argv_buf qa = { .n = 0 };
	struct console *con;
	char ctl[] = "/tmp/syntwin-vm.XXXXXX", mounts[64] = "";
	char *script, errbuf[256];
	int pfd[2], status = 0, rc;
	double start = now_s();
	bool timed_out = false;
	pid_t pid;

	if (runner_parse(argc, argv, &o, errbuf, sizeof(errbuf)) < 0) {
		fprintf(stderr, "syntwin-vm: %s\n%s", errbuf, runner_usage);
		return EXIT_USAGE;
	}
	/* A missing or unreadable kernel or image is a setup error, never a guest that failed. */
	if (access(o.kernel, R_OK) || access(o.initrd, R_OK)) {
		fprintf(stderr, "syntwin-vm: error: cannot read %s: %s\n",
			access(o.kernel, R_OK) ? o.kernel : o.initrd, strerror(errno));
		return EXIT_USAGE;
	}
	con = calloc(1, sizeof(*con));
	if (!con || !mkdtemp(ctl)) {
		perror("syntwin-vm: ctl directory");
		return EXIT_GUEST_FAILED;
	}
	con->verbose = o.verbose;
	script = shell_script(o.cmd);
	if (o.share)
		strcat(mounts, "share\n");
	if (o.src)
		strcat(mounts, "src\n");
	if (!script || write_file(ctl, "cmd", script) || write_file(ctl, "mounts", mounts)) {
		perror("syntwin-vm: writing the guest command");
		remove_ctl(ctl);
		return EXIT_GUEST_FAILED;
	}
	if (o.tree && copy_file(ctl, "tree", o.tree)) {
		fprintf(stderr, "syntwin-vm: error: --tree %s: %s\n", o.tree, strerror(errno));
		remove_ctl(ctl);
		return EXIT_USAGE;
	}
	con->log = fopen(o.log, "w");
	if (!con->log) {
		fprintf(stderr, "syntwin-vm: cannot write console log %s: %s\n", o.log, strerror(errno));
		remove_ctl(ctl);
		return EXIT_USAGE;
	}

	machine_args(&qa, &o);
	kernel_args(&qa, &o);
	plan9_arg(&qa, "ctl", ctl, false);
	if (o.share)
		plan9_arg(&qa, "share", o.share, false);
	if (o.src)
		plan9_arg(&qa, "src", o.src, true);

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	if (pipe(pfd) < 0 || (pid = fork()) < 0) {
		perror("syntwin-vm: starting QEMU");
		remove_ctl(ctl);
		return EXIT_GUEST_FAILED;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);

		dup2(devnull, 0);
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		execvp(qa.v[0], qa.v);
		fprintf(stderr, "SYNTWIN-FATAL cannot run %s: %s\n", qa.v[0], strerror(errno));
		_exit(127);
	}
	close(pfd[1]);

	timed_out = pump_console(con, pfd[0], start + o.timeout_s);
	if (con->len)
		console_line(con);
	if (timed_out || interrupted || con->exit_seen)
		stop_qemu(pid);
	else
		waitpid(pid, &status, 0);
	fclose(con->log);
	rc = guest_status(con, &o, ctl, status, timed_out);
	rc = splat_status(con, &o, rc);
	if (o.verbose)
		fprintf(stderr, "syntwin-vm: %.1f s, exit %d\n", now_s() - start, rc);
	remove_ctl(ctl);
	free(script);
	free(con);
	return rc;
}
