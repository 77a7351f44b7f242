// SPDX-License-Identifier: GPL-2.0
/*
 * The run view of `syntwin fingerprints DIR`: the fingerprints seen per generator and profile,
 * how many records keep them through both witnesses, and the cross-check with the real p0f.
 * Input: the records as tab-separated fields (fingerprint/fingerprints.sh makes them from
 * connections.jsonl: both witnesses' fingerprints, then those of the copy the tools ran on), p0f's
 * log of that copy's pcap (DIR/wire-syns.pcap where the run captured the wire, else
 * DIR/syns.pcap), whose date is the record number (report.c stamps record n as n seconds; p0f
 * ran with TZ=UTC), and tshark's fields of the same pcap, from which JA4T is assembled as
 * FoxIO's reference reads it.
 */
#define _GNU_SOURCE /* timegm */
#include "fp_table.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fp_record.h"

/* ..._C: the fingerprints of the copy p0f and tshark ran on (the wire's, or the witness's) */
enum { F_N, F_DIR, F_GEN, F_KNOBS, F_JA4T_N, F_JA4T_B, F_P0F_N, F_P0F_B, F_LABEL_N, F_LABEL_B,
       F_JA4T_C, F_P0F_C, F_LABEL_C, F_COUNT };

struct p0f_seen {
	char *sig, *label;	/* NULL: p0f logged nothing for this record */
	char *ja4t;		/* NULL: tshark dissected no frame of this record */
	bool malformed;		/* ... and it called that frame malformed (_ws.malformed) */
};

struct row {
	char gen[GEN_NAME_MAX], profile[64], dir[8], ja4t[JA4T_MAX], label[P0F_LABEL_MAX];
	uint64_t records, same_ja4t, same_label, p0f_checked, p0f_agree;
};

struct table {
	struct p0f_seen *seen;
	size_t nseen;
	struct row *rows;
	size_t nrows, cap;
	uint64_t checked, agree, p0f_lines, matched_lines;
	uint64_t ja4t_checked, ja4t_agree, tshark_lines, ja4t_matched;
	uint64_t malformed;	/* records whose frame tshark calls malformed: not compared */
	unsigned int shown;	/* disagreements printed */
	bool tshark;		/* tshark's fields were given: JA4T is checked too */
};

/* Room in t->seen for record @n. 0 or -1. */
static int grow(struct table *t, size_t n)
{
	struct p0f_seen *g;

	if (n < t->nseen)
		return 0;
	g = realloc(t->seen, (n + 1024) * sizeof(*g));
	if (!g)
		return -1;
	memset(g + t->nseen, 0, (n + 1024 - t->nseen) * sizeof(*g));
	t->seen = g, t->nseen = n + 1024;
	return 0;
}

/*
 * One line of tshark's fields (frame.time_epoch, tcp.window_size_value, tcp.option_kind,
 * tcp.options.mss_val, tcp.options.wscale.shift, _ws.malformed; lists comma-separated) into
 * record n's JA4T (none for a frame tshark calls malformed: where its dissection gives up, the
 * reference has nothing to read):
 * window, the option kinds joined by '-' ("00": none), the last MSS (two digits at least,
 * "00": none), the last window scale ("00": none or 0), as FoxIO's reference ja4 reads
 * tshark's dissection.
 */
