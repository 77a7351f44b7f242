// SPDX-License-Identifier: GPL-2.0
/*
 * syntwin-loader: attach the BPF witness (tc clsact ingress on devices + cgroup sockops), detach
 * it, and read what it captured. Everything is pinned under CAPTURE_PIN_DIR so other processes
 * (the comparator, a later loader call) find the maps; detach removes only what attach created.
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if_arp.h>
#include <linux/magic.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "capture_client.h"
#include "hex.h"
#include "ingress_devs.h"
#include "loader_opts.h"
#include "net_helpers.h"
#include "point_names.h"
#include "points_attach.h"
#include "saved_syn_mem.h"
#include "syn_capture.skel.h"
#include "syn_sockops.skel.h"
#include "syn_drops.skel.h"
#include "take_flow.skel.h"
#include "witness_features.h"

#define STATE_FILE "/run/syntwin-loader.state"
#define PIN_PROG_TC CAPTURE_PIN_DIR "/prog_syn_capture"
#define PIN_PROG_SOCKOPS CAPTURE_PIN_DIR "/prog_syn_sockops"
#define PIN_LINK_DROPS CAPTURE_PIN_DIR "/" CAPTURE_LINK_DROPS
#define PIN_PROG_TAKE CAPTURE_PIN_DIR "/" CAPTURE_TAKE_PROG
#define TC_HANDLE 0x5359 /* "SY" */
#define TC_PRIO 1

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* Warnings include the verifier log on load failure: always show them. */
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int check_bpffs(void)
{
	struct statfs st;

	if (statfs("/sys/fs/bpf", &st) || st.f_type != BPF_FS_MAGIC) {
		fprintf(stderr, "syntwin-loader: bpffs is not mounted at /sys/fs/bpf "
				"(mount -t bpf bpf /sys/fs/bpf)\n");
		return -1;
	}
	if (mkdir(CAPTURE_PIN_DIR, 0700) && errno != EEXIST) {
		fprintf(stderr, "syntwin-loader: mkdir %s: %s\n", CAPTURE_PIN_DIR, strerror(errno));
		return -1;
	}
	return 0;
}

/* How many link-layer bytes precede the network header on @dev, from its ARPHRD type (asked
 * through a socket so it is the device of the current network namespace). */
static int dev_mac_len(const char *dev, __u32 *mac_len)
{
	struct ifreq ifr = {};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), type = -1;

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	if (fd >= 0 && ioctl(fd, SIOCGIFHWADDR, &ifr) == 0)
		type = ifr.ifr_hwaddr.sa_family;
	if (fd >= 0)
		close(fd);
	switch (type) {
	case ARPHRD_ETHER:
	case ARPHRD_LOOPBACK: /* a zeroed Ethernet header */
		*mac_len = 14;
		return 0;
	case ARPHRD_NONE: /* tun in L3 mode */
		*mac_len = 0;
		return 0;
	default:
		fprintf(stderr, "syntwin-loader: %s: link type %d is not supported\n", dev, type);
		return -1;
	}
}

/* The ring buffer's size: --ring-bytes, else what --entries calls for. */
static __u32 ring_bytes(const struct loader_opts *o)
{
	return o->ring_bytes ? o->ring_bytes : capture_ring_bytes(o->entries);
}

/* Enter /run/netns/@name for the network only: the mount namespace, and with it bpffs and the
 * pins, stays (unlike `ip netns exec`, which remounts /sys). */
static int enter_net(const char *name)
{
	char path[256];
	int fd, rc;

	if (!name)
		return 0;
	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "syntwin-loader: no network namespace '%s' (%s)\n", name, path);
		return -1;
	}
	rc = netns_set(fd, path);
	close(fd);
	return rc;
}

static int cmd_detach(void);

/* The namespace the loader started in, for devices named without one. */
static int home_net = -1;

/* @prog attached (to @what, for the failure's words), its link pinned at @path (the pin keeps
 * it attached); 0 or -1. */
