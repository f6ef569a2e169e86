// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* nofp_stackgrow PAGES
 * Built WITHOUT frame pointers (-O2 -fomit-frame-pointer).  Prints its
 * pid, waits for $WL_GO (if set), then grows its stack by PAGES pages
 * never touched before: main() -> nofp_grow_outer() -> nofp_grow_inner(),
 * which takes PAGES pages of stack (alloca) and fills them with memset()
 * from the lowest address up: a minor fault for each page not in memory,
 * each taken with the pages above it, up to the callers' frames, not in
 * memory yet.  Then prints "minflt N", the minor faults the kernel
 * counted for the call (memset is bound before it).  A DWARF unwinder must read the callers' frames
 * across the pages that are not there. */
#include <alloca.h>
#include <sys/resource.h>
#include "wl.h"

#define PAGE 4096L

static volatile long sink;

NOINLINE void nofp_grow_inner(long pages)
{
	char *buf = alloca(pages * PAGE);

	memset(buf, 0x5a, pages * PAGE);
	sink += buf[pages * PAGE / 2];	/* the buffer is used: not optimized out */
}

NOINLINE void nofp_grow_outer(long pages)
{
	nofp_grow_inner(pages);
	sink++;		/* no tail call: keep this frame on the stack */
}

int main(int argc, char **argv)
{
	long pages = wl_arg(argc, argv, 1, 6);
	struct rusage before, after;
	char line[64];
	int n;

	wl_name("nofp_stackgrow");
	wl_ready();
	/* memset's PLT entry bound now, on pages already touched: the
	 * dynamic linker's resolver (its frame holds the CPU's whole xsave
	 * area, a size that differs between CPUs) takes no fault in the call */
	memset(line, 0, (size_t)argc);
	wl_wait_go();
	getrusage(RUSAGE_SELF, &before);
	nofp_grow_outer(pages);
	getrusage(RUSAGE_SELF, &after);
	/* formatted on a page already touched, written without stdio */
	n = snprintf(line, sizeof(line), "minflt %ld\n", after.ru_minflt - before.ru_minflt);
	if (write(1, line, (size_t)n) < 0)
		return 1;
	wl_delay_ms(100);
	return 0;
}
