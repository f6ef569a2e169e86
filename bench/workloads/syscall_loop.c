// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* syscall_loop [SECS]: getppid() as fast as possible for SECS seconds
 * (default 2), made with inline asm from syscall_loop_call() so that a
 * frame-pointer unwinder names it.  Prints the rate. */
#include "bench_wl.h"

NOINLINE long syscall_loop_call(void)
{
	return wl_syscall4(SYS_getppid, 0, 0, 0, 0);
}

int main(int argc, char **argv)
{
	double secs = bw_secs_arg(argc, argv, 1, 2.0), t0, t;
	unsigned long long ops = 0;

	wl_name("bench_syscall");
	t0 = bw_now();
	do {
		for (int i = 0; i < 256; i++)
			syscall_loop_call();
		ops += 256;
		t = bw_now();
	} while (t - t0 < secs);
	bw_report(ops, t - t0);
	return 0;
}
