/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Helpers for the test workloads: behaviour known in advance, so the
 * tools' reports can be checked exactly.  System calls are made with
 * inline asm from the calling function itself, so that a frame-pointer
 * unwinder sees the calling function (a libc wrapper built without frame
 * pointers would hide it). */
#ifndef WL_H
#define WL_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#define NOINLINE __attribute__((noinline, noclone))
#define WL_PAGE 4096L

#if defined(__x86_64__)
static inline __attribute__((always_inline)) long
wl_syscall4(long n, long a, long b, long c, long d)
{
	long ret;
	register long r10 __asm__("r10") = d;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
}
#elif defined(__aarch64__)
static inline __attribute__((always_inline)) long
wl_syscall4(long n, long a, long b, long c, long d)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;

	__asm__ volatile("svc 0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3)
			 : "memory");
	return x0;
}
#endif

/* Sleep ms milliseconds in the caller's own frame (inlined) */
#define WL_SLEEP_MS(ms)                                                        \
	do {                                                                   \
		struct timespec ts_ = { (ms) / 1000, ((ms) % 1000) * 1000000L }; \
		while (wl_syscall4(SYS_nanosleep, (long)&ts_, (long)&ts_, 0, 0) \
		       == -4 /* EINTR */)                                      \
			;                                                      \
	} while (0)

/* A call that does nothing: one at the end of a touching function keeps it
 * non-leaf, so that it sets up a frame pointer and the unwinder sees its
 * caller; v is kept alive until then */
static NOINLINE __attribute__((unused)) void wl_keep(long v)
{
	__asm__ volatile("" : : "r"(v) : "memory");
}

/* Writes the first byte of each of n pages at p, in the caller's own frame
 * (inlined): one page fault each on fresh pages */
static inline __attribute__((always_inline)) void
wl_touch_pages(volatile char *p, long n)
{
	for (long i = 0; i < n; i++)
		p[i * WL_PAGE] = 1;
	wl_keep(n);
}

/* n fresh anonymous pages, transparent huge pages off (one fault a page);
 * exits 1 if they cannot be mapped */
