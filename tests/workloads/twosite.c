// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* twosite MODE N [GO_FILE]
 * Two call sites in one function: ts_caller() calls the same leaf from
 * two places, so the two stacks differ only in ts_caller's return
 * address and print the same (without --lines).  A tool that keeps one
 * entry per printed identity reports one entry with both halves' count.
 * MODE:
 *   pf    ts_touch() touches N fresh anonymous pages from each call site
 *         (transparent huge pages off): 2N minor faults, all from
 *         main -> ts_caller -> ts_touch, in user mode.
 *   wake  thread "ts_waker" wakes thread "ts_target" (asleep in its
 *         futex wait, /proc state S) N times from each call site of
 *         ts_caller -> ts_poke: 2N wakeups; prints "woken 2N" at the end.
 * Prints its pid (and in wake mode then the target's tid); starts when
 * GO_FILE (or $WL_GO) exists, at once without one. */
#include <pthread.h>
#include <stdatomic.h>
#include <linux/futex.h>
#include "wl.h"

static atomic_int flag;			/* futex word */
static atomic_int target_tid;
static atomic_int go, done;
static char *region;
static long pages;

/* ---- pf ---- */

NOINLINE void ts_touch(char *p)
{
	wl_touch_pages(p, pages);
	__asm__ volatile("" ::: "memory");
}

/* ---- wake ---- */

WL_FUTEX_TARGET("ts_target", ts_wait_here, target)

NOINLINE void ts_poke(void)
{
	/* the last wakeup consumed, the target asleep again */
	while (atomic_load(&flag))
		sched_yield();
	wl_wait_asleep(atomic_load(&target_tid));
	atomic_store(&flag, 1);
	wl_syscall4(SYS_futex, (long)&flag, FUTEX_WAKE_PRIVATE, 1, 0);
	__asm__ volatile("" ::: "memory");
}

/* ---- the two call sites ---- */

NOINLINE void ts_caller(int wake, long n)
{
	if (wake) {
		for (long i = 0; i < n; i++)
			ts_poke();		/* site 1 */
		wl_keep(n);
		for (long i = 0; i < n; i++)
			ts_poke();		/* site 2 */
	} else {
		ts_touch(region);		/* site 1 */
		wl_keep(n);
		ts_touch(region + pages * WL_PAGE);	/* site 2 */
	}
	wl_keep(n);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "pf";
	long n = wl_arg(argc, argv, 2, 100);
	const char *go_file = argc > 3 ? argv[3] : getenv("WL_GO");
	int wake = !strcmp(mode, "wake");
	pthread_t t;

	if ((!wake && strcmp(mode, "pf")) || n < 1 || n > 100000) {
		fprintf(stderr, "twosite: MODE pf or wake, N 1-100000\n");
		return 2;
	}
	if (wake) {
		wl_start_target(&t, target, &target_tid);
		wl_wait_file(go_file);
		wl_name("ts_waker");
		atomic_store(&go, 1);
		ts_caller(1, n);
		target_end(t);
		printf("woken %ld\n", 2 * n);
		fflush(stdout);
		return 0;
	}
	wl_name("twosite");
	pages = n;
	region = wl_fresh_pages(2 * n);
	wl_ready();
	wl_wait_file(go_file);
	ts_caller(0, n);
	wl_delay_ms(100);
	return 0;
}
