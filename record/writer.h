/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The records as they reach the disk: each with both copies' fingerprints, in batches. Each
 * write() to the 9p share costs about 0.1 ms under TCG, a record each was a tenth of the
 * server's time: a batch goes out at FLUSH_RECORDS records or when the oldest has waited
 * FLUSH_MS, and before every summary, so whatever stops the run loses at most that; the summary
 * counts only what is on disk.
 */
#ifndef SYNTWIN_WRITER_H
#define SYNTWIN_WRITER_H

#include <stdint.h>

#include "fp_record.h"
#include "p0f.h"
#include "report.h"

#define FLUSH_RECORDS 64
#define FLUSH_MS 100

struct record_writer {
	struct report rep;
	struct p0f_db p0f;
	uint64_t oldest_unwritten_ms;	/* when the first record of the batch was judged */
	int write_errno;		/* the first write failure: the run stops */
	/* TEST ONLY (test_hooks.h): called once a record is on disk; the batch is flushed at
	 * exactly @flush_at records */
	void (*written)(const struct report *rep);
	uint64_t flush_at;
};

/* Appends @c, with both copies' fingerprints (counted in @fp), to the batch. */
void writer_record(struct record_writer *w, const struct conn_record *c, struct fp_stats *fp);
/* Flushes the batch if it is due: full, old, or the record a test waits for. */
void writer_flush_if_due(struct record_writer *w);
/* How long the loop may sleep before the batch is due (ms), at most @wait. */
int writer_wait_ms(const struct record_writer *w, int wait);

#endif
