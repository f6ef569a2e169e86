// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* syswatch_calls N [DELAY_MS] [FAILS] [SLOW] [SLOW_MS] [MODE]
 * A process whose syscalls are known in advance.  Threads:
 *  "sw_caller":  waits DELAY_MS (default 500; -1: until the process gets
 *                SIGUSR1), then makes exactly N getppid() calls from
 *                sw_getppid_here(), FAILS close(-1) calls (each fails with
 *                EBADF) from sw_fail_here(), and SLOW nanosleep(SLOW_MS)
 *                calls from sw_slow_here() (MODE "there": from
 *                sw_slow_there(), and as clock_nanosleep calls).  MODE "unknown": then 4 calls
 *                of syscall 511, which no kernel has (ENOSYS), from
 *                sw_unknown_here().  MODE "hold": then it blocks 600 s in
 *                nanosleep from sw_hold_here() (in progress at the end).
 *                Then it exits.
 *  "sw_spinner": spins from its start on, without a single syscall.
 *  "sw_blocked": blocks in read() on a pipe nobody writes, from its start.
 *  "sw_main":    prints the pid, waits for the caller, lingers 300 ms and
 *                exits (which ends the other threads).
 * Syscalls are made with inline asm (wl.h), so the calling function is the
 * leaf frame of the user stack. */
#include <pthread.h>
#include <signal.h>
#include "wl.h"

static long n_calls, delay_ms, n_fails, n_slow, slow_ms;
static const char *mode = "";
static int pipe_fd[2];
static volatile int threads_named;

NOINLINE void sw_getppid_here(long n)
{
	for (long i = 0; i < n; i++)
		wl_syscall4(SYS_getppid, 0, 0, 0, 0);
}

NOINLINE void sw_fail_here(long n)
{
	for (long i = 0; i < n; i++)
		wl_syscall4(SYS_close, -1, 0, 0, 0);	/* -EBADF */
}

NOINLINE void sw_slow_here(long n, long ms)
{
	for (long i = 0; i < n; i++)
		WL_SLEEP_MS(ms);
}

NOINLINE void sw_slow_there(long n, long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	for (long i = 0; i < n; i++)
		while (wl_syscall4(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, (long)&ts, 0) == -4)
			;	/* EINTR */
}

#define SW_UNKNOWN_NR 511

NOINLINE void sw_unknown_here(void)
{
	for (int i = 0; i < 4; i++)
		wl_syscall4(SW_UNKNOWN_NR, 0, 0, 0, 0);	/* -ENOSYS */
}

NOINLINE void sw_hold_here(void)
{
	WL_SLEEP_MS(600000);
}

static void *caller(void *arg)
{
	sigset_t set;

	wl_name("sw_caller");
	__sync_fetch_and_add(&threads_named, 1);
	if (delay_ms >= 0) {
		wl_delay_ms(delay_ms);
	} else {
		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		while (sigwaitinfo(&set, NULL) < 0)
			;
	}
	sw_getppid_here(n_calls);
	sw_fail_here(n_fails);
	if (!strcmp(mode, "there"))
		sw_slow_there(n_slow, slow_ms);
	else
		sw_slow_here(n_slow, slow_ms);
	if (!strcmp(mode, "unknown"))
		sw_unknown_here();
	if (!strcmp(mode, "hold"))
		sw_hold_here();
	return NULL;
}

static void *spinner(void *arg)
{
	volatile unsigned long x = 0;

	wl_name("sw_spinner");
	__sync_fetch_and_add(&threads_named, 1);
	for (;;)
		x++;
	return NULL;
}

static void *blocked(void *arg)
{
	char c;

	wl_name("sw_blocked");
	__sync_fetch_and_add(&threads_named, 1);
	wl_syscall4(SYS_read, pipe_fd[0], (long)&c, 1, 0);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t tc, ts, tb;
	sigset_t set;

	n_calls = wl_arg(argc, argv, 1, 1000);
	delay_ms = wl_arg(argc, argv, 2, 500);
	n_fails = wl_arg(argc, argv, 3, 0);
	n_slow = wl_arg(argc, argv, 4, 0);
	slow_ms = wl_arg(argc, argv, 5, 20);
	if (argc > 6)
		mode = argv[6];
	wl_name("sw_main");
	/* SIGUSR1 is taken by sigwaitinfo() in the caller only */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (pipe(pipe_fd))
		return 1;
	pthread_create(&ts, NULL, spinner, NULL);
	pthread_create(&tb, NULL, blocked, NULL);
	pthread_create(&tc, NULL, caller, NULL);
	/* every thread is named before the pid is announced */
	while (threads_named < 3)
		wl_delay_ms(1);
	wl_ready();
	pthread_join(tc, NULL);
	wl_delay_ms(300);
	return 0;
}
