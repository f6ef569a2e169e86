// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* nofp_faulter PAGES
 * Built WITHOUT frame pointers (-O2 -fomit-frame-pointer), like most
 * distribution binaries.  Prints its pid, waits for $WL_GO (if set), then
 * maps PAGES fresh anonymous pages (transparent huge pages off) and fills
 * them with memset() (libc) from main() -> nofp_fault_outer() ->
 * nofp_fault_middle() -> nofp_fault_inner(): one minor page fault per
 * page, taken in memset (whose code was run once before the start);
 * then prints "minflt N", the minor faults the kernel counted for them.
 * A frame-pointer unwinder loses that chain
 * inside libc; a DWARF unwinder recovers it. */
#include <sys/mman.h>
#include <sys/resource.h>
#include "wl.h"

#define PAGE 4096L

static volatile long sink;

NOINLINE void nofp_fault_inner(char *p, long pages)
{
	memset(p, 0x5a, pages * PAGE);
	sink += p[0];	/* no tail call: keep this frame on the stack */
}

NOINLINE void nofp_fault_middle(char *p, long pages)
{
	volatile char pad[64];

	pad[0] = 0;
	nofp_fault_inner(p + pad[0], pages);
	sink++;
}

NOINLINE void nofp_fault_outer(char *p, long pages)
{
	nofp_fault_middle(p, pages);
	sink++;
}

int main(int argc, char **argv)
{
	long pages = wl_arg(argc, argv, 1, 100);
	struct rusage before, after;
	char *p, *warm;

	wl_name("nofp_faulter");
	p = wl_fresh_pages(pages);
	/* the same memset once before the start, so that the libc code it
	 * runs is mapped already: the faults counted are the pages' only */
	warm = malloc(pages * PAGE);
	if (warm)
		memset(warm, 1, pages * PAGE);
	wl_ready();
	wl_wait_go();
	getrusage(RUSAGE_SELF, &before);
	nofp_fault_outer(p, pages);
	getrusage(RUSAGE_SELF, &after);
	/* the ground truth: the kernel counts each minor fault here and for
	 * the tracer's perf event together (one more than the pages when a
	 * page had to be faulted again, as under load it can) */
	printf("minflt %ld\n", after.ru_minflt - before.ru_minflt);
	fflush(stdout);
	wl_delay_ms(100);
	free(warm);
	return 0;
}
