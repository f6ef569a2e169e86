// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* offcpu_sleepers window | twosites N
 * window: two threads block before anything traces them and until the
 *   workload is killed: "ws_pipe" in ws_pipe_wait() (a read of a pipe
 *   nobody writes) and "ws_futex" in ws_futex_wait() (a futex nobody
 *   wakes); the main thread ("ws_main") then pauses in ws_main_wait().
 *   It prints its pid once both threads are asleep (state S).
 * twosites N: with WL_GO=PATH it starts once PATH exists; the thread
 *   "ts_blocker" then calls ts_block() (a 1 ms sleep) 2N times, from two
 *   call sites of ts_caller() (two return addresses, one function name),
 *   then exits with the process. */
#include <signal.h>
#include <linux/futex.h>
#include "wl.h"

static int pipefd[2];
static atomic_int futex_word, pipe_tid, futex_tid;

NOINLINE void ws_pipe_wait(void)
{
	char c;

	wl_syscall4(SYS_read, pipefd[0], (long)&c, 1, 0);
	wl_keep(c);
}

NOINLINE void ws_futex_wait(void)
{
	for (;;)
		wl_syscall4(SYS_futex, (long)&futex_word, FUTEX_WAIT_PRIVATE, 0, 0);
}

static void *pipe_thread(void *arg)
{
	wl_name("ws_pipe");
	atomic_store(&pipe_tid, (int)syscall(SYS_gettid));
	ws_pipe_wait();
	return arg;
}

static void *futex_thread(void *arg)
{
	wl_name("ws_futex");
	atomic_store(&futex_tid, (int)syscall(SYS_gettid));
	ws_futex_wait();
	return arg;
}

NOINLINE void ws_main_wait(void)
{
	for (;;)
		wl_syscall4(SYS_pause, 0, 0, 0, 0);
}

NOINLINE void ts_block(void)
{
	WL_SLEEP_MS(1);
	__asm__ volatile("" ::: "memory");
}

NOINLINE void ts_caller(long n)
{
	for (long i = 0; i < n; i++) {
		ts_block();	/* call site 1 */
		__asm__ volatile("" ::: "memory");
		ts_block();	/* call site 2: another return address */
		__asm__ volatile("" ::: "memory");
	}
}

static void *twosites_thread(void *arg)
{
	wl_name("ts_blocker");
	ts_caller((long)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t1, t2;

	if (argc > 1 && !strcmp(argv[1], "twosites")) {
		long n = wl_arg(argc, argv, 2, 10);

		wl_name("ts_main");
		printf("%d\n", getpid());
		fflush(stdout);
		wl_wait_go();
		pthread_create(&t1, NULL, twosites_thread, (void *)n);
		pthread_join(t1, NULL);
		return 0;
	}
	if (argc < 2 || strcmp(argv[1], "window")) {
		fprintf(stderr, "usage: offcpu_sleepers window | twosites N\n");
		return 2;
	}
	wl_name("ws_main");
	if (pipe(pipefd))
		return 1;
	pthread_create(&t1, NULL, pipe_thread, NULL);
	pthread_create(&t2, NULL, futex_thread, NULL);
	while (!atomic_load(&pipe_tid) || !atomic_load(&futex_tid))
		sched_yield();
	wl_wait_asleep(atomic_load(&pipe_tid));
	wl_wait_asleep(atomic_load(&futex_tid));
	printf("%d\n", getpid());
	fflush(stdout);
	ws_main_wait();
	return 0;
}
