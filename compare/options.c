// SPDX-License-Identifier: GPL-2.0
/* syntwin-server's options and plan (options.h). */
#define _GNU_SOURCE
#include "options.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "parse_num.h"
#include "point_names.h"

static const char usage[] =
	"usage: syntwin-server --out DIR --run-connections N --provides FILE --tree FILE\n"
	"                      [--seed S] [--run-mix MIX] [--run-rerun JSONL] [--run-parallel K]\n"
	"                      [--shard I/N] [--series-hash H] [--rerun-of DIR] [--hex-all]\n"
	"                      [--p0f-db FILE] [--netem SPEC] [--netem-back SPEC]\n"
	"                      [--generated-file F] [--test-corrupt K] [--test-corrupt-covered]\n"
	"                      [--test-reset I] [--test-fault kill-server|panic --test-fault-after N]\n"
	"                      [--capture-points LIST --point-devs DEVS] [--test-corrupt-point P:K]\n"
	"  --run-connections N  plan a run of N connections (plan.json; the seed, shard and --out\n"
	"                    are this server's) and make it: the planned handshakes, the crafted\n"
	"                    phase or the replay, the socket connections\n"
	"  --provides FILE   what the kernel's series declares it implements (common/provides.h):\n"
	"                    the SYN-ACK save (the active direction), its counters; /dev/null\n"
	"                    declares nothing\n"
	"  --tree FILE       the kernel tree the run built (compare/tree_facts.h): its version\n"
	"                    and the options the drop rules depend on (/mnt/ctl/tree)\n"
	"  --generated-file F  written when every generator is done: the uptime then (timing)\n"
	"  --hex-all         both byte strings in every JSONL record, not only differing ones\n"
	"  --p0f-db FILE     p0f's database for the records' p0f labels (/etc/p0f/p0f.fp)\n"
	"  --netem SPEC, --netem-back SPEC  the tc netem faults on the client->server and\n"
	"                    server->client paths, as run-guest.sh set them (summary)\n"
	"  --capture-points LIST  the capture points beside tc compared with the kernel's copy:\n"
	"                    xdp, tcp, wire (or all); the BPF points attached by the loader\n"
	"  --point-devs DEVS the server's devices, comma-separated (XDP's, the wire's capture)\n"
	"  --test-corrupt-point P:K  TEST ONLY: flip one byte of every K-th copy point P has\n"
	"  --test-corrupt K  TEST ONLY: flip one byte of every K-th BPF record with a native copy\n"
	"  --test-reset I    TEST ONLY: reset the child of socket connection #I (SO_LINGER 0)\n"
	"  --test-corrupt-covered  TEST ONLY: make the kernel's copy wrong inside each region an\n"
	"                    explanation covers (corrupt_covered()); every such record must fail\n"
	"  --test-fault F    TEST ONLY: once N records are on disk, SIGKILL this process or panic\n"
	"                    the guest (sysrq), at that exact point\n";

/* After the plan: the socket generator checks the active direction and resets as the server
 * expects them. Returns 0, or -1 (printed). */
static int sockets_check(struct opts *o)
{
	char err[256];

	o->gen.active = o->active > 0;
	o->gen.test_reset = o->test_reset;
	if (!o->sockets || !sock_gen_opts_check(&o->gen, err, sizeof(err)))
		return 0;
	fprintf(stderr, "syntwin-server: sockets: %s\n", err);
	return -1;
}

/* The options whose value is a string, kept as given. */
static const struct {
	const char *name;
	size_t off;
} text_opts[] = {
	{ "--out", offsetof(struct opts, out) },
	{ "--series-hash", offsetof(struct opts, series_hash) },
	{ "--generated-file", offsetof(struct opts, generated_file) },
	{ "--provides", offsetof(struct opts, provides) },
	{ "--tree", offsetof(struct opts, tree_file) },
	{ "--run-mix", offsetof(struct opts, run.mix) },
	{ "--run-rerun", offsetof(struct opts, run.rerun) },
	{ "--rerun-of", offsetof(struct opts, rerun_of) },
	{ "--p0f-db", offsetof(struct opts, p0f_db) },
	{ "--netem", offsetof(struct opts, netem) },
	{ "--netem-back", offsetof(struct opts, netem_back) },
	{ "--point-devs", offsetof(struct opts, point_devs) },
};

