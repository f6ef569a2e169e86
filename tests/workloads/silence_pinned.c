// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* silence_pinned CPU N PERIOD_MS [TAIL_MS]
 * For schedsilence: a thread "ss_spinner" spins on CPU, pinned, from the
 * start; a thread "ss_intruder", pinned to the same CPU, waits for SIGUSR1,
 * then wakes up N times, every PERIOD_MS milliseconds (nanosleep), and
 * blocks for good: N + 1 switch-ins on CPU (the SIGUSR1 wakeup and N timer
 * wakeups).  TAIL_MS (default 300) after that, the process exits.  The main thread ("ss_main") stays off CPU where another CPU is
 * online.  Prints "PID SPINNER_TID INTRUDER_TID" on one line when ready. */
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include "wl.h"

static int cpu;
static long n_wakes, period_ms;
static atomic_int stop;
static atomic_int spinner_tid, intruder_tid;
static sem_t done;

NOINLINE void silence_spin(void)
{
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		__asm__ volatile("" ::: "memory");
}

static void *spinner(void *arg)
{
	wl_pin(cpu);
	wl_name("ss_spinner");
	atomic_store(&spinner_tid, (int)syscall(SYS_gettid));
	silence_spin();
	return NULL;
}

NOINLINE void silence_intrude(void)
{
	for (long i = 0; i < n_wakes; i++)
		WL_SLEEP_MS(period_ms);
}

static void *intruder(void *arg)
{
	sigset_t *set = arg;
	int sig;

	wl_pin(cpu);
	wl_name("ss_intruder");
	atomic_store(&intruder_tid, (int)syscall(SYS_gettid));
	sigwait(set, &sig);
	silence_intrude();
	sem_post(&done);
	sigwait(set, &sig);	/* alive, but off the CPU, until the end */
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t s, t;
	sigset_t set;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	if (argc < 4) {
		fprintf(stderr, "usage: silence_pinned CPU N PERIOD_MS [TAIL_MS]\n");
		return 2;
	}
	cpu = (int)wl_arg(argc, argv, 1, 1);
	n_wakes = wl_arg(argc, argv, 2, 20);
	period_ms = wl_arg(argc, argv, 3, 10);
	wl_name("ss_main");
	if (ncpu > 1)
		wl_pin(cpu == 0 ? 1 : 0);
	/* SIGUSR1 blocked everywhere: only the intruder's sigwait takes it */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	sem_init(&done, 0, 0);
	pthread_create(&s, NULL, spinner, NULL);
	pthread_create(&t, NULL, intruder, &set);
	while (!atomic_load(&spinner_tid) || !atomic_load(&intruder_tid))
		wl_delay_ms(1);
	printf("%d %d %d\n", getpid(), atomic_load(&spinner_tid), atomic_load(&intruder_tid));
	fflush(stdout);
	while (sem_wait(&done))
		;
	wl_delay_ms(wl_arg(argc, argv, 4, 300));
	atomic_store(&stop, 1);
	pthread_join(s, NULL);
	return 0;	/* ends the blocked intruder too */
}
