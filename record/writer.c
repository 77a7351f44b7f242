// SPDX-License-Identifier: GPL-2.0
/* The records, in batches (writer.h). */
#include "writer.h"

#include <errno.h>

#include "mono_time.h"

static void flush_records(struct record_writer *w)
{
	if (w->rep.lines_buffered && report_flush(&w->rep) && !w->write_errno)
		w->write_errno = errno ? errno : EIO;
}

void writer_flush_if_due(struct record_writer *w)
{
	struct report *rep = &w->rep;

	if (!rep->lines_buffered)
		return;
	if (rep->lines_buffered >= FLUSH_RECORDS || mono_ms() - w->oldest_unwritten_ms >= FLUSH_MS ||
	    (w->flush_at && rep->lines_written + rep->lines_buffered == w->flush_at))
		flush_records(w);
}

void writer_record(struct record_writer *w, const struct conn_record *c, struct fp_stats *fp)
{
	struct record_fp rfp;

	record_fp_compute(&w->p0f, c, &rfp);
	fp_stats_add(fp, c, &rfp);
	if (!w->rep.lines_buffered)
		w->oldest_unwritten_ms = mono_ms();
	if (report_conn(&w->rep, c, &rfp) && !w->write_errno)
		w->write_errno = errno ? errno : EIO;
	writer_flush_if_due(w);
	if (w->written)
		w->written(&w->rep);
}

int writer_wait_ms(const struct record_writer *w, int wait)
{
	return w->rep.lines_buffered && wait > FLUSH_MS ? FLUSH_MS : wait;
}