static int attach_pinned(struct bpf_program *prog, const char *path, const char *what)
{
	struct bpf_link *link = bpf_program__attach(prog);
	int err;

	if (!link) {
		fprintf(stderr, "Failed to attach %s to %s: %s\n", bpf_program__name(prog), what,
			strerror(errno));
		return -1;
	}
	err = bpf_link__pin(link, path);
	if (err)
		fprintf(stderr, "Failed to pin %s: %s\n", path, strerror(-err));
	bpf_link__destroy(link);
	return err ? -1 : 0;
}

/*
 * The programs that end a copy's sk_buff record (fexit on the kernel's functions that make an
 * sk_buff from another: made_*, bpf/copy_skbs.bpf.h), each link pinned as link_<program> in
 * CAPTURE_PIN_DIR (COPY_SKB_PINS). Returns 0 or -1.
 */
static int attach_made(struct syn_drops_bpf *d)
{
	char path[256], what[128];
	struct bpf_program *p;

	bpf_object__for_each_program(p, d->obj) {
		const char *name = bpf_program__name(p);

		if (strncmp(name, "made_", 5))
			continue;
		snprintf(path, sizeof(path), "%s/link_%s", CAPTURE_PIN_DIR, name);
		snprintf(what, sizeof(what), "fexit on the kernel's %s, which the drop rule needs",
			 bpf_program__section_name(p) + 6);
		if (attach_pinned(p, path, what))
			return -1;
	}
	return 0;
}

/*
 * The drop-reason program (tp_btf/kfree_skb) and its twin on the shared maps, each attached by
 * a link pinned in CAPTURE_PIN_DIR so it outlives this process, with the programs the rule
 * needs (attach_made()); detach unpins them, which ends them. The twin after the program: a
 * drop runs them in that order, and the twin acts only where the first run was skipped.
 * Returns 0 or -1.
 */
static int attach_drops(const struct loader_opts *o, const struct bpf_object_open_opts *open_opts,
			bool with_reason)
{
	struct syn_drops_bpf *d = syn_drops_bpf__open_opts(open_opts);
	struct bpf_program *prog, *twin;
	int err = -1;

	if (!d) {
		fprintf(stderr, "Failed to open the drop-reason object: %s\n", strerror(errno));
		return -1;
	}
	/* the kernel's kfree_skb with its reason, or without (witness_features.h): the other
	 * program would not load */
	prog = with_reason ? d->progs.syn_drop : d->progs.syn_drop_no_reason;
	twin = with_reason ? d->progs.syn_drop_twin : d->progs.syn_drop_no_reason_twin;
	bpf_program__set_autoload(with_reason ? d->progs.syn_drop_no_reason : d->progs.syn_drop,
				  false);
	bpf_program__set_autoload(with_reason ? d->progs.syn_drop_no_reason_twin :
						d->progs.syn_drop_twin, false);
	if (bpf_map__set_max_entries(d->maps.syn_by_flow, o->entries) ||
	    bpf_map__set_max_entries(d->maps.syn_events, ring_bytes(o))) {
		fprintf(stderr, "Failed to size maps\n");
		goto out;
	}
	if (syn_drops_bpf__load(d)) {
		fprintf(stderr, "Failed to load the kfree_skb program (verifier log above; the "
			"kernel needs CONFIG_BPF_EVENTS and BTF)\n");
		goto out;
	}
	if (!attach_pinned(prog, PIN_LINK_DROPS, "tracepoint skb:kfree_skb") &&
	    !attach_pinned(twin, CAPTURE_PIN_DIR "/" CAPTURE_LINK_DROPS_TWIN,
			   "tracepoint skb:kfree_skb"))
		err = attach_made(d);
out:
	syn_drops_bpf__destroy(d);
	return err;
}

/*
 * The consumer's take of a flow entry (bpf/take_flow.bpf.c) on the shared maps, pinned for the
 * comparator to run (capture_client.c); it attaches to nothing. Returns 0 or -1.
 */
