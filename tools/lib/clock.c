// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "clock.h"

#include <time.h>

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t realtime_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

uint64_t boottime_ns(void)
{
	return clock_ns(CLOCK_BOOTTIME);
}
