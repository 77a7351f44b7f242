// SPDX-License-Identifier: GPL-2.0
/* /proc/slabinfo readers (see slabinfo.h). */
#include "slabinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define slab_line slab_cache

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
static int each_cache(void (*fn)(const struct slab_line *, void *), void *arg)
{
	char buf[512];
	FILE *f = fopen("/proc/slabinfo", "re");

	if (!f)
		return -1;
	while (fgets(buf, sizeof(buf), f)) {
		struct slab_line l;
		long long num;

		/* "name <active_objs> <num_objs> <objsize> ..."; header lines do not parse */
		if (sscanf(buf, "%63s %lld %lld %lld", l.name, &l.active, &num, &l.objsize) != 4)
			continue;
		fn(&l, arg);
	}
	fclose(f);
	return 0;
}

struct sum_arg {
	const char *prefix;
	long long bytes;
	int pass;
};

static void sum_line(const struct slab_line *l, void *arg)
{
	struct sum_arg *a = arg;

	if (strncmp(l->name, a->prefix, strlen(a->prefix)))
		return;
	if (a->pass == 0)
		shrink(l->name);
	else
		a->bytes += l->active * l->objsize;
}

long long slab_bytes(const char *prefix)
{
	struct sum_arg a = { .prefix = prefix };

	if (each_cache(sum_line, &a) < 0)
		return -1;
	a.pass = 1;
	if (each_cache(sum_line, &a) < 0)
		return -1;
	return a.bytes;
}

struct find_arg {
	const char *name;
	long long objects;
};

static void find_line(const struct slab_line *l, void *arg)
{
	struct find_arg *a = arg;

	if (!strcmp(l->name, a->name))
		a->objects = l->active;
}

long long slab_objects(const char *name)
{
	struct find_arg a = { .name = name, .objects = -1 };

	shrink(name);
	if (each_cache(find_line, &a) < 0)
		return -1;
	return a.objects;
}

struct read_arg {
	const char *prefix;
	struct slab_cache *out;
	int max, n, pass;
};

static void read_line(const struct slab_line *l, void *arg)
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