static int load_take(const struct loader_opts *o, const struct bpf_object_open_opts *open_opts)
{
	struct take_flow_bpf *t = take_flow_bpf__open_opts(open_opts);
	int err = -1;

	if (!t) {
		fprintf(stderr, "Failed to open the take object: %s\n", strerror(errno));
		return -1;
	}
	if (bpf_map__set_max_entries(t->maps.syn_by_flow, o->entries) ||
	    bpf_map__set_max_entries(t->maps.syn_events, ring_bytes(o))) {
		fprintf(stderr, "Failed to size maps\n");
		goto out;
	}
	if (take_flow_bpf__load(t)) {
		fprintf(stderr, "Failed to load the take program (verifier log above)\n");
		goto out;
	}
	if (bpf_program__pin(t->progs.take_flow, PIN_PROG_TAKE)) {
		fprintf(stderr, "Failed to pin %s: %s\n", PIN_PROG_TAKE, strerror(errno));
		goto out;
	}
	err = 0;
out:
	take_flow_bpf__destroy(t);
	return err;
}

/* Splits an attach --dev IFNAME[@NETNS]; the netns defaults to --netns. */
static const char *dev_split(const char *spec, const char *dflt, char name[16])
{
	size_t nl = strcspn(spec, "@");

	snprintf(name, 16, "%.*s", (int)nl, spec);
	return spec[nl] == '@' ? spec + nl + 1 : dflt;
}

/* Enter @ns, or go back to the starting namespace if @ns is NULL. */
static int enter_dev_net(const char *ns)
{
	if (ns)
		return enter_net(ns);
	return home_net >= 0 ? netns_set(home_net, "the loader's own netns") : 0;
}

/*
 * The capture points (--points) on the devices of the default netns (the server's: a device
 * named with its own @NETNS is the client's, which sends the SYNs), resolved as @ifindex,
 * @dev_ns, @dev_name. Returns 0 or -1.
 */
static int attach_points(const struct loader_opts *o, const unsigned int *ifindex,
			 const char *const *dev_ns, char (*dev_name)[16])
{
	struct point_dev d[LOADER_MAX_DEVS];
	char list[64], path[300];
	struct stat st;
	int n = 0;

	for (int i = 0; i < o->ndevs; i++) {
		if (dev_ns[i] != o->netns)
			continue;
		d[n] = (struct point_dev){ .ifindex = ifindex[i], .ns = dev_ns[i],
					   .name = dev_name[i] };
		if (enter_dev_net(dev_ns[i]) || dev_mac_len(dev_name[i], &d[n].mac_len))
			return -1;
		n++;
	}
	/* the tcp point's netns: --netns's (a namespace's nsfs inode is its number) */
	snprintf(path, sizeof(path), o->netns ? "/run/netns/%s" : "/proc/self/ns/net",
		 o->netns ? o->netns : "");
	if (stat(path, &st)) {
		fprintf(stderr, "syntwin-loader: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (points_attach(o->points, o->entries, o->xdp_generic, (uint32_t)st.st_ino, d, n,
			  enter_dev_net))
		return -1;
	points_text(o->points, list, sizeof(list));
	printf("capture points: %s\n", list);
	return 0;
}

/*
 * tc ingress (and with @egress, egress) of @cap on every --dev (resolved: @ifindex, @dev_ns,
 * @dev_name), each device registered in dev_info and written to @state for detach. 0 or -1.
 */
