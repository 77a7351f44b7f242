// SPDX-License-Identifier: GPL-2.0
/*
 * The socket-knob generator's options (sock_gen.h): their defaults, each option by name, the
 * checks after the last, the selection of a rerun or shard and the count it makes.
 */
#include <stdio.h>
#include <string.h>

#include "parse_num.h"
#include "sock_gen.h"
#include "topology.h"

const char sock_gen_usage[] =
	"  --connections N --seed S --netns NAME --mix default|plain --parallel K --active\n"
	"  --small-buffer-permille P --syncookie-tail N [--syncookie-at I] --server4 A --server6 A\n"
	"  --rerun JSONL --shard I/N --count\n"
	"  --test-reset I  TEST ONLY: connection #I waits for the server's reset before it is\n"
	"                  checked (the server resets it: syntwin-server --test-reset I)\n";

void sock_gen_opts_init(struct sock_gen_opts *o)
{
	*o = (struct sock_gen_opts){ .cookie_at = -1, .test_reset = -1, .n = 1000, .seed = 1,
				     .small = 50, .parallel = 1, .netns = "client",
				     .s4 = TOPO_SERVER4, .s6 = TOPO_SERVER6,
				     .mix = &knob_mix_default };
}

bool sock_gen_flag(struct sock_gen_opts *o, const char *name)
{
	if (!strcmp(name, "active"))
		o->active = true;
	else if (!strcmp(name, "count"))
		o->count = true;
	else
		return false;
	return true;
}

static int opt_index(const char *a, const char *v, int64_t *to, char *err, size_t len)
{
	uint64_t at;
	int rc = parse_u64_range(a, v, 0, 100000000, &at, err, len);

	*to = (int64_t)at;
	return rc;
}

int sock_gen_opt(struct sock_gen_opts *o, const char *name, const char *v, char *err, size_t len)
{
	char a[64];
	int rc = 0;

	snprintf(a, sizeof(a), "--%s", name);
	if (!strcmp(name, "connections"))
		rc = parse_u64_range(a, v, 1, 100000000, &o->n, err, len);
	else if (!strcmp(name, "seed"))
		rc = parse_u64_range(a, v, 0, UINT64_MAX, &o->seed, err, len);
	else if (!strcmp(name, "small-buffer-permille"))
		rc = parse_u64_range(a, v, 0, 1000, &o->small, err, len);
	else if (!strcmp(name, "parallel"))
		rc = parse_u64_range(a, v, 1, SOCK_GEN_MAX_PARALLEL, &o->parallel, err, len);
	else if (!strcmp(name, "syncookie-tail"))
		rc = parse_u64_range(a, v, 0, 100000000, &o->cookie_tail, err, len);
	else if (!strcmp(name, "syncookie-at"))
		rc = opt_index(a, v, &o->cookie_at, err, len);
	else if (!strcmp(name, "test-reset"))
		rc = opt_index(a, v, &o->test_reset, err, len);
	else if (!strcmp(name, "mix") && (!strcmp(v, "default") || !strcmp(v, "plain")))
		o->mix = !strcmp(v, "plain") ? &knob_mix_plain : &knob_mix_default;
	else if (!strcmp(name, "netns"))
		o->netns = v;
	else if (!strcmp(name, "rerun"))
		o->rerun = v;
	else if (!strcmp(name, "shard"))
		o->shard = v;
	else if (!strcmp(name, "server4"))
		o->s4 = v;
	else if (!strcmp(name, "server6"))
		o->s6 = v;
	else
		return 0;
	return rc ? -1 : 1;
}

int sock_gen_opts_check(struct sock_gen_opts *o, char *err, size_t len)
{
	if (o->cookie_at < 0)
		o->cookie_at = (int64_t)(o->n - (o->cookie_tail > o->n ? o->n : o->cookie_tail));
	if ((uint64_t)o->cookie_at + o->cookie_tail <= o->n)
		return 0;
	snprintf(err, len, "--syncookie-at %lld + --syncookie-tail %llu exceeds --connections",
		 (long long)o->cookie_at, (unsigned long long)o->cookie_tail);
	return -1;
}

int sock_gen_selection(const struct sock_gen_opts *o, struct rerun_set *only)
{
	char err[128];

	*only = (struct rerun_set){ 0 };
	if (o->rerun && rerun_load(o->rerun, "sockets", only))
		return -1;
	if (o->shard && shard_parse(o->shard, only, err, sizeof(err))) {
		fprintf(stderr, "syntwin: sockets: %s\n", err);
		return -1;
	}
	return 0;
}

int sock_gen_count(const struct sock_gen_opts *o, uint64_t *count)
{
	struct rerun_set only;
	uint64_t end;

	if (sock_gen_selection(o, &only))
		return -1;
	/* a rerun's selection is the earlier run's indexes; a shard's is a slice of --connections */
	end = only.from_run ? only.n : o->n;
	*count = 0;
	for (uint64_t j = 0; j < end; j++)
		*count += rerun_has(&only, only.from_run ? only.idx[j] : j);
	return 0;
}