/* --test-corrupt-point P:K (TEST ONLY). Returns 0 or -1 (@err). */
static int test_point_option(struct opts *o, const char *v, char *err, size_t len)
{
	size_t n = strcspn(v, ":");
	unsigned int mask;
	char name[16];

	snprintf(name, sizeof(name), "%.*s", (int)(n < 15 ? n : 15), v);
	if (!v[n] || points_parse(name, &mask, err, len) || !(mask & ~(1u << PT_TC)) ||
	    (mask & ~(1u << PT_TC) & ((mask & ~(1u << PT_TC)) - 1))) {
		snprintf(err, len, "--test-corrupt-point: '%s' is not POINT:K with one point beside "
			 "tc", v);
		return -1;
	}
	o->test_point = __builtin_ctz(mask & ~(1u << PT_TC));
	return parse_u64_range("--test-corrupt-point", v + n + 1, 1, UINT64_MAX,
			       &o->test_point_every, err, len) ? -1 : 0;
}

/* Option @a with value @v. Returns 0, 1 not an option of this server, or -1 (@err). */
static int value_option(struct opts *o, const char *a, const char *v, char *err, size_t len)
{
	uint64_t idx;
	int rc;

	for (size_t i = 0; i < sizeof(text_opts) / sizeof(text_opts[0]); i++) {
		if (!strcmp(a, text_opts[i].name)) {
			*(const char **)((char *)o + text_opts[i].off) = v;
			return 0;
		}
	}
	if (!strcmp(a, "--shard"))
		o->shard = strcmp(v, "-") ? v : "";
	else if (!strcmp(a, "--run-connections"))
		return parse_u64_range(a, v, 1, 100000000, &o->run.connections, err, len) ? -1 : 0;
	else if (!strcmp(a, "--run-parallel"))
		return parse_u64_range(a, v, 1, SOCK_GEN_MAX_PARALLEL, &o->run.parallel, err, len) ?
		       -1 : 0;
	else if (!strcmp(a, "--seed"))
		return parse_u64_range(a, v, 0, UINT64_MAX, &o->seed, err, len) ? -1 : 0;
	else if (!strcmp(a, "--test-fault-after"))
		return parse_u64_range(a, v, 1, UINT64_MAX, &o->test_fault_after, err, len) ? -1 : 0;
	else if (!strcmp(a, "--test-fault") && (!strcmp(v, "kill-server") || !strcmp(v, "panic")))
		o->test_fault = v;
	else if (!strcmp(a, "--capture-points"))
	{
		rc = points_parse(v, &o->points, err, len);
		o->points |= 1u << PT_TC; /* the witness is always one */
		return rc ? -1 : 0;
	}
	else if (!strcmp(a, "--test-corrupt-point"))
		return test_point_option(o, v, err, len);
	else if (!strcmp(a, "--test-corrupt"))
		return parse_u64_range(a, v, 1, UINT64_MAX, &o->test_corrupt, err, len) ? -1 : 0;
	else if (!strcmp(a, "--test-reset")) {
		rc = parse_u64_range(a, v, 0, 100000000, &idx, err, len);
		o->test_reset = (int64_t)idx;
		return rc ? -1 : 0;
	} else {
		return 1;
	}
	return 0;
}

/* After the options: what is required, the files they name read. Returns 0, or -1 (printed). */
static int options_check(struct opts *o)
{
	char err[512];

	if (!o->out) {
		fprintf(stderr, "syntwin-server: --out is required\n%s", usage);
		return -1;
	}
	if (!o->run.connections || !o->provides) {
		fprintf(stderr, "syntwin-server: --run-connections and --provides are required (the "
			"series' declaration; /dev/null declares nothing)\n%s", usage);
		return -1;
	}
	if (provides_load(o->provides, &o->decl, err, sizeof(err))) {
		fprintf(stderr, "syntwin-server: --provides %s\n", err);
		return -1;
	}
	if (!o->tree_file) {
		fprintf(stderr, "syntwin-server: --tree is required (the kernel tree's facts: "
			"which drop rules hold)\n");
		return -1;
	}
	if (tree_facts_load(o->tree_file, &o->tree, err, sizeof(err))) {
		fprintf(stderr, "syntwin-server: --tree %s\n", err);
		return -1;
	}
	if ((o->points & ~(1u << PT_TC)) && !o->point_devs) {
		fprintf(stderr, "syntwin-server: --capture-points needs --point-devs\n");
		return -1;
	}
	if (o->test_point_every && !(o->points & (1u << o->test_point))) {
		fprintf(stderr, "syntwin-server: --test-corrupt-point: that point is not in "
			"--capture-points\n");
		return -1;
	}
	if (!o->test_fault != !o->test_fault_after) {
		fprintf(stderr, "syntwin-server: --test-fault and --test-fault-after go together\n");
		return -1;
	}
	return 0;
}

