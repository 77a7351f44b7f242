// SPDX-License-Identifier: GPL-2.0
/* The capture points' programs attached and pinned (points_attach.h). */
#include "points_attach.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/if_link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "capture_points.h"
#include "capture_points.skel.h"
#include "loader_opts.h"

#define PIN_LINK_TCP CAPTURE_PIN_DIR "/link_point_tcp"

static void xdp_pin_path(int i, char *buf, size_t len)
{
	snprintf(buf, len, "%s/link_point_xdp_%d", CAPTURE_PIN_DIR, i);
}

/* XDP on device @d, its link pinned as link_point_xdp_@i. 0 or -1. */
static int attach_xdp(struct capture_points_bpf *s, const struct point_dev *d, int i,
		      bool generic)
{
	LIBBPF_OPTS(bpf_link_create_opts, lo, .flags = generic ? XDP_FLAGS_SKB_MODE : 0);
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	struct dev_info di = { .mac_len = d->mac_len };
	char path[256];
	int fd, err;

	if (bpf_map__update_elem(s->maps.point_devs, &d->ifindex, sizeof(d->ifindex), &di,
				 sizeof(di), BPF_ANY)) {
		fprintf(stderr, "Failed to register device %s for XDP\n", d->name);
		return -1;
	}
	fd = bpf_link_create(bpf_program__fd(s->progs.point_xdp), (int)d->ifindex, BPF_XDP, &lo);
	if (fd < 0) {
		fprintf(stderr, "Failed to attach XDP on %s: %s\n", d->name, strerror(errno));
		return -1;
	}
	xdp_pin_path(i, path, sizeof(path));
	err = bpf_obj_pin(fd, path);
	if (err)
		fprintf(stderr, "Failed to pin %s: %s\n", path, strerror(errno));
	close(fd);
	if (!err && !bpf_xdp_query((int)d->ifindex, 0, &q))
		printf("capture point xdp on %s: %s\n", d->name,
		       q.attach_mode == XDP_ATTACHED_DRV ? "native" : "generic");
	return err ? -1 : 0;
}

/* fentry at TCP's receive, its link pinned. 0 or -1. */
static int attach_tcp(struct capture_points_bpf *s)
{
	struct bpf_link *link = bpf_program__attach(s->progs.point_tcp);
	int err = -1;

	if (!link) {
		fprintf(stderr, "Failed to attach fentry/tcp_rcv_state_process: %s (the kernel needs "
			"BPF trampolines and BTF)\n", strerror(errno));
		return -1;
	}
	if (bpf_link__pin(link, PIN_LINK_TCP))
		fprintf(stderr, "Failed to pin %s: %s\n", PIN_LINK_TCP, strerror(errno));
	else
		err = 0;
	bpf_link__destroy(link); /* the pin keeps it attached */
	return err;
}

int points_attach(unsigned int mask, uint32_t entries, bool xdp_generic, uint32_t netns_ino,
		  const struct point_dev *devs, int n, int (*enter)(const char *ns))
{
	LIBBPF_OPTS(bpf_object_open_opts, open_opts, .pin_root_path = CAPTURE_PIN_DIR);
	struct capture_points_bpf *s;
	int err = -1;

	if (!(mask & (1u << PT_XDP | 1u << PT_TCP)))
		return 0;
	s = capture_points_bpf__open_opts(&open_opts);
	if (!s) {
		fprintf(stderr, "Failed to open the capture points' object: %s\n", strerror(errno));
		return -1;
	}
	s->rodata->watched_netns = netns_ino;
	bpf_program__set_autoload(s->progs.point_xdp, !!(mask & (1u << PT_XDP)));
	bpf_program__set_autoload(s->progs.point_tcp, !!(mask & (1u << PT_TCP)));
	if (bpf_map__set_max_entries(s->maps.point_syns, CAPTURE_POINTS_ENTRIES(entries)) ||
	    capture_points_bpf__load(s)) {
		fprintf(stderr, "Failed to load the capture points' programs (verifier log above)\n");
		goto out;
	}
	for (int i = 0; mask & (1u << PT_XDP) && i < n; i++)
		if (enter(devs[i].ns) || attach_xdp(s, &devs[i], i, xdp_generic))
			goto out;
	if (mask & (1u << PT_TCP) && attach_tcp(s))
		goto out;
	err = 0;
out:
	capture_points_bpf__destroy(s);
	return err;
}

int points_detach(void)
{
	static const char *const pins[] = { "link_point_tcp", "point_syns", "point_counts",
					    "point_devs" };
	char path[256];
	int failures = 0;

	for (int i = 0; i < LOADER_MAX_DEVS; i++) {
		xdp_pin_path(i, path, sizeof(path));
		if (unlink(path) && errno != ENOENT) {
			fprintf(stderr, "Failed to unpin %s: %s\n", path, strerror(errno));
			failures++;
		}
	}
	for (size_t i = 0; i < sizeof(pins) / sizeof(pins[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", CAPTURE_PIN_DIR, pins[i]);
		if (unlink(path) && errno != ENOENT) {
			fprintf(stderr, "Failed to unpin %s: %s\n", path, strerror(errno));
			failures++;
		}
	}
	return failures;
}
