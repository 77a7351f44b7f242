/* SPDX-License-Identifier: GPL-2.0 */
/* The run view of `syntwin fingerprints DIR` (fp_table.c). */
#ifndef SYNTWIN_FP_TABLE_H
#define SYNTWIN_FP_TABLE_H

#include <stdio.h>

/* The table of @tsv's records, p0f's log @p0f_log and tshark's fields @tshark (NULL: no JA4T
 * check) of the copy named @copy ("the wire's capture", "the witness's copies"). Returns 0, 1
 * when a tool disagrees with syntwin or logged what no record holds, 2 on bad input. */
int fp_table(const char *tsv, const char *p0f_log, const char *tshark, const char *copy,
	     FILE *out);

#endif