static int attach_tc_devs(const struct loader_opts *o, struct syn_capture_bpf *cap, FILE *state,
			  const unsigned int *ifindex, const char *const *dev_ns,
			  char (*dev_name)[16], bool egress)
{
	int err;

	for (int i = 0; i < o->ndevs; i++) {
		struct dev_info di, old;
		LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex[i], .attach_point = BPF_TC_INGRESS);
		LIBBPF_OPTS(bpf_tc_opts, tco, .handle = TC_HANDLE, .priority = TC_PRIO,
			    .prog_fd = bpf_program__fd(cap->progs.syn_capture));
		bool created = false;

		if (enter_dev_net(dev_ns[i]))
			return -1;
		fprintf(state, "netns %s\n", dev_ns[i] ? dev_ns[i] : "-");
		if (dev_mac_len(dev_name[i], &di.mac_len))
			return -1;
		/* dev_info is keyed by ifindex, which is per namespace: two devices with one index
		 * must agree on their link-layer header length, or the programs would misparse. */
		if (!bpf_map__lookup_elem(cap->maps.dev_info, &ifindex[i], sizeof(__u32), &old,
					  sizeof(old), 0) && old.mac_len != di.mac_len) {
			fprintf(stderr, "syntwin-loader: %s has ifindex %u, like an earlier device with "
				"a %u-byte link header; give one of them another index\n", o->devs[i],
				ifindex[i], old.mac_len);
			return -1;
		}
		if (bpf_map__update_elem(cap->maps.dev_info, &ifindex[i], sizeof(__u32), &di,
					 sizeof(di), BPF_ANY) ||
		    ingress_devs_register(bpf_map__fd(cap->maps.witness_ingress), dev_name[i],
					  ifindex[i])) {
			fprintf(stderr, "Failed to register device %s\n", o->devs[i]);
			return -1;
		}
		/* Tolerate an existing clsact qdisc, and remember whether we made it. */
		err = bpf_tc_hook_create(&hook);
		if (err && err != -EEXIST) {
			fprintf(stderr, "Failed to create clsact on %s: %s\n", o->devs[i], strerror(-err));
			return -1;
		}
		created = !err;
		fprintf(state, "dev %u %s %d\n", ifindex[i], dev_name[i], created);
		fflush(state);
		err = bpf_tc_attach(&hook, &tco);
		if (err) {
			fprintf(stderr, "Failed to attach tc ingress on %s: %s\n", o->devs[i],
				strerror(-err));
			return -1;
		}
		/* egress: the SYN-ACKs this side sends, noted on the SYNs they answer */
		if (!egress)
			continue;
		hook.attach_point = BPF_TC_EGRESS;
		tco.prog_fd = bpf_program__fd(cap->progs.synack_egress);
		tco.prog_id = 0;
		err = bpf_tc_attach(&hook, &tco);
		if (err) {
			fprintf(stderr, "Failed to attach tc egress on %s: %s\n", o->devs[i],
				strerror(-err));
			return -1;
		}
	}
	return 0;
}

/*
 * The tc point alone (--only-points with tc): the capture program on tc ingress of every --dev,
 * without egress, sockops, kfree_skb or the memory follower: what copying a SYN at tc costs, as
 * the other points are measured. 0 or -1 (what was attached is in the state file for detach).
 */
static int attach_tc_alone(const struct loader_opts *o, const unsigned int *ifindex,
			   const char *const *dev_ns, char (*dev_name)[16])
{
	LIBBPF_OPTS(bpf_object_open_opts, open_opts, .pin_root_path = CAPTURE_PIN_DIR);
	struct syn_capture_bpf *cap = syn_capture_bpf__open_opts(&open_opts);
	FILE *state = NULL;
	int err = -1;

	if (!cap || bpf_map__set_max_entries(cap->maps.syn_by_flow, o->entries) ||
	    bpf_map__set_max_entries(cap->maps.syn_events, ring_bytes(o)) ||
	    syn_capture_bpf__load(cap)) {
		fprintf(stderr, "Failed to load the tc program (verifier log above)\n");
		goto out;
	}
	state = fopen(STATE_FILE, "w");
	if (!state) {
		fprintf(stderr, "Failed to write %s: %s\n", STATE_FILE, strerror(errno));
		goto out;
	}
	err = attach_tc_devs(o, cap, state, ifindex, dev_ns, dev_name, false);
	if (!err && bpf_program__pin(cap->progs.syn_capture, PIN_PROG_TC)) {
		fprintf(stderr, "Failed to pin %s\n", PIN_PROG_TC);
		err = -1;
	}
	if (!err)
		printf("capture point tc alone: tc ingress on %d device(s)\n", o->ndevs);
out:
	if (state)
		fclose(state);
	syn_capture_bpf__destroy(cap);
	return err;
}