static int tshark_line(struct table *t, char *line)
{
	char *f[6], *p = line, ja4t[JA4T_MAX], mss[16] = "00", *last;
	size_t n;

	for (int i = 0; i < 6; i++) {
		f[i] = p;
		p += strcspn(p, "\t\n");
		if (i < 5 && *p != '\t')
			return -1;
		*p++ = 0;
	}
	n = strtoull(f[0], NULL, 10);
	if (grow(t, n))
		return -1;
	t->tshark_lines++;
	t->seen[n].malformed = *f[5] != 0;
	for (char *k = f[2]; *k; k++)
		if (*k == ',')
			*k = '-';
	last = strrchr(f[3], ',');
	last = last ? last + 1 : f[3];
	if (*last)
		snprintf(mss, sizeof(mss), "%02lu", strtoul(last, NULL, 10));
	p = strrchr(f[4], ',');
	p = p ? p + 1 : f[4];
	/* no window: tshark placed no TCP header (a data offset below 5): no JA4T, "" */
	snprintf(ja4t, sizeof(ja4t), *f[1] ? "%s_%s_%s_%s" : "", f[1], *f[2] ? f[2] : "00", mss,
		 *p && strcmp(p, "0") ? p : "00");
	free(t->seen[n].ja4t);
	t->seen[n].ja4t = strdup(ja4t);
	return t->seen[n].ja4t ? 0 : -1;
}

/* "[1970/01/01 00:00:05] mod=syn|...|os=X|...|raw_sig=S": record 5, label "os=X", sig S
 * (mod=sendsyn probe alike) */
static int p0f_line(struct table *t, char *line)
{
	struct tm tm = { 0 };
	char *sig, *lab, *end;
	size_t n;

	/* p0f reports a SYN shaped like its own p0f-sendsyn probes (window 1337, MSS 1331) under
	 * "sendsyn probe", with the signature and label any SYN gets */
	if (!strstr(line, " mod=syn|") && !strstr(line, " mod=sendsyn probe|"))
		return 0;
	if (!strptime(line, "[%Y/%m/%d %H:%M:%S]", &tm) || !(sig = strstr(line, "|raw_sig=")))
		return -1;
	lab = strstr(line, "|os=");
	if (!lab)
		lab = strstr(line, "|app=");
	if (!lab)
		return -1;
	n = (size_t)timegm(&tm);
	if (grow(t, n))
		return -1;
	sig += strlen("|raw_sig=");
	sig[strcspn(sig, "|\n")] = 0;
	end = strchr(++lab, '|');
	if (end)
		*end = 0;
	free(t->seen[n].sig);
	free(t->seen[n].label);
	t->seen[n].sig = strdup(sig);
	t->seen[n].label = strdup(lab);
	t->p0f_lines++;
	return t->seen[n].sig && t->seen[n].label ? 0 : -1;
}

/* Each line of @path (@what's output) through @line_fn. 0, or -1 (said). */
static int read_lines(struct table *t, const char *path, const char *what,
		     int (*line_fn)(struct table *t, char *line))
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;

	if (!f) {
		perror(path);
		return -1;
	}
	while (!rc && getline(&line, &cap, f) > 0)
		if (line_fn(t, line)) {
			fprintf(stderr, "syntwin-fingerprints: %s: a %s line not understood: %s", path,
				what, line);
			rc = -1;
		}
	free(line);
	fclose(f);
	return rc;
}

static struct row *row_for(struct table *t, char **f)
{
	char profile[64];
	const char *ja4t = *f[F_JA4T_B] ? f[F_JA4T_B] : f[F_JA4T_N];
	const char *label = *f[F_JA4T_B] ? f[F_LABEL_B] : f[F_LABEL_N];
	struct row *r;

	fp_profile_of(f[F_KNOBS], profile, sizeof(profile));
	for (size_t i = 0; i < t->nrows; i++) {
		r = &t->rows[i];
		if (!strcmp(r->gen, f[F_GEN]) && !strcmp(r->profile, profile) &&
		    !strcmp(r->dir, f[F_DIR]) && !strcmp(r->ja4t, ja4t) && !strcmp(r->label, label))
			return r;
	}
	if (t->nrows == t->cap) {
		struct row *g = realloc(t->rows, (t->cap + 256) * sizeof(*g));

		if (!g)
			return NULL;
		t->rows = g, t->cap += 256;
	}
	r = &t->rows[t->nrows++];
	memset(r, 0, sizeof(*r));
	snprintf(r->gen, sizeof(r->gen), "%s", f[F_GEN]);
	snprintf(r->profile, sizeof(r->profile), "%s", profile);
	snprintf(r->dir, sizeof(r->dir), "%s", f[F_DIR]);
	snprintf(r->ja4t, sizeof(r->ja4t), "%s", ja4t);
	snprintf(r->label, sizeof(r->label), "%s", label);
	return r;
}

