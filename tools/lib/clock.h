/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The clocks of the suite, in nanoseconds */
#ifndef SUITE_CLOCK_H
#define SUITE_CLOCK_H

#include <stdint.h>

/* Monotonic and realtime clocks in nanoseconds. */
uint64_t now_ns(void);
uint64_t realtime_ns(void);
/* The kernel's boot-time clock (bpf_ktime_get_boot_ns) */
uint64_t boottime_ns(void);

#endif
