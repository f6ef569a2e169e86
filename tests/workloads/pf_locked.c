// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* pf_locked [PAGES] [RUN_MS] [DELAY_MS]
 * A latency-critical process done right.  Prints its pid, waits DELAY_MS
 * (default 5000; SIGUSR1 ends the wait at once), then warms up: touches
 * PAGES (default 512) fresh pages of a buffer in pf_prefault() (one fault
 * each), calls mlockall(MCL_CURRENT | MCL_FUTURE) and pre-faults its
 * stack.  Then, for RUN_MS (default 2000), it works on the buffer in
 * pf_steady_loop() and sleeps, without taking a single page fault. */
#include <signal.h>
#include <sys/mman.h>
#include "wl.h"

#define PAGE 4096L

NOINLINE void pf_prefault(volatile char *p, long pages)
{
	wl_touch_pages(p, pages);
}

/* Touch the stack below us, so that the steady loop never grows it */
NOINLINE void pf_prefault_stack(void)
{
	volatile char deep[256 * 1024];

	for (size_t i = 0; i < sizeof(deep); i += PAGE)
		deep[i] = 0;
}

NOINLINE long pf_steady_loop(volatile char *p, long pages, long run_ms)
{
	long sum = 0;

	for (long t = 0; t < run_ms; t += 10) {
		for (long i = 0; i < pages; i++) {
			p[i * PAGE]++;
			sum += p[i * PAGE + 64];
		}
		WL_SLEEP_MS(10);
	}
	wl_keep(sum);
	return sum;
}

int main(int argc, char **argv)
{
	long pages = wl_arg(argc, argv, 1, 512);
	long run_ms = wl_arg(argc, argv, 2, 2000);
	long delay = wl_arg(argc, argv, 3, 5000);
	struct timespec ts = { delay / 1000, (delay % 1000) * 1000000L };
	sigset_t set;
	char *buf;

	wl_name("pf_locked");
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	buf = wl_fresh_pages(pages);
	wl_ready();
	sigtimedwait(&set, NULL, &ts);

	pf_prefault(buf, pages);
	if (mlockall(MCL_CURRENT | MCL_FUTURE)) {
		perror("mlockall");
		return 1;
	}
	pf_prefault_stack();
	pf_steady_loop(buf, pages, run_ms);
	return 0;
}
