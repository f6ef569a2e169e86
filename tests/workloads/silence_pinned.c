// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* silence_pinned CPU N PERIOD_MS [TAIL_MS]
 * For schedsilence: a thread "ss_spinner" spins on CPU, pinned, from the
 * start; a thread "ss_intruder", pinned to the same CPU, waits for SIGUSR1,
 * then wakes up N times, every PERIOD_MS milliseconds (nanosleep to
 * deadlines on the clock: a wakeup that waited for the CPU does not push
 * the next one later, so the period holds on a loaded machine; each
 * wakeup is one block all the same), and
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

static void ts_add_ms(struct timespec *t, long ms)
{
	t->tv_nsec += (ms % 1000) * 1000000L;
	t->tv_sec += ms / 1000 + t->tv_nsec / 1000000000L;
	t->tv_nsec %= 1000000000L;
}

NOINLINE void silence_intrude(void)
{
	struct timespec at, now;

	clock_gettime(CLOCK_MONOTONIC, &at);
	for (long i = 0; i < n_wakes; i++) {
		long long left;

		ts_add_ms(&at, period_ms);
		/* to the deadline, as a relative sleep that always blocks: a
		 * deadline under 1 ms away (a wakeup that waited that long for
		 * the CPU) becomes PERIOD_MS from now, so each wakeup is one
		 * block, N + 1 switch-ins in all */
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = (long long)(at.tv_sec - now.tv_sec) * 1000000000LL + (at.tv_nsec - now.tv_nsec);
		if (left < 1000000) {
			at = now;
			ts_add_ms(&at, period_ms);
			left = period_ms * 1000000LL;
		}
		struct timespec rel = { left / 1000000000LL, left % 1000000000LL };

		while (wl_syscall4(SYS_nanosleep, (long)&rel, (long)&rel, 0, 0) == -4 /* EINTR */)
			;
	}
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
