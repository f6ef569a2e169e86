// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* diag_latency HOT_CPU SECS STATS_CPU FLUSH_MODE [WINDOW_S [LATE_FILE]]
 * The demo of docs/diagnosis.md: a latency-critical thread whose p99.9
 * regresses, for two causes known in advance.
 *
 * - "diag_hot", pinned to HOT_CPU, busy-polls the clock (vDSO, no syscall)
 *   and serves one request every 200 us: it takes the order-book lock,
 *   updates the book, releases it.  A request's latency is the time from
 *   when it was due to when it was served; every one is recorded.
 * - "diag_stats", pinned to STATS_CPU (-1: no such thread), wakes every
 *   500 ms (on the clock, from the go) and computes statistics for 2 ms
 *   of CPU: on HOT_CPU it is an intruder that takes the CPU from diag_hot
 *   twice a second.
 * - "diag_flusher", on another CPU, journals the book every second (a
 *   quarter period out of phase with diag_stats, so that the two causes
 *   do not overlap).
 *   FLUSH_MODE 0: no flusher; 1: it holds the book lock while it writes
 *   the journal (a 4 ms sleep in journal_write), so diag_hot blocks on the
 *   lock (futex) in book_lock_wait and is woken by diag_flusher's
 *   book_unlock; 2 (the fix): it copies the book under the lock and writes
 *   with the lock released.
 * The main thread ("diag_main", off HOT_CPU) prints the latency
 * percentiles of each WINDOW_S (default 2) seconds, then of the whole run,
 * with the CLOCK_MONOTONIC time (s) at which the slowest one was served.
 * First line: "PID HOT_TID STATS_TID FLUSHER_TID" (0 for an absent thread).
 * LATE_FILE: created (truncated) at the start; at the end, before diag_hot
 * exits, every late request (served LATE_NS or more after it was due) is
 * written to it, one a line: the CLOCK_MONOTONIC time it was served, in
 * seconds with 9 decimals, and its latency in integer nanoseconds (the
 * request file of hotcheck --correlate).  diag_hot waits for the file to
 * be complete before it exits, so a tool that stops when diag_hot exits
 * reads it whole.  From its start to its end diag_hot makes no syscall and
 * never blocks of its own: it polls to be released and to exit (its
 * thread's exit aside: madvise, exit).
 * Lock and sleeps are raw syscalls (wl.h), so frame-pointer stacks show
 * the calling functions. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <errno.h>
#include <stdint.h>
#include <linux/futex.h>
#include "wl.h"

#define PERIOD_NS	200000L		/* one request every 200 us */
#define STATS_EVERY_MS	500
#define STATS_BURN_NS	2000000L
#define FLUSH_EVERY_MS	1000
#define JOURNAL_MS	4
#define MAX_SAMPLES	(1u << 21)	/* 419 s at 5000 requests/s */
#define LATE_NS		100000		/* "late": served 100 us after due */

static int hot_cpu, other_cpu, stats_cpu, flush_mode;
static atomic_int stop, hot_go, hot_done, hot_may_exit;
/* diag_stats and diag_flusher wait for the go asleep, woken once by the
 * main thread: polling for it (wl_wait_go: every few ms) would make
 * diag_stats an intruder of another period before the run */
static pthread_mutex_t go_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go_cond = PTHREAD_COND_INITIALIZER;
static int go;

static void wait_go(void)
{
	pthread_mutex_lock(&go_lock);
	while (!go)
		pthread_cond_wait(&go_cond, &go_lock);
	pthread_mutex_unlock(&go_lock);
}

static void release_go(void)
{
	pthread_mutex_lock(&go_lock);
	go = 1;
	pthread_cond_broadcast(&go_cond);
	pthread_mutex_unlock(&go_lock);
}
static atomic_int hot_tid, stats_tid, flusher_tid;
static uint32_t *lat_ns;		/* written by diag_hot only */
static atomic_uint n_lat;
static _Atomic long first_due;		/* request i was due at first_due + i * PERIOD_NS */
static atomic_int book_lock_word;	/* 0 free, 1 locked, 2 locked + waiters */
static long book[64], journal[64];

/* A function that needs no stack gets no frame from gcc, even with
 * -fno-omit-frame-pointer, and a frame-pointer unwinder stopped inside it
 * skips its caller: asking for the frame address makes gcc build one. */
#define WL_KEEP_FRAME() __asm__ volatile("" : : "r"(__builtin_frame_address(0)))

static long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

NOINLINE void book_lock_wait(void)
{
	WL_KEEP_FRAME();
	wl_syscall4(SYS_futex, (long)&book_lock_word, FUTEX_WAIT_PRIVATE, 2, 0);
}

NOINLINE void book_lock(void)
{
	int c = 0;

	if (atomic_compare_exchange_strong(&book_lock_word, &c, 1))
		return;
	if (c != 2)
		c = atomic_exchange(&book_lock_word, 2);
	while (c != 0) {
		book_lock_wait();
		c = atomic_exchange(&book_lock_word, 2);
	}
}

NOINLINE void book_unlock(void)
{
	WL_KEEP_FRAME();
	if (atomic_exchange(&book_lock_word, 0) == 2)
		wl_syscall4(SYS_futex, (long)&book_lock_word, FUTEX_WAKE_PRIVATE, 1, 0);
}

NOINLINE void handle_request(long i)
{
	book_lock();
	for (int k = 0; k < 64; k++)
		book[k] += i ^ k;
	book_unlock();
}

static void *hot(void *arg)
{
	long due, i = 0;

	wl_pin(hot_cpu);
	wl_name("diag_hot");
	atomic_store(&hot_tid, (int)syscall(SYS_gettid));
	/* held by main (WL_GO), polling: it never blocks nor makes a syscall */
	while (!atomic_load(&hot_go))
		;
	due = now_ns() + PERIOD_NS;
	atomic_store(&first_due, due);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		long t = now_ns();
		unsigned n;

		if (t < due)
			continue;
		handle_request(i++);
		t = now_ns() - due;
		n = atomic_load_explicit(&n_lat, memory_order_relaxed);
		if (n < MAX_SAMPLES) {
			lat_ns[n] = t > UINT32_MAX ? UINT32_MAX : (uint32_t)t;
			atomic_store_explicit(&n_lat, n + 1, memory_order_release);
		}
		due += PERIOD_NS;
	}
	/* its last request is recorded: the late file is written, then it exits */
	atomic_store(&hot_done, 1);
	while (!atomic_load(&hot_may_exit))
		;
	return NULL;
}