/*
 * The witness features (witness_features.h) of the kernel into @wf, the ones it has printed.
 * One this attach cannot do without (the ring buffer, the lookup-and-delete, trampolines) is
 * named with the proofs it carries, and true returned: nothing is attached. Without drop
 * reasons the witness runs, saying so: the drops it notes name no reason, and a verdict that
 * needs one is unexplained (judge/unbound.c).
 */
static bool features_missing(struct witness_features *wf)
{
	bool missing = false;
	char have[128];

	if (witness_features_here(wf))
		return true;
	for (int i = 0; i < WF_MAX; i++) {
		/* trampolines: the memory follower's, the tcp capture point's, and the drop
		 * rule's (a copy's own sk_buff: bpf/copy_skbs.bpf.h), which every witness has */
		if (wf->have[i] || i == WF_DROP_REASON)
			continue;
		fprintf(stderr, "syntwin-loader: this kernel has no %s, by which the witness "
			"proves %s; not attached (a run with fewer proofs than its verdicts need "
			"does not take place)\n", witness_feature_names[i],
			witness_feature_proofs[i]);
		missing = true;
	}
	if (missing)
		return true;
	witness_features_line(wf, have, sizeof(have));
	printf("witness features: %s\n", have);
	if (!wf->have[WF_DROP_REASON])
		printf("witness without %s: it does not prove %s; a verdict that needs a reason is "
		       "unexplained\n", witness_feature_names[WF_DROP_REASON],
		       witness_feature_proofs[WF_DROP_REASON]);
	return false;
}

