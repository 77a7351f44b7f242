// SPDX-License-Identifier: GPL-2.0
/* What the witness needs of the kernel (witness_features.h). */
#include "witness_features.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* tp_btf/kfree_skb's arguments are btf_trace_kfree_skb's after its first (void *): the
 * reason is the fourth parameter, an enum skb_drop_reason (5.17 on; before, skb and location
 * only). */
static bool has_drop_reason(const struct btf *btf)
{
	const struct btf_type *t, *p;
	const struct btf_param *par;
	int id;

	if (!btf)
		return false;
	id = btf__find_by_name_kind(btf, "btf_trace_kfree_skb", BTF_KIND_TYPEDEF);
	t = id > 0 ? btf__type_by_id(btf, (__u32)id) : NULL;
	t = t ? btf__type_by_id(btf, t->type) : NULL;
	if (!t || !btf_is_ptr(t))
		return false;
	p = btf__type_by_id(btf, t->type);
	if (!p || !btf_is_func_proto(p) || btf_vlen(p) < 4)
		return false;
	par = btf_params(p) + 3;
	t = btf__type_by_id(btf, btf__resolve_type(btf, par->type));
	return t && btf_is_enum(t) &&
	       !strcmp(btf__name_by_offset(btf, t->name_off), "skb_drop_reason");
}

/* SYNTWIN_WITNESS_WITHOUT (a comma-separated list of witness_feature_keys) into @out[]:
 * true for each named. Returns -1 for a name that is no feature's. */
static int withheld(bool *out)
{
	const char *w = getenv("SYNTWIN_WITNESS_WITHOUT");

	for (const char *p = w; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		size_t n = strcspn(p, ","), i;

		for (i = 0; i < WF_MAX; i++)
			if (strlen(witness_feature_keys[i]) == n &&
			    !strncmp(p, witness_feature_keys[i], n))
				break;
		if (i == WF_MAX) {
			fprintf(stderr, "syntwin: SYNTWIN_WITNESS_WITHOUT: '%.*s' is no witness "
				"feature (ring_buffer, drop_reasons, trampolines, lookup_and_delete)\n", (int)n, p);
			return -1;
		}
		out[i] = true;
	}
	return 0;
}

int witness_features_of(const struct btf *btf, bool ringbuf, bool tracing, bool take,
			struct witness_features *out)
{
	bool held[WF_MAX] = { false };

	out->have[WF_TAKE] = take;
	out->have[WF_RINGBUF] = ringbuf;
	out->have[WF_DROP_REASON] = has_drop_reason(btf);
	out->have[WF_TRAMPOLINE] = tracing && btf &&
				   btf__find_by_name_kind(btf, "tcp_rcv_state_process",
							  BTF_KIND_FUNC) > 0;
	if (withheld(held))
		return -1;
	for (int i = 0; i < WF_MAX; i++)
		if (held[i])
			out->have[i] = false;
	return 0;
}

/* A hash map's lookup-and-delete (5.14; before it, queues and stacks only): on a map of our
 * own, an absent key says ENOENT where the command is there. */
static bool lookup_and_delete_works(void)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, "syntwin_probe", 4, 4, 1, NULL);
	__u32 k = 0, v;
	bool ok;

	if (fd < 0)
		return false;
	ok = bpf_map_lookup_and_delete_elem(fd, &k, &v) && errno == ENOENT;
	close(fd);
	return ok;
}

int witness_features_here(struct witness_features *out)
{
	struct btf *btf = btf__load_vmlinux_btf();
	int err;

	/* libbpf's tracing probe proves the verifier has fentry (its attach is proved where
	 * the follower attaches, which fails the attach by name) */
	err = witness_features_of(btf, libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) > 0,
				  libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_TRACING, NULL) > 0,
				  lookup_and_delete_works(), out);
	btf__free(btf);
	return err;
}

void witness_features_line(const struct witness_features *f, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (int i = 0; i < WF_MAX && used < len; i++)
		if (f->have[i])
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
						 witness_feature_names[i]);
	if (!buf[0])
		snprintf(buf, len, "none");
}
