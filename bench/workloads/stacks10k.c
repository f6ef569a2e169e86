// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* stacks10k [LEVELS] [REPEAT]: blocks off-CPU from 10^LEVELS distinct
 * user call paths (default 4 levels: 10,000 paths), REPEAT times each
 * (default 1).  A path is the decimal digits of its number: at each
 * level, descend() calls one of ten functions stk_step0..stk_step9, and
 * the last one ends in stk_leaf(), which sleeps 20 us (timer slack 1 ns),
 * again should the timer expire before the thread got off the CPU: every
 * path blocks at least once.
 * Then prints "done" and waits in stk_park() until killed, so that the
 * tracer can still read its symbols.  Prints its pid first. */
#include <signal.h>
#include <sys/resource.h>
#include "bench_wl.h"

static long voluntary_switches(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_nvcsw;
}

NOINLINE void stk_leaf(void)
{
	struct timespec ts = { 0, 20000 };
	long before = voluntary_switches();

	do
		wl_syscall4(SYS_nanosleep, (long)&ts, 0, 0, 0);
	while (voluntary_switches() == before);
	__asm__ volatile("" ::: "memory");
}

/* stk_step0..stk_step9, and descend(), which ends in stk_leaf() */
WL_CALL_PATHS(stk_step, descend, stk_leaf)

NOINLINE void stk_park(void)
{
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	long levels = wl_arg(argc, argv, 1, 4), repeat = wl_arg(argc, argv, 2, 1);
	unsigned paths = 1;

	if (levels < 1 || levels > 6 || repeat < 1 || repeat > 100) {
		fprintf(stderr, "stacks10k: LEVELS must be 1-6 and REPEAT 1-100\n");
		return 2;
	}
	for (long i = 0; i < levels; i++)
		paths *= 10;
	prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0);
	wl_name("bench_stacks");
	wl_ready();
	for (long r = 0; r < repeat; r++)
		for (unsigned c = 0; c < paths; c++)
			descend(levels, c);
	printf("done %u paths\n", paths);
	fflush(stdout);
	stk_park();
	return 0;
}