NOINLINE void stats_collect(void)
{
	long end = now_ns() + STATS_BURN_NS;
	volatile long sink = 0;

	while (now_ns() < end)
		sink += book[sink & 63];
}

static void *stats(void *arg)
{
	struct timespec next;

	wl_pin(stats_cpu);
	wl_name("diag_stats");
	atomic_store(&stats_tid, (int)syscall(SYS_gettid));
	wait_go();
	/* on a clock of its own: every STATS_EVERY_MS from the go, however
	 * long the computation waited for the CPU (its period is known) */
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!atomic_load(&stop)) {
		next.tv_nsec += STATS_EVERY_MS * 1000000L;
		next.tv_sec += next.tv_nsec / 1000000000L;
		next.tv_nsec %= 1000000000L;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
		stats_collect();
	}
	return NULL;
}

NOINLINE void journal_write(void)
{
	WL_SLEEP_MS(JOURNAL_MS);	/* stands for write() + fdatasync() */
}

NOINLINE void flush_journal(void)
{
	book_lock();
	memcpy(journal, book, sizeof(book));
	if (flush_mode == 1)
		journal_write();	/* the bug: slow I/O under the lock */
	book_unlock();
	if (flush_mode == 2)
		journal_write();
}

static void *flusher(void *arg)
{
	wl_pin(other_cpu);
	wl_name("diag_flusher");
	atomic_store(&flusher_tid, (int)syscall(SYS_gettid));
	wait_go();
	WL_SLEEP_MS(FLUSH_EVERY_MS / 4);	/* out of phase with diag_stats */
	while (!atomic_load(&stop)) {
		WL_SLEEP_MS(FLUSH_EVERY_MS);
		flush_journal();
	}
	return NULL;
}

