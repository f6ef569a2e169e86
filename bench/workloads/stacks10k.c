// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* stacks10k [LEVELS] [REPEAT]: blocks off-CPU from 10^LEVELS distinct
 * user call paths (default 4 levels: 10,000 paths), REPEAT times each
 * (default 1).  A path is the decimal digits of its number: at each
 * level, descend() calls one of ten functions stk_step0..stk_step9, and
 * the last one ends in stk_leaf(), which sleeps 20 us (timer slack 1 ns).
 * Then prints "done" and waits in stk_park() until killed, so that the
 * tracer can still read its symbols.  Prints its pid first. */
#include <signal.h>
#include "bench_wl.h"

NOINLINE void stk_leaf(void)
{
	struct timespec ts = { 0, 20000 };

	wl_syscall4(SYS_nanosleep, (long)&ts, 0, 0, 0);
	__asm__ volatile("" ::: "memory");
}

NOINLINE void descend(int level, unsigned code);

/* Ten functions with the same body at different addresses: each is a
 * distinct frame.  The empty asm after the call keeps it from being a
 * tail call, so every frame stays on the stack. */
#define STEP(n)                                                                \
	NOINLINE void stk_step##n(int level, unsigned code)                    \
	{                                                                      \
		descend(level, code);                                          \
		__asm__ volatile("" ::: "memory");                             \
	}
STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7) STEP(8) STEP(9)

static void (*const steps[10])(int, unsigned) = {
	stk_step0, stk_step1, stk_step2, stk_step3, stk_step4,
	stk_step5, stk_step6, stk_step7, stk_step8, stk_step9,
};

NOINLINE void descend(int level, unsigned code)
{
	if (level == 0)
		stk_leaf();
	else
		steps[code % 10](level - 1, code / 10);
	__asm__ volatile("" ::: "memory");
}

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