/* Does tshark's dissection give passive record @n's JA4T as syntwin computed it? */
static void ja4t_check(struct table *t, size_t n, char **f)
{
	const struct p0f_seen *s = n < t->nseen ? &t->seen[n] : NULL;
	bool frame = s && s->ja4t, ours = *f[F_JA4T_C];

	if (frame && s->malformed) {
		t->malformed++;
		t->ja4t_matched++;
		return;
	}
	if (!frame && !ours)
		return;
	t->ja4t_checked++;
	t->ja4t_matched += frame;
	/* (tshark's "" and syntwin's "": neither gives this packet a JA4T) */
	if (frame && !strcmp(s->ja4t, f[F_JA4T_C])) {
		t->ja4t_agree++;
		return;
	}
	if (t->shown++ < 10)
		fprintf(stderr, "syntwin-fingerprints: record %zu: tshark's fields make JA4T %s, "
			"syntwin says %s\n", n, !frame ? "(no frame)" : *s->ja4t ? s->ja4t : "(none)",
			ours ? f[F_JA4T_C] : "(nothing)");
}

/* Record @n is not passive: a frame of it in the pcap is accounted for, not compared. */
static void frame_of_other(struct table *t, size_t n)
{
	if (t->tshark && n < t->nseen && t->seen[n].ja4t)
		t->ja4t_matched++;
}

/* Does p0f's own log agree with syntwin on passive record @n (the copy it ran on)? */
static void cross_check(struct table *t, struct row *r, size_t n, char **f)
{
	const struct p0f_seen *s = n < t->nseen ? &t->seen[n] : NULL;
	bool theirs = s && s->sig, ours = *f[F_P0F_C];

	if (!theirs && !ours)
		return;
	t->checked++;
	r->p0f_checked++;
	t->matched_lines += theirs;
	if (theirs && ours && !strcmp(s->sig, f[F_P0F_C]) && !strcmp(s->label, f[F_LABEL_C])) {
		t->agree++;
		r->p0f_agree++;
		return;
	}
	if (t->shown++ < 10)
		fprintf(stderr, "syntwin-fingerprints: record %zu: p0f says %s %s, syntwin %s %s\n", n,
			theirs ? s->sig : "(nothing)", theirs ? s->label : "",
			ours ? f[F_P0F_C] : "(nothing)", f[F_LABEL_C]);
}

/* Split one TSV line in place; @tsv's escapes (\t, \n, \\) are undone. */
static int split(char *line, char **f)
{
	int n = 0;
	char *w = line;

	f[n++] = w;
	for (char *p = line; *p && *p != '\n'; p++) {
		if (*p == '\t') {
			*w++ = 0;
			if (n == F_COUNT)
				return -1;
			f[n++] = w;
		} else if (*p == '\\' && p[1]) {
			p++;
			*w++ = *p == 't' ? '\t' : *p == 'n' ? '\n' : *p;
		} else {
			*w++ = *p;
		}
	}
	*w = 0;
	return n == F_COUNT ? 0 : -1;
}

