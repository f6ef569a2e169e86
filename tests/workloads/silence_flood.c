// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* silence_flood CPU K
 * For schedsilence's loss accounting: two threads ("ss_ping", "ss_pong")
 * pinned to CPU bounce a byte over two pipes K times, as fast as they
 * can: 2K context switches and 2K wakeups on that CPU in a burst.  Waits
 * for SIGUSR1 first; prints its pid when ready. */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include "wl.h"

static int cpu, ab[2], ba[2];
static long rounds;

static void *pong(void *arg)
{
	char b;

	wl_set_cpu(cpu);
	wl_name("ss_pong");
	for (long i = 0; i < rounds; i++) {
		if (read(ab[0], &b, 1) != 1 || write(ba[1], &b, 1) != 1)
			break;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	sigset_t set;
	char b = 0;
	int sig;

	cpu = (int)wl_arg(argc, argv, 1, 1);
	rounds = wl_arg(argc, argv, 2, 100000);
	if (pipe(ab) || pipe(ba))
		return 1;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	wl_ready();
	sigwait(&set, &sig);
	pthread_create(&t, NULL, pong, NULL);
	wl_set_cpu(cpu);
	wl_name("ss_ping");
	for (long i = 0; i < rounds; i++) {
		if (write(ab[1], &b, 1) != 1 || read(ba[0], &b, 1) != 1)
			break;
	}
	pthread_join(t, NULL);
	return 0;
}
