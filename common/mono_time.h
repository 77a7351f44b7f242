/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CLOCK_MONOTONIC, the clock of the witness's bpf_ktime_get_ns(): in ns (a label's time, to
 * compare with a capture's) and in ms (the generators' deadlines).
 */
#ifndef SYNTWIN_MONO_TIME_H
#define SYNTWIN_MONO_TIME_H

#include <stdint.h>
#include <time.h>

static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t mono_ms(void)
{
	return mono_ns() / 1000000;
}

#endif
