// SPDX-License-Identifier: GPL-2.0
/*
 * syntwin-study-table (host): the capture points study's table (`syntwin study`,
 * docs/capture-points.md) from its two halves: what each point saw of a run's SYNs
 * (RUN/summary.json's capture_points) and what each point costs alone (syntwin-conn-rate
 * --study's JSON). Prints the table, writes OUT/study.json and OUT/study.dat (gnuplot). One
 * row per point: identical, each explained reason, unexplained, not compared; ns of its program
 * per connection and its runs per connection ("ns/runs"); the connection rate's cost of that point alone,
 * IPv4 and IPv6 (median of interleaved rounds); the bytes it keeps per SYN, and where.
 * usage: syntwin-study-table SUMMARY.json RATES.json OUT_DIR
 * Exit 0, 1 if a point left unexplained or lost records (the table is written either way), 2 if
 * an input is missing or not what the study writes.
 */
#include <jansson.h>
#include <linux/types.h>
#include <stdio.h>
#include <string.h>

#include "capture.h"
#include "capture_points.h"
#include "judge_point.h"
#include "point_names.h"
#include "wire.h"

/* What each point keeps per SYN it stores, and where. The wire's ring slot is its snaplen
 * (libpcap's TPACKET_V2 frames: the snaplen and a header of under 100 bytes). */
static void bytes_of(int pt, unsigned long *bytes, const char **where)
{
	switch (pt) {
	case PT_TC:
		*bytes = sizeof(struct capture_key) + sizeof(struct capture_rec) +
			 sizeof(struct bound_rec);
		*where = "flow map + ring record";
		break;
	case PT_WIRE:
		*bytes = WIRE_SNAPLEN + sizeof(struct point_copy) + sizeof(struct capture_key);
		*where = "AF_PACKET ring slot + table";
		break;
	default:
		*bytes = sizeof(struct point_key) + sizeof(struct point_rec);
		*where = "point map";
	}
}

static double num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : -1;
}

/* The cost_percent of configuration @name, family @fam, from the rates' configs. */
static double cost_of(json_t *rates, const char *name, int fam)
{
	size_t i;
	json_t *c;

	json_array_foreach(json_object_get(rates, "configs"), i, c)
		if (!strcmp(json_string_value(json_object_get(c, "config")) ?: "", name) &&
		    num(c, "family") == fam)
			return num(c, "cost_percent");
	return -1;
}

/* The program that is point @pt: its ns and runs per connection (-1 when none ran). */
static void prog_of(json_t *rates, int pt, double *ns, double *runs)
{
	static const char *const prog[PT_MAX] = { "point_xdp", "syn_capture", "point_tcp", NULL };
	json_t *st = json_object_get(json_object_get(rates, "bpf_stats"), point_names[pt]), *p;
	size_t i;

	*ns = *runs = -1;
	json_array_foreach(json_object_get(st, "programs"), i, p)
		if (prog[pt] && !strcmp(json_string_value(json_object_get(p, "name")) ?: "", prog[pt])) {
			*ns = num(p, "ns_per_connection");
			*runs = num(p, "runs_per_connection");
		}
}

/* "reason N, reason N" of a point's explained object into @buf. */
static void reasons_text(json_t *explained, char *buf, size_t len)
{
	const char *k;
	json_t *v;
	size_t used = 0;

	buf[0] = '\0';
	json_object_foreach(explained, k, v)
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s %lld", used ? ", " : "",
						 k, (long long)json_integer_value(v));
	if (!used)
		snprintf(buf, len, "-");
}

