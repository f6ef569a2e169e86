// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* futex_pingpong [SECS]: two threads hand a token back and forth through
 * one futex word for SECS seconds (default 2); each hand-off is a
 * FUTEX_WAKE by one thread and a FUTEX_WAIT return in the other.  Prints
 * round trips per second. */
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include "bench_wl.h"

static _Atomic int turn;		/* 0: ping's turn, 1: pong's, 2: stop */
static unsigned long long rounds;

NOINLINE void pp_wait(int not_val)
{
	while (atomic_load(&turn) == not_val)
		wl_syscall4(SYS_futex, (long)&turn, FUTEX_WAIT_PRIVATE, not_val, 0);
}

NOINLINE void pp_pass(int to)
{
	atomic_store(&turn, to);
	wl_syscall4(SYS_futex, (long)&turn, FUTEX_WAKE_PRIVATE, 1, 0);
}

static void *pong(void *arg)
{
	(void)arg;
	wl_name("bench_pong");
	for (;;) {
		pp_wait(0);
		if (atomic_load(&turn) == 2)
			return NULL;
		pp_pass(0);
	}
}

int main(int argc, char **argv)
{
	double secs = bw_secs_arg(argc, argv, 1, 2.0), t0, t;
	pthread_t th;

	wl_name("bench_ping");
	pthread_create(&th, NULL, pong, NULL);
	t0 = bw_now();
	do {
		for (int i = 0; i < 64; i++) {
			pp_pass(1);
			pp_wait(1);
		}
		rounds += 64;
		t = bw_now();
	} while (t - t0 < secs);
	atomic_store(&turn, 2);
	wl_syscall4(SYS_futex, (long)&turn, FUTEX_WAKE_PRIVATE, 1, 0);
	pthread_join(th, NULL);
	bw_report(rounds, t - t0);
	return 0;
}
