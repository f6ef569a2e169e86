/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* many_wakees [THREADS] [ROUNDS]
 * THREADS threads (default 10001, small stacks) each wait on one futex;
 * once $WL_GO exists, the main thread wakes them all ROUNDS times (default
 * 3), and each woken thread sleeps 1 ms (a timer wakes it) before it waits
 * again: every thread is woken from two places, at least 2 * THREADS
 * distinct (waker, stacks, target) records.  Prints its pid first, then
 * exits once the last round is done. */
#include <limits.h>
#include <pthread.h>
#include <linux/futex.h>
#include "wl.h"

static volatile int gen;
static volatile int waiting;

static void *wakee(void *arg)
{
	long rounds = (long)arg;

	for (int r = 0; r < rounds; r++) {
		__sync_fetch_and_add(&waiting, 1);
		while (gen == r)
			syscall(SYS_futex, &gen, FUTEX_WAIT_PRIVATE, r, NULL, NULL, 0);
		WL_SLEEP_MS(1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long n = wl_arg(argc, argv, 1, 10001), rounds = wl_arg(argc, argv, 2, 3);
	pthread_attr_t a;
	pthread_t *t = calloc(n, sizeof(*t));

	if (!t)
		return 1;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 * 1024);
	for (long i = 0; i < n; i++)
		if (pthread_create(&t[i], &a, wakee, (void *)rounds))
			return 1;
	wl_ready();
	wl_wait_go();
	for (int r = 0; r < rounds; r++) {
		/* every thread waits before the wakeup */
		while (waiting < n * (r + 1))
			wl_delay_ms(5);
		wl_delay_ms(20);
		__sync_fetch_and_add(&gen, 1);
		syscall(SYS_futex, &gen, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	}
	for (long i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