int options_parse(int argc, char **argv, struct opts *o)
{
	struct sock_gen_opts gen;
	char err[512];

	sock_gen_opts_init(&gen);
	*o = (struct opts){ .gen = gen, .run = { .mix = "default", .parallel = 1 },
			    .series_hash = "", .mix = "", .rerun_of = "",
			    .p0f_db = "/etc/p0f/p0f.fp", .shard = "", .netem = "", .netem_back = "",
			    .seed = 1, .test_reset = -1, .points = 1u << PT_TC };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int rc;

		if (!strcmp(a, "--hex-all") || !strcmp(a, "--test-corrupt-covered")) {
			*(a[2] == 'h' ? &o->hex_all : &o->test_corrupt_covered) = true;
			continue;
		}
		if (!v) {
			fprintf(stderr, "syntwin-server: %s: missing value\n%s", a, usage);
			return -1;
		}
		rc = value_option(o, a, v, err, sizeof(err));
		if (rc > 0)
			fprintf(stderr, "syntwin-server: unknown option '%s'\n%s", a, usage);
		else if (rc < 0)
			fprintf(stderr, "syntwin-server: %s\n", err);
		if (rc)
			return -1;
		i++;
	}
	return options_check(o);
}

/*
 * The driver's plan (driver.h) turned into this server's options: what it waits for, the
 * planned handshakes, the crafted phase and the socket generator. Returns 0, or -1 (printed).
 */
int options_plan(struct opts *o, struct plan *p)
{
	static char replay_file[4200];
	struct driver_args *a = &o->run;
	struct plan_input in;
	char err[256];

	a->seed = o->seed;
	a->out = o->out;
	/* what is tested comes from the series' declaration, never from the kernel */
	a->active = o->decl.synack_save;
	a->declared = &o->decl;
	a->shard = o->shard[0] ? o->shard : NULL;
	a->tree = o->tree_file;
	if (driver_plan(a, &in, p))
		return -1;
	o->mix = a->mix;
	o->connections = p->expect;
	o->active = p->expect_active;
	o->held_back = p->held_back;
	o->abandoned = p->abandoned;
	o->dup_synack = p->dup_synack;
	o->crafted = (struct crafted_opts){ .n = { p->crafted, p->fuzz, p->tap, p->replay },
					    .seed = { o->seed, p->seed_fuzz, p->seed_tap, o->seed },
					    .rerun = a->rerun, .shard = a->shard, .tree = &o->tree };
	o->planned_seed = p->seed_planned;
	if (!strcmp(a->mix, "replay")) {
		snprintf(replay_file, sizeof(replay_file), "%s/replay.pcap", a->out);
		o->crafted.replay = replay_file;
		if (!p->replay)
			printf("replay: no SYNs in this file, nothing to compare\n");
	}
	o->sockets = p->sockets > 0;
	if (!o->sockets)
		return sockets_check(o);
	o->gen.n = p->sockets;
	o->gen.seed = o->seed;
	o->gen.cookie_tail = p->cookie_tail;
	o->gen.cookie_at = (int64_t)p->cookie_at;
	o->gen.parallel = a->parallel;
	o->gen.rerun = a->rerun;
	o->gen.shard = a->shard;
	if (sock_gen_opt(&o->gen, "mix", p->client_mix, err, sizeof(err)) != 1) {
		fprintf(stderr, "syntwin-server: the plan's client mix '%s'\n", p->client_mix);
		return -1;
	}
	printf("client: %llu connections, %llu of them from number %llu on with syncookies "
	       "forced%s\n", (unsigned long long)p->sockets, (unsigned long long)p->cookie_tail,
	       (unsigned long long)p->cookie_at, o->active ? "; active direction checked" : "");
	return sockets_check(o);
}
