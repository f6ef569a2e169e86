// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* many_paths [LEVELS]
 * Blocks off-CPU exactly once from each of 10^LEVELS distinct user call
 * paths (default 4: 10,000), in a thread named "mp_blocker".  A path is
 * the decimal digits of its number, lowest first: at each level
 * mp_descend() calls one of mp_step0..mp_step9, and the deepest call ends
 * in mp_leaf(), which waits on a futex.  So the user stack of
 * path P reads, from the thread's start outwards, mp_stepD0;mp_stepD1;...
 * for the digits of P, then mp_leaf.  The main thread ("mp_waker")
 * wakes it only once it has left the CPU (its voluntary context switches
 * went up) and 20 us more: each wait blocks once, for longer than 1 us
 * (a futex takes no sleeping lock: a pipe's mutex would add waits).  Prints its pid; with WL_GO=PATH it starts once PATH exists;
 * when done, "switches N": the blocker's context switches in the paths,
 * voluntary and not (every interval off-CPU in them is one); then it
 * exits. */
#include <pthread.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include "wl.h"

static long levels = 4;
static atomic_uint turn;	/* the path whose wait may end */

static long voluntary_now(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_nvcsw;
}

/* A path that did not block exactly once is said on stdout:
 * "blocked P N" */
static unsigned cur_path;	/* the path being run */

NOINLINE void mp_leaf(void)
{
	unsigned path = cur_path;
	long before = voluntary_now(), n;

	while (atomic_load(&turn) <= path)
		wl_syscall4(SYS_futex, (long)&turn, FUTEX_WAIT_PRIVATE, path, 0);
	n = voluntary_now() - before;
	if (n != 1)
		printf("blocked %u %ld\n", path, n);
	__asm__ volatile("" ::: "memory");
}

/* mp_step0..mp_step9, and mp_descend(), which ends in mp_leaf() */
WL_CALL_PATHS(mp_step, mp_descend, mp_leaf)

static unsigned n_paths(void)
{
	unsigned paths = 1;

	for (long i = 0; i < levels; i++)
		paths *= 10;
	return paths;
}

/* The context switches of thread tid so far: voluntary ones, or all */
static long switches(int tid, bool all)
{
	char path[96], line[128];
	long v = -1, sum = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1 ||
		    (all && sscanf(line, "nonvoluntary_ctxt_switches: %ld", &v) == 1))
			sum += v;
	if (f)
		fclose(f);
	return sum;
}

static atomic_int blocker_tid, go;
static long blocker_switches;

static void *blocker(void *arg)
{
	unsigned paths = n_paths();

	wl_name("mp_blocker");
	atomic_store(&blocker_tid, (int)syscall(SYS_gettid));
	while (!atomic_load(&go))
		;
	blocker_switches = -switches(atomic_load(&blocker_tid), true);
	for (unsigned p = 0; p < paths; p++) {
		cur_path = p;
		mp_descend((int)levels, p);
	}
	blocker_switches += switches(atomic_load(&blocker_tid), true);
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec extra = { 0, 20000 };
	unsigned paths;
	pthread_t t;
	long seen;
	int tid;

	levels = wl_arg(argc, argv, 1, 4);
	if (levels < 1 || levels > 6) {
		fprintf(stderr, "many_paths: LEVELS 1-6\n");
		return 2;
	}
	paths = n_paths();
	wl_name("mp_waker");
	wl_ready();
	setvbuf(stdout, NULL, _IOLBF, 0);
	wl_wait_go();
	pthread_create(&t, NULL, blocker, NULL);
	while (!(tid = atomic_load(&blocker_tid)))
		sched_yield();
	seen = switches(tid, false);
	atomic_store(&go, 1);
	for (unsigned p = 0; p < paths; p++) {
		long v;

		while ((v = switches(tid, false)) == seen)
			sched_yield();
		seen = v;
		nanosleep(&extra, NULL);
		atomic_store(&turn, p + 1);
		syscall(SYS_futex, &turn, FUTEX_WAKE_PRIVATE, 1, NULL);
	}
	pthread_join(t, NULL);
	printf("switches %ld\n", blocker_switches);
	return 0;
}
