// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* wake_paths PATHS REPEAT GAP_US [GO_FILE]
 * Thread "wp_waker" wakes thread "wp_target" from PATHS distinct user call
 * paths (1 to 10000), REPEAT times each, waiting GAP_US microseconds
 * between two wakeups, each time while the target is really asleep (its
 * /proc state is S) in its futex wait.  A path is the four decimal digits
 * of its number: at each level wp_descend() calls one of ten functions
 * wp_step0..wp_step9, and the last one ends in wp_poke(), which wakes the
 * target with FUTEX_WAKE.  So a tracer that keeps every stack reports
 * PATHS waker stacks with REPEAT wakeups each.
 * Prints its pid, then the target's tid; starts when GO_FILE exists (or at
 * once without one); at the end prints "woken N" (the wakeups it made). */
#include <pthread.h>
#include <stdatomic.h>
#include <linux/futex.h>
#include "wl.h"

#define LEVELS 4

static atomic_int flag;			/* futex word */
static atomic_int target_tid;
static atomic_int go;			/* the waker has started */
static atomic_int done;

/* ---- the target ---- */

WL_FUTEX_TARGET("wp_target", wp_wait_here, target)

/* ---- the waker: one call path per number ---- */

NOINLINE void wp_poke(void)
{
	atomic_store(&flag, 1);
	wl_syscall4(SYS_futex, (long)&flag, FUTEX_WAKE_PRIVATE, 1, 0);
	__asm__ volatile("" ::: "memory");
}

/* wp_step0..wp_step9, and wp_descend(), which ends in wp_poke() */
WL_CALL_PATHS(wp_step, wp_descend, wp_poke)

int main(int argc, char **argv)
{
	long paths = wl_arg(argc, argv, 1, 10000), repeat = wl_arg(argc, argv, 2, 1);
	long gap_us = wl_arg(argc, argv, 3, 0), woken = 0;
	const char *go_file = argc > 4 ? argv[4] : NULL;
	pthread_t t;

	if (paths < 1 || paths > 10000 || repeat < 1 || repeat > 100 ||
	    gap_us < 0 || gap_us > 1000000) {
		fprintf(stderr, "wake_paths: PATHS 1-10000, REPEAT 1-100, GAP_US 0-1000000\n");
		return 2;
	}
	wl_start_target(&t, target, &target_tid);
	wl_wait_file(go_file);
	wl_name("wp_waker");
	atomic_store(&go, 1);
	for (long r = 0; r < repeat; r++) {
		for (long c = 0; c < paths; c++) {
			/* the last wakeup consumed: the target waits again */
			while (atomic_load(&flag))
				sched_yield();
			wl_wait_asleep(atomic_load(&target_tid));
			wp_descend(LEVELS, (unsigned)c);
			woken++;
			if (gap_us)
				usleep(gap_us);
		}
	}
	/* its last wakeup from main itself, not through wp_poke(), and not
	 * counted in "woken" */
	target_end(t);
	printf("woken %ld\n", woken);
	fflush(stdout);
	return 0;
}