static int read_records(struct table *t, const char *path)
{
	FILE *fp = fopen(path, "r");
	char *line = NULL, *f[F_COUNT];
	size_t cap = 0;
	int rc = 0;

	if (!fp) {
		perror(path);
		return -1;
	}
	while (!rc && getline(&line, &cap, fp) > 0) {
		struct row *r;

		if (split(line, f) || !(r = row_for(t, f))) {
			fprintf(stderr, "syntwin-fingerprints: %s: a record line not understood\n",
				path);
			rc = -1;
			break;
		}
		r->records++;
		if (*f[F_JA4T_N] && *f[F_JA4T_B]) {
			r->same_ja4t += !strcmp(f[F_JA4T_N], f[F_JA4T_B]);
			r->same_label += !strcmp(f[F_LABEL_N], f[F_LABEL_B]);
		}
		if (!strcmp(f[F_DIR], "passive")) {
			cross_check(t, r, strtoull(f[F_N], NULL, 10), f);
			if (t->tshark)
				ja4t_check(t, strtoull(f[F_N], NULL, 10), f);
		} else {
			frame_of_other(t, strtoull(f[F_N], NULL, 10));
		}
	}
	free(line);
	fclose(fp);
	return rc;
}

static int by_gen_profile(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c = strcmp(x->gen, y->gen);

	if (!c)
		c = strcmp(x->profile, y->profile);
	if (!c)
		c = strcmp(x->dir, y->dir);
	return c ? c : (x->records < y->records) - (x->records > y->records);
}

static void print(struct table *t, FILE *out)
{
	qsort(t->rows, t->nrows, sizeof(*t->rows), by_gen_profile);
	fprintf(out, "%-14s %-26s %-7s %7s %9s %9s %9s  %-40s %s\n", "GEN", "PROFILE", "DIR",
		"RECORDS", "SAME-JA4T", "SAME-P0F", "P0F-AGREE", "JA4T (witness)", "P0F LABEL");
	for (size_t i = 0; i < t->nrows; i++) {
		const struct row *r = &t->rows[i];
		char agree[24] = "-";

		if (r->p0f_checked)
			snprintf(agree, sizeof(agree), "%llu/%llu", (unsigned long long)r->p0f_agree,
				 (unsigned long long)r->p0f_checked);
		fprintf(out, "%-14s %-26s %-7s %7llu %9llu %9llu %9s  %-40s %s\n", r->gen,
			*r->profile ? r->profile : "-",
			r->dir, (unsigned long long)r->records, (unsigned long long)r->same_ja4t,
			(unsigned long long)r->same_label, agree, r->ja4t,
			*r->label ? r->label : "(p0f does not fingerprint it)");
	}
}

int fp_table(const char *tsv, const char *p0f_log, const char *tshark, const char *copy,
	     FILE *out)
{
	struct table t = { .tshark = tshark != NULL };
	int rc = 2;

	if (read_lines(&t, p0f_log, "p0f", p0f_line) ||
	    (tshark && read_lines(&t, tshark, "tshark", tshark_line)) ||
	    read_records(&t, tsv))
		goto done;
	print(&t, out);
	fprintf(out, "on %s: p0f's own raw_sig and label equal syntwin's for %llu of %llu passive "
		"records (%llu p0f log lines, %llu of them matched to a record)\n", copy,
		(unsigned long long)t.agree, (unsigned long long)t.checked,
		(unsigned long long)t.p0f_lines, (unsigned long long)t.matched_lines);
	rc = t.agree == t.checked && t.matched_lines == t.p0f_lines ? 0 : 1;
	if (tshark) {
		fprintf(out, "on %s: tshark's JA4T equals syntwin's for %llu of %llu passive records "
			"(%llu frames dissected, %llu of them matched to a record; %llu tshark calls "
			"malformed, not compared)\n", copy,
			(unsigned long long)t.ja4t_agree, (unsigned long long)t.ja4t_checked,
			(unsigned long long)t.tshark_lines, (unsigned long long)t.ja4t_matched,
			(unsigned long long)t.malformed);
		if (t.ja4t_agree != t.ja4t_checked || t.ja4t_matched != t.tshark_lines)
			rc = 1;
	}
done:
	for (size_t i = 0; i < t.nseen; i++) {
		free(t.seen[i].sig);
		free(t.seen[i].label);
		free(t.seen[i].ja4t);
	}
	free(t.seen);
	free(t.rows);
	return rc;
}