static inline char *wl_fresh_pages(long n)
{
	char *p = mmap(NULL, n * WL_PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	madvise(p, n * WL_PAGE, MADV_NOHUGEPAGE);
	return p;
}

/* A thread asleep on a futex word until woken: WL_FUTEX_TARGET(name,
 * wait, target) defines wait(word), the one frame it blocks in (FUTEX_WAIT
 * on word), and target(), a pthread start routine that names its thread
 * name, stores its tid in target_tid, spins (never sleeps: no wakeup of it
 * before the start) until go, then waits in wait(&flag) while flag is 0,
 * clearing it at each wakeup, until done; and target_end(t), which ends
 * thread t (running target) once the last wakeup is consumed and it is
 * asleep again, with one more wakeup, from the caller itself.  The file
 * declares the atomic_int flag, target_tid, go and done they use. */
#define WL_FUTEX_TARGET(name, wait, target)                                    \
	NOINLINE void wait(atomic_int *word)                                   \
	{                                                                      \
		wl_syscall4(SYS_futex, (long)word, FUTEX_WAIT_PRIVATE, 0, 0);  \
	}                                                                      \
	static void *target(void *arg)                                         \
	{                                                                      \
		(void)arg;                                                     \
		wl_name(name);                                                 \
		atomic_store(&target_tid, (int)syscall(SYS_gettid));           \
		while (!atomic_load(&go))                                      \
			sched_yield();                                         \
		while (!atomic_load(&done)) {                                  \
			while (!atomic_load(&flag) && !atomic_load(&done))     \
				wait(&flag);                                   \
			atomic_store(&flag, 0);                                \
		}                                                              \
		return NULL;                                                   \
	}                                                                      \
	static void target##_end(pthread_t t)                                  \
	{                                                                      \
		while (atomic_load(&flag))                                     \
			sched_yield();                                         \
		wl_wait_asleep(atomic_load(&target_tid));                      \
		atomic_store(&done, 1);                                        \
		wl_syscall4(SYS_futex, (long)&flag, FUTEX_WAKE_PRIVATE, 1, 0); \
		pthread_join(t, NULL);                                         \
	}

/* Distinct call paths by the number: WL_CALL_PATHS(step, descend, leaf)
 * defines ten functions step0..step9 with the same body at different
 * addresses (each a distinct frame; the empty asm after the call keeps it
 * from being a tail call, so that every frame stays on the stack) and
 * descend(level, code), which goes down level of them, one a decimal
 * digit of code (lowest first), and then calls leaf(): 10^level paths */
#define WL_CALL_STEP(step, n, descend)                                         \
	NOINLINE void step##n(int level, unsigned code)                        \
	{                                                                      \
		descend(level, code);                                          \
		__asm__ volatile("" ::: "memory");                             \
	}
#define WL_CALL_PATHS(step, descend, leaf)                                     \
	NOINLINE void descend(int level, unsigned code);                       \
	WL_CALL_STEP(step, 0, descend) WL_CALL_STEP(step, 1, descend)          \
	WL_CALL_STEP(step, 2, descend) WL_CALL_STEP(step, 3, descend)          \
	WL_CALL_STEP(step, 4, descend) WL_CALL_STEP(step, 5, descend)          \
	WL_CALL_STEP(step, 6, descend) WL_CALL_STEP(step, 7, descend)          \
	WL_CALL_STEP(step, 8, descend) WL_CALL_STEP(step, 9, descend)          \
	static void (*const descend##_steps[10])(int, unsigned) = {            \
		step##0, step##1, step##2, step##3, step##4,                   \
		step##5, step##6, step##7, step##8, step##9,                   \
	};                                                                     \
	NOINLINE void descend(int level, unsigned code)                        \
	{                                                                      \
		if (level == 0)                                                \
			leaf();                                                \
		else                                                           \
			descend##_steps[code % 10](level - 1, code / 10);      \
		__asm__ volatile("" ::: "memory");                             \
	}

static inline long wl_arg(int argc, char **argv, int i, long def)
{
	return argc > i ? strtol(argv[i], NULL, 0) : def;
}

static inline void wl_name(const char *name)
{
	prctl(PR_SET_NAME, name, 0, 0, 0);
}

/* Sleeping through libc, for the start delay (not measured) */
static inline void wl_delay_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

/* Waits until the file path exists, if path is not NULL */
static inline void wl_wait_file(const char *path)
{
	while (path && access(path, F_OK))
		wl_delay_ms(5);
}

/* Waits until the file named by $WL_GO exists, if set */
static inline void wl_wait_go(void)
{
	wl_wait_file(getenv("WL_GO"));
}

/* Moves the calling thread to CPU c: sched_setaffinity's result */
static inline int wl_set_cpu(int c)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(c, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* The same, exiting 1 when the thread cannot run there */
static inline void wl_pin(int c)
{
	if (wl_set_cpu(c)) {
		perror("sched_setaffinity");
		exit(1);
	}
}

/* Until thread tid of this process sleeps (state S), polling its stat */
static inline void wl_wait_asleep(int tid)
{
	char path[96], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	for (;;) {
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

		if (f)
			fclose(f);
		buf[n] = 0;
		p = strrchr(buf, ')');
		if (p && p[1] == ' ' && p[2] == 'S')
			return;
		sched_yield();
	}
}

/* A union perf_mem_data_src value, as PEBS would report it (hitmtop
 * --replay streams) */
static inline uint64_t wl_data_src(unsigned op, unsigned lvl, unsigned lvlnum,
				   unsigned snoop, unsigned remote)
{
	union perf_mem_data_src d = {
		.mem_op = op, .mem_lvl = lvl, .mem_lvl_num = lvlnum, .mem_snoop = snoop,
		.mem_remote = remote, .mem_lock = PERF_MEM_LOCK_NA,
		.mem_dtlb = PERF_MEM_TLB_HIT | PERF_MEM_TLB_L1,
	};

	return d.val;
}

/* The two samples of a contended line: a store that hits L1, and a load
 * that hits a line modified in another core's cache (local HITM) */
#define WL_DS_STORE wl_data_src(PERF_MEM_OP_STORE, PERF_MEM_LVL_HIT | PERF_MEM_LVL_L1, \
				PERF_MEM_LVLNUM_L1, PERF_MEM_SNOOP_NA, 0)
#define WL_DS_HITM_LOCAL wl_data_src(PERF_MEM_OP_LOAD, PERF_MEM_LVL_HIT | PERF_MEM_LVL_L3, \
				     PERF_MEM_LVLNUM_L3, PERF_MEM_SNOOP_HITM, 0)

static inline void wl_ready(void)
{
	printf("%d\n", getpid());
	fflush(stdout);
}

/* Starts fn as the thread to be woken, waits until it has stored its tid
 * in *tid, and prints the pid, then that tid, on lines of their own */
static inline void wl_start_target(pthread_t *t, void *(*fn)(void *), atomic_int *tid)
{
	pthread_create(t, NULL, fn, NULL);
	while (!atomic_load(tid))
		sched_yield();
	printf("%d\n%d\n", getpid(), atomic_load(tid));
	fflush(stdout);
}

#endif
