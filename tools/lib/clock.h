/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The clocks of the suite, in nanoseconds, and durations as text */
#ifndef SUITE_CLOCK_H
#define SUITE_CLOCK_H

#include <stddef.h>
#include <stdint.h>

/* Monotonic and realtime clocks in nanoseconds. */
uint64_t now_ns(void);
uint64_t realtime_ns(void);
/* The kernel's boot-time clock (bpf_ktime_get_boot_ns) */
uint64_t boottime_ns(void);

/* How a duration reads */
enum dur_style {
	DUR_CELL,	/* a table's cell: "999ns", "1.5us", "2.1ms", "1.25s" */
	DUR_TEXT,	/* in a sentence: "999 ns", "35 us", "2.1 ms", "1.25 s" */
	DUR_PERIOD,	/* a period, three digits: "80 us", "7.99 ms", "250 ms", "1 s" */
};

/* ns as a duration in the unit that reads best (ns, us, ms, s) */
void fmt_dur(char *buf, size_t size, uint64_t ns, enum dur_style style);

#endif
