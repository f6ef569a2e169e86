// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* hot_thread CPU K P B
 * For hotcheck: a thread "hc_hot", pinned to CPU, spins (computing: no
 * syscall, no fault) until the file named by $WL_GO exists (the main
 * thread watches for it; without $WL_GO it is never released), then makes
 * exactly K getppid() calls from hc_make_syscalls(), takes P page faults
 * on fresh anonymous pages in hc_touch_pages() and blocks B times in
 * nanosleep(1 ms) from hc_block() (so K + B syscalls in all), then spins
 * again for good.  Everything those three functions need was touched
 * before (their code, the pages' mapping, the stack).  Prints "PID" and
 * then "TID" of hc_hot, once it spins, and "done" once it has done all
 * of it.  The main thread exits when the process is killed. */
#include <stdatomic.h>
#include "wl.h"

static int cpu;
static long k_calls, p_faults, b_blocks;
static char *pages;
static atomic_int go, hot_tid;

NOINLINE void hc_make_syscalls(long n)
{
	for (long i = 0; i < n; i++)
		wl_syscall4(SYS_getppid, 0, 0, 0, 0);
	wl_keep(n);
}

NOINLINE void hc_touch_pages(char *p, long n)
{
	wl_touch_pages(p, n);
}

NOINLINE void hc_block(long n)
{
	for (long i = 0; i < n; i++)
		WL_SLEEP_MS(1);
	wl_keep(n);
}

NOINLINE void hc_spin(void)
{
	while (!atomic_load_explicit(&go, memory_order_relaxed))
		__asm__ volatile("" ::: "memory");
}

static void *hot(void *arg)
{
	volatile char stack[16384];

	wl_pin(cpu);
	wl_name("hc_hot");
	/* the stack and the code it will run, touched now */
	for (size_t i = 0; i < sizeof(stack); i += WL_PAGE)
		stack[i] = 0;
	hc_make_syscalls(0);
	hc_touch_pages(pages, 0);
	hc_block(0);
	atomic_store(&hot_tid, (int)syscall(SYS_gettid));
	hc_spin();
	hc_make_syscalls(k_calls);
	hc_touch_pages(pages, p_faults);
	hc_block(b_blocks);
	atomic_store(&go, 0);
	hc_spin();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	cpu = (int)wl_arg(argc, argv, 1, 1);
	k_calls = wl_arg(argc, argv, 2, 0);
	p_faults = wl_arg(argc, argv, 3, 0);
	b_blocks = wl_arg(argc, argv, 4, 0);
	wl_name("hc_main");
	pages = wl_fresh_pages(p_faults ? p_faults : 1);
	printf("%d\n", getpid());
	fflush(stdout);
	if (pthread_create(&t, NULL, hot, NULL))
		return 1;
	while (!atomic_load(&hot_tid))
		wl_delay_ms(1);
	printf("%d\n", atomic_load(&hot_tid));
	fflush(stdout);
	if (!getenv("WL_GO"))
		pause();
	wl_wait_go();
	atomic_store(&go, 1);
	/* "done", a third line, once hc_hot has made all its calls, faults
	 * and blocks (it prints nothing itself: a write is a syscall) */
	while (atomic_load(&go))
		wl_delay_ms(10);
	printf("done\n");
	fflush(stdout);
	for (;;)
		pause();
}
