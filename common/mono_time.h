/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CLOCK_MONOTONIC, the clock of the witness's bpf_ktime_get_ns(): in ns (a label's time, to
 * compare with a capture's) and in ms (the generators' deadlines, the run's waits); and the
 * wall clock in ms.
 */
#ifndef SYNTWIN_MONO_TIME_H
#define SYNTWIN_MONO_TIME_H

#include <stdbool.h>
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

/* CLOCK_REALTIME in ms since the epoch: the clock of an IPv4 timestamp option (classify.h). */
static inline uint64_t realtime_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* How long a generator's loop may sleep (at most 1000 ms): until @deadline_ms while it is
 * @waiting for one segment, 50 ms while it is @closing (the closes are counted as they come
 * and the deadline is checked each time), else the loop's own second. */
static inline int mono_wait_ms(bool waiting, bool closing, uint64_t deadline_ms)
{
	uint64_t now = mono_ms();

	if (closing)
		return 50;
	if (!waiting || deadline_ms >= now + 1000)
		return 1000;
	return deadline_ms > now ? (int)(deadline_ms - now) + 1 : 0;
}

#endif
