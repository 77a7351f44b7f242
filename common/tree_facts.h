/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the listener path's drop rules (unbound.h) need to know of the kernel tree the run
 * built: its version and the build options a rule depends on. It comes from the build on the
 * host (vm/lib.sh's tree_facts: the tree's `make kernelrelease` and its .config), never from
 * the kernel under test, and reaches the guest as a file of the ctl share (/mnt/ctl/tree). A
 * rule that differs between versions (6.12's TCP_AUTH_HDR) holds on the tree's version only:
 * a 6.1 kernel that drops what 6.1 accepts is not explained by a 6.12 rule. One fact a line:
 *
 *   version MAJOR.MINOR   the tree's version (6.1, 6.12)
 *   tcp_ao y|n            CONFIG_TCP_AO (the auth-option parse's shortcut length)
 */
#ifndef SYNTWIN_TREE_FACTS_H
#define SYNTWIN_TREE_FACTS_H

#include <stdbool.h>
#include <stddef.h>

struct json_out;

struct tree_facts {
	unsigned int major, minor;
	bool tcp_ao;
};

/* @text (NUL-terminated) into @t: both facts, each once. Returns 0, or -1 with the line and
 * what is wrong in @err. */
int tree_facts_parse(const char *text, struct tree_facts *t, char *err, size_t errlen);
/* The file @path into @t. Returns 0, or -1 (@err: cannot read it, or tree_facts_parse's). */
int tree_facts_load(const char *path, struct tree_facts *t, char *err, size_t errlen);
/* Is the tree version @major.@minor or later? */
bool tree_at_least(const struct tree_facts *t, unsigned int major, unsigned int minor);
/* @t as an object named @key of @j: {"version": "6.12", "tcp_ao": false}. */
void tree_facts_json(struct json_out *j, const char *key, const struct tree_facts *t);

#endif
