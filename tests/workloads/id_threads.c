// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* id_threads N [HOLD_MS]
 * A big process: N threads in all ("idt_main" and N - 1 "idt_worker"
 * threads on small stacks, each blocked in read() on a pipe nobody
 * writes).  Prints its pid once every thread exists, then stays HOLD_MS
 * (default 60000) and exits. */
#include <pthread.h>
#include "wl.h"

static int pipe_fd[2];

static void *worker(void *arg)
{
	char c;

	wl_name("idt_worker");
	if (read(pipe_fd[0], &c, 1) < 0)
		return NULL;
	return NULL;
}

int main(int argc, char **argv)
{
	long n = wl_arg(argc, argv, 1, 1000), hold = wl_arg(argc, argv, 2, 60000);
	pthread_attr_t attr;
	pthread_t t;

	wl_name("idt_main");
	if (pipe(pipe_fd) || pthread_attr_init(&attr) ||
	    pthread_attr_setstacksize(&attr, 64 * 1024))
		return 1;
	for (long i = 1; i < n; i++)
		if (pthread_create(&t, &attr, worker, NULL)) {
			perror("pthread_create");
			return 1;
		}
	wl_ready();
	WL_SLEEP_MS(hold);
	return 0;
}
