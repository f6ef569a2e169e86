// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* id_reuse old N MS HOLD_MS
 *     Process "reuse_main" with one thread "reuse_old" that waits for the
 *     file $WL_GO, then blocks N times MS ms in reuse_old_block() and makes
 *     N getppid() calls from reuse_old_calls(), and exits.  The process
 *     prints "PID TID" first, "gone" once the thread is joined, then stays
 *     HOLD_MS ms (its main thread asleep in reuse_main_hold()).
 * id_reuse new ID N MS
 *     Starts a process whose pid is ID (a number just freed: ID - 1 is
 *     written to /proc/sys/kernel/ns_last_pid under its flock, retried
 *     when another fork takes it first) and prints ID once it has it.  That
 *     process, "reuse_new", waits for $WL_GO, blocks N times MS ms in
 *     reuse_new_block(), makes N getppid() calls from reuse_new_calls(),
 *     touches N fresh pages in reuse_new_touch(), and exits; the starter
 *     waits for it.
 * Every block and call is made from the named function itself (wl.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "wl.h"

static long n_rounds, round_ms;
static volatile long old_tid;
static int go_pipe[2];

NOINLINE void reuse_old_touch(volatile char *p, long n)
{
	wl_touch_pages(p, n);
}

NOINLINE void reuse_new_touch(volatile char *p, long n)
{
	wl_touch_pages(p, n);
}

NOINLINE void reuse_old_block(long ms)
{
	WL_SLEEP_MS(ms);
}

NOINLINE void reuse_old_calls(long n)
{
	for (long i = 0; i < n; i++)
		wl_syscall4(SYS_getppid, 0, 0, 0, 0);
}

NOINLINE void reuse_new_block(long ms)
{
	WL_SLEEP_MS(ms);
}

NOINLINE void reuse_new_calls(long n)
{
	for (long i = 0; i < n; i++)
		wl_syscall4(SYS_getppid, 0, 0, 0, 0);
}

NOINLINE void reuse_main_hold(long ms)
{
	WL_SLEEP_MS(ms);
}

static void *old_thread(void *arg)
{
	volatile char *pages = wl_fresh_pages(n_rounds);
	char c;

	wl_name("reuse_old");
	old_tid = syscall(SYS_gettid);
	if (read(go_pipe[0], &c, 1) != 1)
		exit(1);
	for (long i = 0; i < n_rounds; i++)
		reuse_old_block(round_ms);
	reuse_old_calls(n_rounds);
	reuse_old_touch(pages, n_rounds);
	return NULL;
}

static int run_old(long hold)
{
	pthread_t t;

	wl_name("reuse_main");
	if (pipe(go_pipe) || pthread_create(&t, NULL, old_thread, NULL))
		return 1;
	while (!old_tid)
		wl_delay_ms(1);
	printf("%d %ld\n", getpid(), old_tid);
	fflush(stdout);
	wl_wait_go();
	if (write(go_pipe[1], "g", 1) != 1)
		return 1;
	pthread_join(t, NULL);
	printf("gone\n");
	fflush(stdout);
	reuse_main_hold(hold);
	return 0;
}

static void new_process(void)
{
	volatile char *pages = wl_fresh_pages(n_rounds);

	wl_name("reuse_new");
	wl_wait_go();
	for (long i = 0; i < n_rounds; i++)
		reuse_new_block(round_ms);
	reuse_new_calls(n_rounds);
	reuse_new_touch(pages, n_rounds);
	_exit(0);
}

static int run_new(long id)
{
	char buf[32];
	int len, st;

	len = snprintf(buf, sizeof(buf), "%ld", id - 1);
	for (int tries = 0; tries < 200; tries++) {
		int fd = open("/proc/sys/kernel/ns_last_pid", O_RDWR | O_CLOEXEC);
		pid_t child;

		if (fd < 0 || flock(fd, LOCK_EX)) {
			perror("ns_last_pid");
			return 1;
		}
		if (write(fd, buf, len) != len) {
			perror("ns_last_pid");
			return 1;
		}
		child = fork();
		if (child == 0)
			new_process();
		close(fd);	/* unlocks */
		if (child < 0)
			return 1;
		if (child == id) {
			printf("%d\n", child);
			fflush(stdout);
			waitpid(child, &st, 0);
			return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
		}
		/* another fork was quicker: that child never started working */
		kill(child, SIGKILL);
		waitpid(child, &st, 0);
		wl_delay_ms(2);
	}
	fprintf(stderr, "id_reuse: could not get pid %ld\n", id);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "old")) {
		n_rounds = wl_arg(argc, argv, 2, 5);
		round_ms = wl_arg(argc, argv, 3, 20);
		return run_old(wl_arg(argc, argv, 4, 10000));
	}
	if (argc == 5 && !strcmp(argv[1], "new")) {
		n_rounds = wl_arg(argc, argv, 3, 5);
		round_ms = wl_arg(argc, argv, 4, 20);
		return run_new(wl_arg(argc, argv, 2, 0));
	}
	fprintf(stderr, "usage: id_reuse old N MS HOLD_MS | new ID N MS\n");
	return 2;
}
