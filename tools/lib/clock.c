// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "clock.h"

#include <inttypes.h>
#include <stdio.h>
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

void fmt_dur(char *buf, size_t size, uint64_t ns, enum dur_style style)
{
	const char *sp = style == DUR_TEXT ? " " : "";

	if (ns < 1000)
		snprintf(buf, size, "%" PRIu64 "%sns", ns, sp);
	else if (ns < 1000000 && style == DUR_TEXT)
		snprintf(buf, size, "%" PRIu64 " us", ns / 1000);
	else if (ns < 1000000)
		snprintf(buf, size, "%.1fus", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, size, "%.1f%sms", ns / 1e6, sp);
	else
		snprintf(buf, size, "%.2f%ss", ns / 1e9, sp);
}
