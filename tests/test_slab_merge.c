// SPDX-License-Identifier: GPL-2.0
/*
 * loader/slab_merge.c: kmem_cache_alloc's twin may stay detached only when the command
 * line turns slab merging off (read as the kernel reads it) and no kmalloc cache has an alias;
 * every other case (merging on, undone by a later slab_merge, an alias, an unreadable aliases
 * file, no sysfs, no kmalloc cache) keeps the twin, each beside the case it must not be taken
 * for.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "slab_merge.h"

static char root[] = "/tmp/syntwin-slab-XXXXXX";
static char cmdline[300], slab[300];

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(2);
	}
}

/* a cache directory @name under the slab dir with @aliases ("" for no aliases file) */
static void cache(const char *name, const char *aliases)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", slab, name);
	mkdir(p, 0755);
	if (*aliases) {
		snprintf(p, sizeof(p), "%s/%s/aliases", slab, name);
		put(p, aliases);
	}
}

static bool merge(const char *line, char *why, size_t len)
{
	put(cmdline, line);
	return slab_caches_may_merge(cmdline, slab, why, len);
}

int main(void)
{
	char why[200], cmd[400];

	if (!mkdtemp(root))
		return 2;
	snprintf(cmdline, sizeof(cmdline), "%s/cmdline", root);
	snprintf(slab, sizeof(slab), "%s/slab", root);
	mkdir(slab, 0755);
	cache("kmalloc-96", "0\n");
	cache("kmalloc-128", "0\n");
	cache("dentry", "3\n");		/* not a kmalloc cache: its aliases do not matter */

	CHECK(!merge("console=ttyS0 slab_nomerge loglevel=4\n", why, sizeof(why)), "%s", why);
	CHECK_STR_CONTAINS(why, "slab_nomerge, no alias in 2 kmalloc caches");
	CHECK(!merge("slub_nomerge\n", why, sizeof(why)), "%s", why);
	/* merging on: no word, the word undone later, or a word that only looks like it */
	CHECK(merge("console=ttyS0\n", why, sizeof(why)), "%s", why);
	CHECK_STR_CONTAINS(why, "does not turn slab merging off");
	CHECK(merge("slab_nomerge slab_merge\n", why, sizeof(why)), "%s", why);
	CHECK(merge("slab_nomerge slub_merge\n", why, sizeof(why)), "%s", why);
	CHECK(!merge("slab_merge slab_nomerge\n", why, sizeof(why)), "%s", why);
	CHECK(merge("xslab_nomerge slab_nomerg\n", why, sizeof(why)), "%s", why);
	/* the kernel's own matching: a prefix, '-' as '_', nothing after "--" (init's words) */
	CHECK(!merge("slab_nomerge=1\n", why, sizeof(why)), "%s", why);
	CHECK(!merge("slab-nomerge\n", why, sizeof(why)), "%s", why);
	CHECK(merge("slab_nomerge slab-merge\n", why, sizeof(why)), "%s", why);
	CHECK(merge("slab_nomerge slub-merge=0\n", why, sizeof(why)), "%s", why);
	CHECK(merge("-- slab_nomerge\n", why, sizeof(why)), "%s", why);
	CHECK(!merge("slab_nomerge -- slab_merge\n", why, sizeof(why)), "%s", why);
	/* an alias on any kmalloc cache, of any kind */
	cache("kmalloc-cg-192", "1\n");
	CHECK(merge("slab_nomerge\n", why, sizeof(why)), "%s", why);
	CHECK_STR_CONTAINS(why, "kmalloc-cg-192 has aliases");
	put(strcat(strcpy(cmd, slab), "/kmalloc-cg-192/aliases"), "0\n");
	CHECK(!merge("slab_nomerge\n", why, sizeof(why)), "%s", why);
	CHECK_STR_CONTAINS(why, "no alias in 3 kmalloc caches");
	cache("dma-kmalloc-64", "2\n");
	CHECK(merge("slab_nomerge\n", why, sizeof(why)), "%s", why);
	put(strcat(strcpy(cmd, slab), "/dma-kmalloc-64/aliases"), "0\n");
	/* an aliases file that cannot be read or is no number */
	cache("kmalloc-rnd-01-32", "");
	CHECK(merge("slab_nomerge\n", why, sizeof(why)), "%s", why);
	CHECK_STR_CONTAINS(why, "kmalloc-rnd-01-32/aliases is not readable");
	put(strcat(strcpy(cmd, slab), "/kmalloc-rnd-01-32/aliases"), "many\n");
	CHECK(merge("slab_nomerge\n", why, sizeof(why)), "%s", why);
	put(strcat(strcpy(cmd, slab), "/kmalloc-rnd-01-32/aliases"), "0\n");
	CHECK(!merge("slab_nomerge\n", why, sizeof(why)), "%s", why);
	CHECK_STR_CONTAINS(why, "no alias in 5 kmalloc caches");
	/* no command line, no sysfs, no kmalloc cache in it */
	CHECK(slab_caches_may_merge("/nonexistent/cmdline", slab, why, sizeof(why)), "%s", why);
	CHECK_STR_CONTAINS(why, "is not readable");
	put(cmdline, "slab_nomerge\n");
	CHECK(slab_caches_may_merge(cmdline, "/nonexistent/slab", why, sizeof(why)), "%s", why);
	CHECK_STR_CONTAINS(why, "no /nonexistent/slab");
	CHECK(slab_caches_may_merge(cmdline, root, why, sizeof(why)), "%s", why);
	CHECK_STR_CONTAINS(why, "no kmalloc cache in");

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		return 2;
	return check_report("slab_merge");
}