static int cmd_attach(const struct loader_opts *o)
{
	LIBBPF_OPTS(bpf_object_open_opts, open_opts, .pin_root_path = CAPTURE_PIN_DIR);
	struct witness_features wf;
	struct syn_capture_bpf *cap = NULL;
	struct syn_sockops_bpf *sops = NULL;
	int cg_fd = -1, err = -1, i;
	unsigned int ifindex[LOADER_MAX_DEVS];
	const char *dev_ns[LOADER_MAX_DEVS];
	char dev_name[LOADER_MAX_DEVS][16];
	FILE *state = NULL;

	for (i = 0; i < o->ndevs; i++) {
		dev_ns[i] = dev_split(o->devs[i], o->netns, dev_name[i]);
		if (enter_dev_net(dev_ns[i]))
			return 1;
		ifindex[i] = if_nametoindex(dev_name[i]);
		if (!ifindex[i]) {
			fprintf(stderr, "syntwin-loader: no such device '%s'%s%s\n", dev_name[i],
				dev_ns[i] ? " in netns " : "", dev_ns[i] ? dev_ns[i] : "");
			return 1;
		}
	}
	if (check_bpffs())
		return 1;
	if (o->only_points) {
		/* the study's cost of a point alone: no witness at all */
		if ((!(o->points & (1u << PT_TC)) || !attach_tc_alone(o, ifindex, dev_ns, dev_name)) &&
		    !attach_points(o, ifindex, dev_ns, dev_name))
			return 0;
		cmd_detach();
		return 1;
	}
	cg_fd = open(o->cgroup, O_RDONLY | O_DIRECTORY);
	if (cg_fd < 0) {
		fprintf(stderr, "syntwin-loader: cgroup %s: %s (is cgroup v2 mounted?)\n", o->cgroup,
			strerror(errno));
		return 1;
	}
	if (access(PIN_PROG_TC, F_OK) == 0) {
		fprintf(stderr, "syntwin-loader: already attached (run detach first to change it)\n");
		close(cg_fd);
		return 0;
	}
	if (features_missing(&wf)) {
		close(cg_fd);
		return 1;
	}

	cap = syn_capture_bpf__open_opts(&open_opts);
	sops = syn_sockops_bpf__open_opts(&open_opts);
	if (!cap || !sops) {
		fprintf(stderr, "Failed to open BPF objects: %s\n", strerror(errno));
		goto cleanup;
	}
	/* Both objects declare the shared maps; sizes must match for the pin to be reused. */
	if (bpf_map__set_max_entries(cap->maps.syn_by_flow, o->entries) ||
	    bpf_map__set_max_entries(cap->maps.syn_events, ring_bytes(o)) ||
	    bpf_map__set_max_entries(sops->maps.syn_by_flow, o->entries) ||
	    bpf_map__set_max_entries(sops->maps.syn_events, ring_bytes(o))) {
		fprintf(stderr, "Failed to size maps\n");
		goto cleanup;
	}
	if (syn_capture_bpf__load(cap)) {
		fprintf(stderr, "Failed to load the tc program (verifier log above)\n");
		goto cleanup;
	}
	if (syn_sockops_bpf__load(sops)) {
		fprintf(stderr, "Failed to load the sockops program (verifier log above)\n");
		goto cleanup;
	}
	state = fopen(STATE_FILE, "w");
	if (!state) {
		fprintf(stderr, "Failed to write %s: %s\n", STATE_FILE, strerror(errno));
		goto cleanup;
	}
	fprintf(state, "cgroup %s\n", o->cgroup);
	fflush(state);

	/* the drop rule's programs before tc records a copy: every record's end is seen */
	err = attach_drops(o, &open_opts, wf.have[WF_DROP_REASON]);
	if (err)
		goto cleanup;
	err = attach_tc_devs(o, cap, state, ifindex, dev_ns, dev_name, true);
	if (err)
		goto cleanup;
	err = bpf_prog_attach(bpf_program__fd(sops->progs.syn_sockops), cg_fd, BPF_CGROUP_SOCK_OPS, 0);
	if (err) {
		fprintf(stderr, "Failed to attach sockops to %s: %s\n", o->cgroup, strerror(errno));
		goto cleanup;
	}
	if (bpf_program__pin(cap->progs.syn_capture, PIN_PROG_TC) ||
	    bpf_program__pin(sops->progs.syn_sockops, PIN_PROG_SOCKOPS)) {
		fprintf(stderr, "Failed to pin programs under %s\n", CAPTURE_PIN_DIR);
		err = -1;
		goto cleanup;
	}
	err = load_take(o, &open_opts);
	if (!err && !o->no_memory_follower)
		err = saved_syn_mem_attach_pinned(o->entries, ring_bytes(o));
	if (!err)
		err = attach_points(o, ifindex, dev_ns, dev_name);
	if (err)
		goto cleanup;
	printf("attached: tc ingress and egress on %d device(s), sockops on %s, kfree_skb, %s"
	       "%u flow entries, a %u-byte ring\n", o->ndevs, o->cgroup,
	       o->no_memory_follower ? "" : "kmalloc/kfree, ", o->entries, ring_bytes(o));
	err = 0;
cleanup:
	if (state)
		fclose(state);
	syn_capture_bpf__destroy(cap);
	syn_sockops_bpf__destroy(sops);
	close(cg_fd);
	if (err) {
		/* Past the checks above something may be pinned or attached: undo all of it. */
		fprintf(stderr, "syntwin-loader: attach failed; undoing\n");
		cmd_detach();
		return 1;
	}
	return 0;
}

