/* SPDX-License-Identifier: GPL-2.0 */
/* The run view of `syntwin fingerprints DIR` (fp_table.c). */
#ifndef SYNTWIN_FP_TABLE_H
#define SYNTWIN_FP_TABLE_H

#include <stdio.h>

int fp_table(const char *tsv, const char *p0f_log, FILE *out);

#endif
