// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* pf_paths [LEVELS] [PAGES] [GAP_US] [PATHS]
 * Page faults from many distinct user call paths: path number c (of
 * 10^LEVELS, default 4 levels: 10,000 paths; only the first PATHS if
 * given) is the decimal digits of c, one of ten functions pf_step0 ..
 * pf_step9 per level, ending in pf_path_leaf(), which touches PAGES
 * (default 2) fresh anonymous pages: exactly PAGES faults per path, all
 * from that stack.  GAP_US (default 0) is a pause between two paths.
 * Prints its pid, runs every path once without touching anything (so
 * that the code, data and stack are faulted in before), waits for
 * SIGUSR1 (at most 10 s), runs the paths, stays 300 ms and exits. */
#include <signal.h>
#include <sys/mman.h>
#include "wl.h"

static char *region;
static long pages_per_path;
static unsigned cur_path;	/* the path being run */

NOINLINE void pf_path_leaf(void)
{
	unsigned path = cur_path;
	volatile char *p;

	if (!region)
		return;
	p = region + (long)path * pages_per_path * WL_PAGE;
	for (long i = 0; i < pages_per_path; i++)
		p[i * WL_PAGE] = 1;
	__asm__ volatile("" ::: "memory");
}

/* pf_step0..pf_step9, and pf_descend(), which ends in pf_path_leaf() */
WL_CALL_PATHS(pf_step, pf_descend, pf_path_leaf)

/* a stack deeper than the paths ever go, faulted in now */
NOINLINE void pf_prefault_stack(void)
{
	volatile char buf[64 * 1024];

	for (long i = 0; i < (long)sizeof(buf); i += 256)
		buf[i] = 0;
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	long levels = wl_arg(argc, argv, 1, 4), gap = wl_arg(argc, argv, 3, 0);
	unsigned paths = 1;
	struct timespec ts = { 10, 0 };
	sigset_t set;

	pages_per_path = wl_arg(argc, argv, 2, 2);
	if (levels < 1 || levels > 5 || pages_per_path < 1 || pages_per_path > 64 || gap < 0) {
		fprintf(stderr, "pf_paths: LEVELS must be 1-5, PAGES 1-64, GAP_US >= 0\n");
		return 2;
	}
	for (long i = 0; i < levels; i++)
		paths *= 10;
	if (argc > 4 && wl_arg(argc, argv, 4, paths) > 0 && wl_arg(argc, argv, 4, paths) < paths)
		paths = wl_arg(argc, argv, 4, paths);
	wl_name("pf_paths");
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	pf_prefault_stack();
	for (unsigned c = 0; c < paths; c++) {
		cur_path = c;
		pf_descend(levels, c);
	}
	region = wl_fresh_pages((long)paths * pages_per_path);
	wl_ready();
	sigtimedwait(&set, NULL, &ts);
	for (unsigned c = 0; c < paths; c++) {
		cur_path = c;
		pf_descend(levels, c);
		if (gap)
			usleep(gap);
	}
	wl_delay_ms(300);
	return 0;
}