/* Every late request of the run into f: "SERVED_S.NS LATENCY_NS" */
static int write_late(FILE *f, unsigned n)
{
	long first = atomic_load(&first_due);

	fprintf(f, "# served at (CLOCK_MONOTONIC s)  latency (ns): requests %d us late or more\n",
		LATE_NS / 1000);
	for (unsigned k = 0; k < n; k++) {
		long served = first + (long)k * PERIOD_NS + lat_ns[k];

		if (lat_ns[k] >= LATE_NS)
			fprintf(f, "%ld.%09ld %u\n", served / 1000000000L, served % 1000000000L,
				lat_ns[k]);
	}
	return fclose(f);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* nearest-rank percentile of sorted v[0..n) */
static double pct(const uint32_t *v, unsigned n, double p)
{
	unsigned r = (unsigned)(p / 100.0 * n + 0.999999);

	return v[r ? r - 1 : 0] / 1000.0;
}

static void report(const char *label, unsigned from, unsigned to)
{
	unsigned n = to - from, late = 0, worst = from;
	uint32_t *v;
	long worst_ns;

	if (!n) {
		printf("%-7s n=0\n", label);
		return;
	}
	v = malloc(n * sizeof(*v));
	if (!v)
		exit(1);
	memcpy(v, lat_ns + from, n * sizeof(*v));
	for (unsigned k = from; k < to; k++)
		if (lat_ns[k] > lat_ns[worst])
			worst = k;
	/* when the slowest request was served, to line up with the tools'
	 * timelines (CLOCK_MONOTONIC) */
	worst_ns = atomic_load(&first_due) + (long)worst * PERIOD_NS + lat_ns[worst];
	qsort(v, n, sizeof(*v), cmp_u32);
	for (unsigned k = 0; k < n; k++)
		late += v[k] >= LATE_NS;
	printf("%-7s n=%-6u p50=%6.1fus p99=%7.1fus p99.9=%7.1fus max=%7.1fus late(>100us)=%-4u slowest served at %ld.%06ld\n",
	       label, n, pct(v, n, 50), pct(v, n, 99), pct(v, n, 99.9),
	       v[n - 1] / 1000.0, late, worst_ns / 1000000000L, worst_ns % 1000000000L / 1000);
	fflush(stdout);
	free(v);
}

int main(int argc, char **argv)
{
	pthread_t th, ts, tf;
	long secs, window, ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned from = 0;
	char label[48];
	FILE *late = NULL;

	if (argc < 5) {
		fprintf(stderr, "usage: diag_latency HOT_CPU SECS STATS_CPU FLUSH_MODE [WINDOW_S [LATE_FILE]]\n");
		return 2;
	}
	hot_cpu = (int)wl_arg(argc, argv, 1, 1);
	secs = wl_arg(argc, argv, 2, 20);
	stats_cpu = (int)wl_arg(argc, argv, 3, -1);
	flush_mode = (int)wl_arg(argc, argv, 4, 0);
	window = wl_arg(argc, argv, 5, 2);
	if (hot_cpu < 0 || hot_cpu >= ncpu || stats_cpu >= ncpu || window < 1 ||
	    secs < 1 || flush_mode < 0 || flush_mode > 2) {
		fprintf(stderr, "diag_latency: bad argument (CPUs 0-%ld, mode 0-2)\n", ncpu - 1);
		return 2;
	}
	if (argc > 6 && !(late = fopen(argv[6], "w"))) {
		fprintf(stderr, "diag_latency: cannot write %s: %s\n", argv[6], strerror(errno));
		return 2;
	}
	other_cpu = ncpu > 1 ? (hot_cpu == 0 ? 1 : 0) : hot_cpu;
	lat_ns = calloc(MAX_SAMPLES, sizeof(*lat_ns));
	if (!lat_ns)
		return 1;
	wl_name("diag_main");
	wl_pin(other_cpu);
	pthread_create(&th, NULL, hot, NULL);
	if (stats_cpu >= 0)
		pthread_create(&ts, NULL, stats, NULL);
	if (flush_mode)
		pthread_create(&tf, NULL, flusher, NULL);
	while (!atomic_load(&hot_tid) || (stats_cpu >= 0 && !atomic_load(&stats_tid)) ||
	       (flush_mode && !atomic_load(&flusher_tid)))
		wl_delay_ms(1);
	printf("%d %d %d %d\n", getpid(), atomic_load(&hot_tid), atomic_load(&stats_tid),
	       atomic_load(&flusher_tid));
	fflush(stdout);
	wl_wait_go();
	atomic_store(&hot_go, 1);
	release_go();
	for (long t = 0; t < secs; t += window) {
		unsigned to;

		wl_delay_ms((t + window > secs ? secs - t : window) * 1000);
		to = atomic_load_explicit(&n_lat, memory_order_acquire);
		snprintf(label, sizeof(label), "%ld-%lds", t, t + window > secs ? secs : t + window);
		report(label, from, to);
		from = to;
	}
	atomic_store(&stop, 1);
	while (!atomic_load(&hot_done))
		wl_delay_ms(1);
	if (late && write_late(late, atomic_load(&n_lat))) {
		fprintf(stderr, "diag_latency: cannot write %s: %s\n", argv[6], strerror(errno));
		return 1;
	}
	atomic_store(&hot_may_exit, 1);
	pthread_join(th, NULL);
	if (stats_cpu >= 0)
		pthread_join(ts, NULL);
	if (flush_mode)
		pthread_join(tf, NULL);
	report("total", 0, atomic_load(&n_lat));
	free(lat_ns);
	return 0;
}
