// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* hitm_sharing MODE [ITERS] [HOLD_MS]
 * Cache-line contention with a known layout, for hitmtop.
 * MODE "false": two threads, pinned to CPUs 0 and 1, each increment their
 *   own counter of false_pair (a and b, 8 bytes apart in one 64-byte line)
 *   ITERS times, in hitm_false_writer_a() and hitm_false_writer_b().
 * MODE "true": one thread per CPU (at least 2), each pinned, increment the
 *   one counter true_counter ITERS times (atomically) in hitm_true_writer().
 * MODE "both": both patterns; "idle": no thread, only the addresses.
 * Then it stays alive HOLD_MS (default 30000) so its symbols can be read.
 * heap_line is a malloc'ed 64-byte line, touched by no thread.
 * Prints its pid, then the addresses of its variables and functions:
 *   var NAME ADDR SIZE   /   fn NAME ADDR   /   cpus N
 * then "ready"; at the end "done A B T" (the counters' final values). */
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include "wl.h"

struct pair {
	volatile long a;	/* offset 0, written from CPU 0 */
	volatile long b;	/* offset 8, written from CPU 1 */
} __attribute__((aligned(64)));

struct pair false_pair;
long true_counter __attribute__((aligned(64)));
static long iters;
static volatile long *heap_line;	/* a malloc'ed line, named only by [heap] */
static int ncpus;

/* A writer thread's start: on CPU cpu (modulo the CPUs online), named */
static void writer_start(int cpu, const char *name)
{
	wl_set_cpu(cpu % ncpus);
	wl_name(name);
}

NOINLINE void *hitm_false_writer_a(void *arg)
{
	writer_start(0, "hitm_fs_a");
	for (long i = 0; i < iters; i++)
		false_pair.a++;
	return NULL;
}

NOINLINE void *hitm_false_writer_b(void *arg)
{
	writer_start(1, "hitm_fs_b");
	for (long i = 0; i < iters; i++)
		false_pair.b++;
	return NULL;
}

NOINLINE void *hitm_true_writer(void *arg)
{
	writer_start((int)(intptr_t)arg, "hitm_ts");
	for (long i = 0; i < iters; i++)
		__atomic_fetch_add(&true_counter, 1, __ATOMIC_RELAXED);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "both";
	long hold_ms = wl_arg(argc, argv, 3, 30000);
	bool do_false = !strcmp(mode, "false") || !strcmp(mode, "both");
	bool do_true = !strcmp(mode, "true") || !strcmp(mode, "both");
	pthread_t t[2 + 64];
	int nt = 0;

	if (!do_false && !do_true && strcmp(mode, "idle")) {
		fprintf(stderr, "usage: hitm_sharing false|true|both|idle [ITERS] [HOLD_MS]\n");
		return 2;
	}
	iters = wl_arg(argc, argv, 2, 10000000);
	ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpus < 1)
		ncpus = 1;
	wl_name("hitm_main");
	wl_ready();
	printf("var false_pair 0x%lx %zu\n", (unsigned long)&false_pair, sizeof(false_pair));
	printf("var true_counter 0x%lx %zu\n", (unsigned long)&true_counter, sizeof(true_counter));
	heap_line = aligned_alloc(64, 64);
	printf("var heap_line 0x%lx 64\n", (unsigned long)heap_line);
	printf("fn hitm_false_writer_a 0x%lx\n", (unsigned long)hitm_false_writer_a);
	printf("fn hitm_false_writer_b 0x%lx\n", (unsigned long)hitm_false_writer_b);
	printf("fn hitm_true_writer 0x%lx\n", (unsigned long)hitm_true_writer);
	printf("cpus %d\n", ncpus);
	printf("ready\n");
	fflush(stdout);
	if (do_false) {
		pthread_create(&t[nt++], NULL, hitm_false_writer_a, NULL);
		pthread_create(&t[nt++], NULL, hitm_false_writer_b, NULL);
	}
	for (int c = 0; do_true && c < (ncpus < 2 ? 2 : ncpus) && c < 64; c++)
		pthread_create(&t[nt++], NULL, hitm_true_writer, (void *)(intptr_t)c);
	for (int i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	printf("done %ld %ld %ld\n", false_pair.a, false_pair.b, true_counter);
	fflush(stdout);
	wl_delay_ms(hold_ms);
	return 0;
}