/* Undo everything attach recorded; keep going past individual failures, report them. */
static int cmd_detach(void)
{
	static const char *const pins[] = { "syn_by_flow", "syn_events", "syn_copies",
					    "cookie_acks", "counters", "errors",
					    "dev_info", "witness_ingress", "prog_syn_capture",
					    "prog_syn_sockops",
					    CAPTURE_LINK_DROPS, CAPTURE_LINK_DROPS_TWIN,
					    "syn_take", "syn_late",
					    CAPTURE_TAKE_PROG, SAVED_SYN_MEM_PINS, COPY_SKB_PINS };
	char line[512], path[256];
	int failures = 0, prog_fd;
	FILE *state = fopen(STATE_FILE, "r");

	while (state && fgets(line, sizeof(line), state)) {
		char name[64], cg[400];
		unsigned int ifindex;
		int created;

		if (sscanf(line, "netns %63s", name) == 1) {
			if (enter_dev_net(strcmp(name, "-") ? name : NULL))
				failures++;
		} else if (sscanf(line, "dev %u %63s %d", &ifindex, name, &created) == 3) {
			LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
				    .attach_point = BPF_TC_INGRESS);
			LIBBPF_OPTS(bpf_tc_opts, tco, .handle = TC_HANDLE, .priority = TC_PRIO);
			int err = bpf_tc_detach(&hook, &tco);

			if (err && err != -ENOENT && err != -ENODEV) {
				fprintf(stderr, "Failed to detach tc from %s: %s\n", name, strerror(-err));
				failures++;
			}
			hook.attach_point = BPF_TC_EGRESS;
			err = bpf_tc_detach(&hook, &tco);
			if (err && err != -ENOENT && err != -ENODEV) {
				fprintf(stderr, "Failed to detach tc egress from %s: %s\n", name,
					strerror(-err));
				failures++;
			}
			hook.attach_point = BPF_TC_INGRESS;
			if (created) {
				hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
				err = bpf_tc_hook_destroy(&hook);
				if (err && err != -ENOENT && err != -ENODEV && err != -EINVAL)
					failures++;
			}
		} else if (sscanf(line, "cgroup %399s", cg) == 1) {
			int cg_fd = open(cg, O_RDONLY | O_DIRECTORY);

			prog_fd = bpf_obj_get(PIN_PROG_SOCKOPS);
			if (cg_fd >= 0 && prog_fd >= 0 &&
			    bpf_prog_detach2(prog_fd, cg_fd, BPF_CGROUP_SOCK_OPS)) {
				fprintf(stderr, "Failed to detach sockops from %s: %s\n", cg,
					strerror(errno));
				failures++;
			}
			if (cg_fd >= 0)
				close(cg_fd);
			if (prog_fd >= 0)
				close(prog_fd);
		}
	}
	if (state)
		fclose(state);
	unlink(STATE_FILE);
	failures += points_detach();
	for (size_t i = 0; i < sizeof(pins) / sizeof(pins[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", CAPTURE_PIN_DIR, pins[i]);
		if (unlink(path) && errno != ENOENT) {
			fprintf(stderr, "Failed to unpin %s: %s\n", path, strerror(errno));
			failures++;
		}
	}
	if (rmdir(CAPTURE_PIN_DIR) && errno != ENOENT) {
		fprintf(stderr, "Failed to remove %s: %s\n", CAPTURE_PIN_DIR, strerror(errno));
		failures++;
	}
	if (failures)
		return 1;
	printf("detached\n");
	return 0;
}

static void print_hex(const __u8 *p, size_t n)
{
	char hex[2 * CAPTURE_MAX + 1];

	hex_encode(p, n, hex);
	fputs(hex, stdout);
}

static void print_rec(const struct capture_rec *r, bool json)
{
	if (json) {
		printf("\"ifindex\":%u,\"family\":%u,\"mac_len\":%u,\"net_len\":%u,\"tcp_len\":%u,"
		       "\"cap_len\":%u,\"flags\":%u,\"vlan_present\":%u,\"vlan_tci\":%u,\"ts_ns\":%llu,"
		       "\"data\":\"",
		       r->ifindex, r->family, r->mac_len, r->net_len, r->tcp_len, r->cap_len, r->flags,
		       r->vlan_present, r->vlan_tci, (unsigned long long)r->ts_ns);
		print_hex(r->data, r->cap_len <= CAPTURE_MAX ? r->cap_len : CAPTURE_MAX);
		printf("\"");
		return;
	}
	printf("if %u family %u mac %u net %u tcp %u flags 0x%x data ", r->ifindex, r->family,
	       r->mac_len, r->net_len, r->tcp_len, r->flags);
	print_hex(r->data, r->cap_len <= CAPTURE_MAX ? r->cap_len : CAPTURE_MAX);
}

static int print_flow(const struct capture_key *k, const struct capture_rec *r, void *arg)
{
	bool json = *(bool *)arg;

	if (r->cookie)
		printf(json ? "{\"bound\":true,\"cookie\":%llu,\"seq\":%u," : "cookie %llu seq %u ",
		       (unsigned long long)r->cookie, k->seq);
	else
		printf(json ? "{\"bound\":false,\"seq\":%u," : "unbound seq %u ", k->seq);
	print_rec(r, json);
	printf(json ? "}\n" : "\n");
	return 0;
}

/* Every capture in syn_by_flow (bound to a socket, its cookie, or not yet), then every copy
 * parked in syn_late. The records the ring buffer carries are the consumer's: dump leaves them
 * there, and moves nothing. */
static int cmd_dump(struct capture_client *c, bool json)
{
	return capture_each_unbound(c, print_flow, &json) < 0;
}

static int cmd_stats(struct capture_client *c, bool json)
{
	__u64 cnt[CNT_MAX];
	struct bpf_error e;

	if (capture_counters(c, cnt)) {
		fprintf(stderr, "Failed to read counters\n");
		return 1;
	}
	printf(json ? "{" : "");
	for (int i = 0; i < CNT_MAX; i++)
		printf(json ? "%s\"%s\":%llu" : "%s%s %llu\n", json && i ? "," : "",
		       capture_counter_names[i], (unsigned long long)cnt[i]);
	for (__u32 s = 0; s < 2; s++) {
		if (capture_error(c, s, &e) == 0 && e.line)
			printf(json ? ",\"last_error_%s\":{\"line\":%u,\"err\":%d}" :
				      "last_error_%s line %u err %d\n",
			       s ? "sockops" : "tc", e.line, e.err);
	}
	printf(json ? "}\n" : "");
	return 0;
}

int main(int argc, char **argv)
{
	struct capture_client c;
	struct capture_rec rec;
	struct loader_opts o;
	char err[256];
	int rc;

	if (loader_parse(argc, argv, &o, err, sizeof(err))) {
		fprintf(stderr, "syntwin-loader: %s\n%s", err, loader_usage);
		return 2;
	}
	libbpf_set_print(libbpf_print);
	home_net = netns_here();
	if (o.cmd == CMD_ATTACH)
		return cmd_attach(&o);
	if (o.cmd == CMD_DETACH)
		return cmd_detach();
	if (capture_client_open(&c))
		return 1;
	switch (o.cmd) {
	case CMD_DUMP:
		rc = cmd_dump(&c, o.json);
		break;
	case CMD_STATS:
		rc = cmd_stats(&c, o.json);
		break;
	default:
		rc = capture_find_cookie(&c, o.cookie, &rec);
		if (rc) {
			fprintf(stderr, "syntwin-loader: no capture for cookie %llu: %s\n",
				(unsigned long long)o.cookie, strerror(-rc));
			rc = 1;
			break;
		}
		printf(o.json ? "{\"cookie\":%llu," : "cookie %llu ", (unsigned long long)o.cookie);
		print_rec(&rec, o.json);
		printf(o.json ? "}\n" : "\n");
		break;
	}
	capture_client_close(&c);
	return rc;
}
