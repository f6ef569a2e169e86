// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* nofp_waker N [GO_FILE]
 * Built WITHOUT frame pointers (-O2 -fomit-frame-pointer), like most
 * distribution binaries.  A thread "nw_target" is woken exactly N times,
 * each time while it is asleep in FUTEX_WAIT, by the main thread
 * ("nw_waker") through main() -> nofp_waker_outer() -> nofp_waker_middle()
 * -> nofp_waker_inner() -> syscall() (libc) FUTEX_WAKE.  A frame-pointer
 * unwinder loses that chain inside libc; a DWARF unwinder recovers it.
 * Prints its pid, then the target's tid; starts when GO_FILE exists (or
 * at once without one); at the end prints "woken N". */
#include <pthread.h>
#include <stdatomic.h>
#include <linux/futex.h>
#include "wl.h"

static long n_rounds;
static atomic_int flag;			/* futex word */
static atomic_int target_tid;
static atomic_int go;
static volatile long sink;

static void *target(void *arg)
{
	wl_name("nw_target");
	atomic_store(&target_tid, (int)syscall(SYS_gettid));
	/* spin, do not sleep: no wakeup of this thread before the start */
	while (!atomic_load(&go))
		sched_yield();
	for (long i = 0; i < n_rounds; i++) {
		while (!atomic_load(&flag))
			wl_syscall4(SYS_futex, (long)&flag, FUTEX_WAIT_PRIVATE, 0, 0);
		atomic_store(&flag, 0);
	}
	return NULL;
}

static void wait_target_asleep(void)
{
	wl_wait_asleep(atomic_load(&target_tid));
}

NOINLINE long nofp_waker_inner(void)
{
	long r;

	atomic_store(&flag, 1);
	r = syscall(SYS_futex, &flag, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	sink++;		/* no tail call: keep this frame on the stack */
	return r;
}

NOINLINE long nofp_waker_middle(void)
{
	volatile char pad[64];
	long r;

	pad[0] = 1;
	r = nofp_waker_inner() + pad[0] - 1;
	sink++;
	return r;
}

NOINLINE long nofp_waker_outer(long n)
{
	long woken = 0;

	for (long i = 0; i < n; i++) {
		while (atomic_load(&flag))
			sched_yield();
		wait_target_asleep();
		woken += nofp_waker_middle() == 1;
	}
	sink++;
	return woken;
}

int main(int argc, char **argv)
{
	pthread_t t;
	long woken;

	n_rounds = wl_arg(argc, argv, 1, 100);
	wl_name("nw_waker");
	wl_start_target(&t, target, &target_tid);
	wl_wait_file(argc > 2 ? argv[2] : NULL);
	atomic_store(&go, 1);
	woken = nofp_waker_outer(n_rounds);
	pthread_join(t, NULL);
	printf("woken %ld\n", woken);
	return 0;
}
