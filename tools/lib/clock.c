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

/* DUR_PERIOD: ns in the unit that reads best, to three significant
 * digits */
static void period(char *buf, size_t size, uint64_t ns)
{
	static const struct {
		uint64_t ns;
		const char *name;
	} units[] = { { 1000000000, "s" }, { 1000000, "ms" }, { 1000, "us" }, { 1, "ns" } };
	size_t u = 0;

	while (u + 1 < sizeof(units) / sizeof(units[0]) && ns < units[u].ns)
		u++;
	/* 999.7 ms would read 1e+03 ms: 1 s */
	if (u > 0 && (double)ns / (double)units[u].ns >= 999.5)
		u--;
	snprintf(buf, size, "%.3g %s", (double)ns / (double)units[u].ns, units[u].name);
}

void fmt_dur(char *buf, size_t size, uint64_t ns, enum dur_style style)
{
	const char *sp = style == DUR_CELL ? "" : " ";

	if (style == DUR_PERIOD) {
		period(buf, size, ns);
		return;
	}
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