/* One point's row: printed, into @rows (JSON) and @dat. Returns 1 if it failed, else 0. */
static int row(int pt, json_t *p, json_t *rates, json_t *rows, FILE *dat)
{
	double ns, runs, c4 = cost_of(rates, point_names[pt], 4), c6 = cost_of(rates, point_names[pt], 6);
	unsigned long bytes;
	const char *where;
	char reasons[256], nstext[32];
	json_t *r;

	prog_of(rates, pt, &ns, &runs);
	bytes_of(pt, &bytes, &where);
	reasons_text(json_object_get(p, "explained"), reasons, sizeof(reasons));
	if (ns < 0)
		snprintf(nstext, sizeof(nstext), "-");
	else
		snprintf(nstext, sizeof(nstext), "%.0f/%.1f", ns, runs);
	printf("%-5s %9.0f  %-56s %11.0f %12.0f %12s %8.1f%% %6.1f%% %6lu  %s\n", point_names[pt],
	       num(p, "identical"), reasons, num(p, "unexplained"), num(p, "not-compared"),
	       nstext, c4, c6, bytes, where);
	r = json_pack("{s:s, s:O, s:O, s:O, s:O, s:O, s:f, s:f, s:f, s:f, s:i, s:s}",
		      "point", point_names[pt], "identical", json_object_get(p, "identical"),
		      "explained", json_object_get(p, "explained"),
		      "unexplained", json_object_get(p, "unexplained"),
		      "lost", json_object_get(p, "lost") ?: json_integer(0),
		      "not_compared", json_object_get(p, "not-compared"),
		      "ns_per_connection", ns, "runs_per_connection", runs,
		      "cost_percent_ipv4", c4, "cost_percent_ipv6", c6,
		      "bytes_per_syn", (int)bytes, "kept_in", where);
	if (json_object_get(p, "modes"))
		json_object_set(r, "xdp_modes", json_object_get(p, "modes"));
	json_array_append_new(rows, r);
	fprintf(dat, "%s %.1f %.1f %.0f\n", point_names[pt], c4, c6, ns < 0 ? 0 : ns);
	return num(p, "unexplained") != 0 || (json_object_get(p, "lost") && num(p, "lost") != 0);
}

int main(int argc, char **argv)
{
	json_error_t e;
	json_t *sum, *rates, *points, *rows, *doc;
	char path[4096];
	FILE *dat;
	int bad = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: syntwin-study-table SUMMARY.json RATES.json OUT_DIR\n");
		return 2;
	}
	sum = json_load_file(argv[1], 0, &e);
	rates = json_load_file(argv[2], 0, &e);
	points = json_object_get(sum, "capture_points");
	if (!sum || !rates || !json_is_object(points) ||
	    strcmp(json_string_value(json_object_get(rates, "mode")) ?: "", "study")) {
		fprintf(stderr, "syntwin-study-table: %s must be a run's summary with capture_points "
			"and %s syntwin-conn-rate --study's output (%s)\n", argv[1], argv[2], e.text);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/study.dat", argv[3]);
	dat = fopen(path, "w");
	if (!dat) {
		perror(path);
		return 2;
	}
	fprintf(dat, "# point cost_ipv4_percent cost_ipv6_percent ns_per_connection\n");
	rows = json_array();
	printf("%-5s %9s  %-56s %11s %12s %12s %9s %7s %6s  %s\n", "point", "identical",
	       "explained", "unexplained", "not-compared", "ns/runs", "cost IPv4", "IPv6",
	       "B/SYN", "kept in");
	for (int pt = 0; pt < PT_MAX; pt++) {
		json_t *p = json_object_get(points, point_names[pt]);

		if (!json_is_object(p)) {
			fprintf(stderr, "syntwin-study-table: the run compared no %s point\n",
				point_names[pt]);
			return 2;
		}
		bad |= row(pt, p, rates, rows, dat);
	}
	fclose(dat);
	doc = json_pack("{s:O, s:O, s:O, s:O, s:o}", "kernel", json_object_get(sum, "kernel"),
			"connections", json_object_get(sum, "connections"),
			"rounds", json_object_get(rates, "rounds"),
			"connections_per_batch", json_object_get(rates, "connections_per_batch"),
			"points", rows);
	snprintf(path, sizeof(path), "%s/study.json", argv[3]);
	if (!doc || json_dump_file(doc, path, JSON_INDENT(1))) {
		fprintf(stderr, "syntwin-study-table: cannot write %s\n", path);
		return 2;
	}
	json_decref(doc);
	json_decref(sum);
	json_decref(rates);
	return bad;
}
