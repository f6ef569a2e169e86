// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* nofp_chain N MS [DELAY_MS]
 * Built WITHOUT frame pointers (-O2 -fomit-frame-pointer), like most
 * distribution binaries.  After DELAY_MS (default 300), main() ->
 * nofp_outer() -> nofp_middle() -> nofp_inner_sleep() -> nanosleep() (libc)
 * N times for MS ms.  A frame-pointer unwinder loses the chain inside
 * libc; a DWARF unwinder (.eh_frame) recovers all of it. */
#include <time.h>
#include "wl.h"

static volatile long sink;

NOINLINE void nofp_inner_sleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
	sink++;		/* no tail call: keep this frame on the stack */
}

NOINLINE void nofp_middle(long ms)
{
	volatile char pad[64];

	pad[0] = (char)ms;
	nofp_inner_sleep(ms + pad[0] - (char)ms);
	sink++;
}

NOINLINE void nofp_outer(long n, long ms)
{
	for (long i = 0; i < n; i++)
		nofp_middle(ms);
	sink++;
}

int main(int argc, char **argv)
{
	wl_name("nofp_chain");
	wl_ready();
	wl_delay_ms(wl_arg(argc, argv, 3, 300));
	wl_wait_go();
	nofp_outer(wl_arg(argc, argv, 1, 10), wl_arg(argc, argv, 2, 50));
	return 0;
}
