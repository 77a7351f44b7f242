// SPDX-License-Identifier: GPL-2.0
/* /proc/slabinfo readers (see slabinfo.h). */
#include "slabinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>


/* Best effort: a cache without a sysfs entry (or a kernel without SLUB sysfs) is read as is. */
static void shrink(const char *name)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink", name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, "1", 1) < 0) {
		/* nothing to do: the reading is then slightly high, never wrong in sign */
	}
	close(fd);
}

/* Calls @fn for each cache line; returns 0, or -1 if /proc/slabinfo cannot be read. */
static int each_cache(void (*fn)(const struct slab_cache *, void *), void *arg)
{
	char buf[512];
	FILE *f = fopen("/proc/slabinfo", "re");

	if (!f)
		return -1;
	while (fgets(buf, sizeof(buf), f)) {
		struct slab_cache l;
		long long num;

		/* "name <active_objs> <num_objs> <objsize> ..."; header lines do not parse */
		if (sscanf(buf, "%63s %lld %lld %lld", l.name, &l.active, &num, &l.objsize) != 4)
			continue;
		fn(&l, arg);
	}
	fclose(f);
	return 0;
}

struct read_arg {
	const char *prefix;
	struct slab_cache *out;
	int max, n, pass;
};

static void read_line(const struct slab_cache *l, void *arg)
{
	struct read_arg *a = arg;

	if (strncmp(l->name, a->prefix, strlen(a->prefix)))
		return;
	if (a->pass == 0)
		shrink(l->name);
	else if (a->n < a->max)
		a->out[a->n++] = *l;
}

int slab_read(const char *prefix, struct slab_cache *out, int max)
{
	struct read_arg a = { .prefix = prefix, .out = out, .max = max };

	if (each_cache(read_line, &a) < 0)
		return -1;
	a.pass = 1;
	if (each_cache(read_line, &a) < 0)
		return -1;
	return a.n;
}

/* Enough for every cache of the guest's kernel (about 150); more would be summed short. */
#define MAX_CACHES 1024

long long slab_bytes(const char *prefix)
{
	static struct slab_cache c[MAX_CACHES];
	int n = slab_read(prefix, c, MAX_CACHES);
	long long bytes = 0;

	for (int i = 0; i < n; i++)
		bytes += c[i].active * c[i].objsize;
	return n < 0 ? -1 : bytes;
}
