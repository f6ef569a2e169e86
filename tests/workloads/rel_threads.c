/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* rel_threads [HOLD_MS]
 * For the reliability tests: a thread is started and exits (joined), then
 * the process prints "PID TID" on one line, TID being the thread that is
 * gone while its process lives on, and stays HOLD_MS (default 30000). */
#include <pthread.h>
#include "wl.h"

static volatile long exited_tid;

static void *short_lived(void *arg)
{
	exited_tid = syscall(SYS_gettid);
	return NULL;
}

int main(int argc, char **argv)
{
	long hold = wl_arg(argc, argv, 1, 30000);
	pthread_t t;

	if (pthread_create(&t, NULL, short_lived, NULL) || pthread_join(t, NULL))
		return 1;
	printf("%d %ld\n", getpid(), exited_tid);
	fflush(stdout);
	WL_SLEEP_MS(hold);
	return 0;
}
