// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* offcpu_blocker N MS [DELAY_MS] [MODE]
 * After DELAY_MS (default 300), a thread named "ocpu_blocker" blocks N
 * times for MS milliseconds in offcpu_block_here() (nanosleep: state S).
 * MODE "vfork": it blocks in offcpu_vfork_wait() instead, waiting for a
 * vfork child that sleeps MS ms (state D, killable).
 * MODE "mixed": each of the N rounds blocks in both.
 * MODE "hold": after the N blocks, it blocks once more for 60 s in
 * offcpu_hold_here() (for "still blocked at the end").
 * MODE "deep": each block is at the bottom of 150 nested calls of
 * offcpu_descend(): a user stack deeper than a walk keeps (127 frames).
 * The main thread ("ocpu_main") waits for it and exits. Prints its pid.
 * With WL_GO=PATH in the environment, the blocker starts only once PATH
 * exists (so a test can start it right after the tool is attached). */
#include <pthread.h>
#include <sys/wait.h>
#include "wl.h"

static long n_blocks, block_ms;
static const char *mode = "sleep";

NOINLINE void offcpu_block_here(long ms)
{
	WL_SLEEP_MS(ms);
}

NOINLINE void offcpu_vfork_wait(long ms)
{
	pid_t child = vfork();

	if (child == 0) {
		WL_SLEEP_MS(ms);
		_exit(0);
	}
	waitpid(child, NULL, 0);
}

/* depth calls of itself, then the block; not a tail call, so that each
 * call keeps its frame */
NOINLINE long offcpu_descend(long depth, long ms)
{
	long r;

	if (depth <= 0) {
		offcpu_block_here(ms);
		return 0;
	}
	r = offcpu_descend(depth - 1, ms);
	__asm__ volatile("" : "+r"(r));
	return r + 1;
}

NOINLINE void offcpu_hold_here(void)
{
	WL_SLEEP_MS(60000);
}

static void *blocker(void *arg)
{
	wl_name("ocpu_blocker");
	wl_wait_go();
	for (long i = 0; i < n_blocks; i++) {
		if (!strcmp(mode, "deep")) {
			offcpu_descend(150, block_ms);
			continue;
		}
		if (strcmp(mode, "sleep") && strcmp(mode, "hold"))
			offcpu_vfork_wait(block_ms);
		if (strcmp(mode, "vfork"))
			offcpu_block_here(block_ms);
	}
	if (!strcmp(mode, "hold"))
		offcpu_hold_here();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	n_blocks = wl_arg(argc, argv, 1, 10);
	block_ms = wl_arg(argc, argv, 2, 50);
	if (argc > 4)
		mode = argv[4];
	wl_name("ocpu_main");
	wl_ready();
	wl_delay_ms(wl_arg(argc, argv, 3, 300));
	pthread_create(&t, NULL, blocker, NULL);
	pthread_join(t, NULL);
	return 0;
}
