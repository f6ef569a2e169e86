/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Helpers for the test workloads: behaviour known in advance, so the
 * tools' reports can be checked exactly.  System calls are made with
 * inline asm from the calling function itself, so that a frame-pointer
 * unwinder sees the calling function (a libc wrapper built without frame
 * pointers would hide it). */
#ifndef WL_H
#define WL_H

#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#define NOINLINE __attribute__((noinline, noclone))

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

/* Waits until the file named by $WL_GO exists, if set */
static inline void wl_wait_go(void)
{
	const char *go = getenv("WL_GO");

	while (go && access(go, F_OK))
		wl_delay_ms(5);
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
	union perf_mem_data_src d = { .val = 0 };

	d.mem_op = op;
	d.mem_lvl = lvl;
	d.mem_lvl_num = lvlnum;
	d.mem_snoop = snoop;
	d.mem_remote = remote;
	d.mem_lock = PERF_MEM_LOCK_NA;
	d.mem_dtlb = PERF_MEM_TLB_HIT | PERF_MEM_TLB_L1;
	return d.val;
}

static inline void wl_ready(void)
{
	printf("%d\n", getpid());
	fflush(stdout);
}

#endif
