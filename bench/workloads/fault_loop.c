// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* fault_loop [SECS] [PAGES]: for SECS seconds (default 2), map PAGES
 * (default 64) fresh anonymous pages, touch each once in fault_touch()
 * (one minor fault per page), unmap.  Prints faults per second. */
#include <sys/mman.h>
#include "bench_wl.h"

NOINLINE void fault_touch(volatile char *p, long pages, long psz)
{
	for (long i = 0; i < pages; i++)
		p[i * psz] = 1;
}

int main(int argc, char **argv)
{
	double secs = bw_secs_arg(argc, argv, 1, 2.0), t0, t;
	long pages = wl_arg(argc, argv, 2, 64), psz = sysconf(_SC_PAGESIZE);
	unsigned long long ops = 0;

	if (pages < 1 || pages > 1 << 20) {
		fprintf(stderr, "fault_loop: PAGES '%s' out of range [1, 1048576]\n", argv[2]);
		return 2;
	}
	wl_name("bench_fault");
	t0 = bw_now();
	do {
		char *p = mmap(NULL, pages * psz, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			perror("fault_loop: mmap");
			return 1;
		}
		fault_touch(p, pages, psz);
		munmap(p, pages * psz);
		ops += pages;
		t = bw_now();
	} while (t - t0 < secs);
	bw_report(ops, t - t0);
	return 0;
}
