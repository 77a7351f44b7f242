// SPDX-License-Identifier: GPL-2.0
/* Whether kmalloc caches share their objects with other caches (slab_merge.h). */
#include "slab_merge.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Does command-line word @tok name parameter @name, as the kernel matches a __setup() one
 * (init/main.c: obsolete_checksetup(), parameqn()): its first strlen(@name) characters, '-'
 * and '_' alike, whatever follows ("slab_nomerge=1" is slab_nomerge). */
static bool param_is(const char *tok, const char *name)
{
	size_t i;

	for (i = 0; name[i]; i++) {
		char c = tok[i] == '-' ? '_' : tok[i];

		if (c != name[i])
			return false;
	}
	return true;
}

/* The first line of file @path into @buf; 0, or -1 if it cannot be read. */
static int first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int err;

	if (!f)
		return -1;
	err = fgets(buf, (int)len, f) ? 0 : -1;
	fclose(f);
	return err;
}

/* The command line's last say on merging: 1 off, 0 on (or nothing said: the kernel's default,
 * which this does not assume), -1 unreadable. Words after "--" are init's, not the kernel's. */
static int cmdline_nomerge(const char *path)
{
	char buf[4096], *tok, *save;
	int off = 0;

	if (first_line(path, buf, sizeof(buf)))
		return -1;
	for (tok = strtok_r(buf, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		if (!strcmp(tok, "--"))
			break;
		if (param_is(tok, "slab_nomerge") || param_is(tok, "slub_nomerge"))
			off = 1;
		else if (param_is(tok, "slab_merge") || param_is(tok, "slub_merge"))
			off = 0;
	}
	return off;
}

/* A kmalloc cache's name: kmalloc-96, kmalloc-rcl-96, kmalloc-cg-96, kmalloc-rnd-01-96,
 * dma-kmalloc-96. */
static bool kmalloc_cache(const char *name)
{
	return !strncmp(name, "kmalloc-", 8) || !strncmp(name, "dma-kmalloc-", 12);
}

/* @dir/@name/aliases as a number, or -1. */
static long cache_aliases(const char *dir, const char *name)
{
	char path[512], buf[32], *end;
	long v;

	snprintf(path, sizeof(path), "%s/%s/aliases", dir, name);
	if (first_line(path, buf, sizeof(buf)))
		return -1;
	v = strtol(buf, &end, 10);
	return end == buf || v < 0 ? -1 : v;
}

bool slab_caches_may_merge(const char *cmdline, const char *slab_dir, char *why, size_t len)
{
	int off = cmdline_nomerge(cmdline), caches = 0;
	struct dirent *e;
	DIR *d;

	if (off != 1) {
		snprintf(why, len, off < 0 ? "%s is not readable" :
			 "%s does not turn slab merging off (no slab_nomerge, or a slab_merge after it)",
			 cmdline);
		return true;
	}
	d = opendir(slab_dir);
	if (!d) {
		snprintf(why, len, "no %s to show the kmalloc caches unmerged", slab_dir);
		return true;
	}
	while ((e = readdir(d))) {
		long n;

		if (!kmalloc_cache(e->d_name))
			continue;
		n = cache_aliases(slab_dir, e->d_name);
		if (n != 0) {
			snprintf(why, len, n < 0 ? "%s/%s/aliases is not readable" :
				 "%s/%s has aliases", slab_dir, e->d_name);
			closedir(d);
			return true;
		}
		caches++;
	}
	closedir(d);
	if (!caches) {
		snprintf(why, len, "no kmalloc cache in %s", slab_dir);
		return true;
	}
	snprintf(why, len, "slab_nomerge, no alias in %d kmalloc caches", caches);
	return false;
}
