// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* evil_names MODE N [ARGS]
 * A process that names itself as a hostile one would: every thread's comm
 * holds an ESC sequence and a newline ("ev\e[31m\n" then a word: "main",
 * "work", "target", "sender"), and so do the names of the functions that
 * do the known work below, in its symbol table: "evil\e[31m\nblock",
 * "evil\e[31m\nsignal", "evil\e[31m\ntouch", "evil\e[31m\nwrite" (and the
 * variable "evil\e[31m\ndata").  A C name cannot hold those bytes, so the
 * program first writes a copy of itself with its placeholder names
 * ("evilE_31mN...") patched, into $WL_TMP (default /tmp, left there for
 * the caller to remove), and runs that copy.
 * The worker threads wait for $WL_GO (wl_wait_go) by spinning, without a
 * system call, then:
 *   sleep N MS        "work" blocks N times for MS ms (nanosleep) in
 *                     evil\e[31m\nblock.  Prints "PID WORK_TID".
 *   signal N          "sender" sends SIGUSR1 N times from evil\e[31m\nsignal
 *                     to "target", each time while it sleeps (state S).
 *                     Prints "PID TARGET_TID", at the end "sent N".
 *   touch N           "work" touches N fresh anonymous pages in
 *                     evil\e[31m\ntouch: N page faults.  Prints "PID WORK_TID".
 *   spin CPU N MS     "work", pinned to CPU, sleeps (futex) until the go,
 *                     then N times for MS ms in evil\e[31m\nblock, then for
 *                     good; 300 ms later the process exits: N + 2 arrivals
 *                     on CPU (the go, N timers, the exit).  "main" stays on
 *                     another CPU.  Prints "PID WORK_TID MAIN_TID".
 *   hitm N FILE       writes a hitmtop --replay stream to FILE: N rounds of
 *                     (store + HITM load) at evil\e[31m\ndata+0 from CPU 0
 *                     and at +8 from CPU 1, both from evil\e[31m\nwrite;
 *                     prints "PID" then "ready" and stays 60 s.
 * Then it exits (hitm: after 60 s). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "wl.h"

/* placeholder -> hostile: 'E' (offset 4) -> ESC, '_' -> '[', 'N' -> '\n' */
#define MARK "evilE_31mN"
#define COMM(w) "ev\x1b[31m\n" w

static long n_rounds, arg_ms;
static int cpu;
static atomic_int go, word, never, handled, done;
static atomic_int work_tid, main_tid;

struct pair {
	volatile long a, b;
} __attribute__((aligned(64)));
struct pair evilE_31mNdata;

NOINLINE void evilE_31mNblock(long n, long ms)
{
	for (long i = 0; i < n; i++)
		WL_SLEEP_MS(ms);
	wl_keep(n);
}

NOINLINE void evilE_31mNsignal(int tid)
{
	long r = wl_syscall4(SYS_tgkill, getpid(), tid, SIGUSR1, 0);

	wl_keep(r);
}

NOINLINE void evilE_31mNtouch(volatile char *p, long pages)
{
	wl_touch_pages(p, pages);
}

NOINLINE void evilE_31mNwrite(int which)
{
	if (which)
		evilE_31mNdata.b++;
	else
		evilE_31mNdata.a++;
	wl_keep(which);
}

/* ---- the patched copy ---- */

static void reexec(char **argv)
{
	const char *dir = getenv("WL_TMP");
	static char path[512];
	char *buf = NULL;
	size_t n = 0, cap = 0;
	ssize_t r;
	int fd;

	if (getenv("WL_EVIL_COPY"))
		return;
	fd = open("/proc/self/exe", O_RDONLY);
	if (fd < 0) {
		perror("/proc/self/exe");
		exit(1);
	}
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 1 << 20;
			buf = realloc(buf, cap);
			if (!buf)
				exit(1);
		}
		r = read(fd, buf + n, cap - n);
		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	for (size_t i = 0; i + strlen(MARK) <= n; i++) {
		if (memcmp(buf + i, MARK, strlen(MARK)))
			continue;
		buf[i + 4] = 0x1b;
		buf[i + 5] = '[';
		buf[i + 9] = '\n';
	}
	snprintf(path, sizeof(path), "%s/evil_names.%d", dir ? dir : "/tmp", getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (fd < 0 || write(fd, buf, n) != (ssize_t)n || close(fd)) {
		perror(path);
		exit(1);
	}
	free(buf);
	setenv("WL_EVIL_COPY", path, 1);
	execv(path, argv);
	perror(path);
	exit(1);
}

/* ---- the threads ---- */

/* until the go, without a system call (the worker's are counted) */
static void spin_until_go(void)
{
	while (!atomic_load(&go))
		__asm__ volatile("" ::: "memory");
}

/* A thread's start: named comm, its tid in work_tid */
static void thread_start(const char *comm)
{
	wl_name(comm);
	atomic_store(&work_tid, (int)syscall(SYS_gettid));
}

static void *sleeper(void *arg)
{
	thread_start(COMM("work"));
	spin_until_go();
	evilE_31mNblock(n_rounds, arg_ms);
	return NULL;
}

static void *toucher(void *arg)
{
	thread_start(COMM("work"));
	spin_until_go();
	evilE_31mNtouch(arg, n_rounds);
	return NULL;
}

static void *spinner(void *arg)
{
	wl_set_cpu(cpu);
	thread_start(COMM("work"));
	while (!atomic_load(&word))
		wl_syscall4(SYS_futex, (long)&word, FUTEX_WAIT_PRIVATE, 0, 0);
	evilE_31mNblock(n_rounds, arg_ms);
	atomic_store(&done, 1);
	for (;;)
		wl_syscall4(SYS_futex, (long)&never, FUTEX_WAIT_PRIVATE, 0, 0);
	return NULL;
}

static void on_usr1(int sig)
{
	atomic_fetch_add(&handled, 1);
}

static void *target(void *arg)
{
	thread_start(COMM("target"));
	spin_until_go();
	for (long i = 0; i < n_rounds; i++)
		while (atomic_load(&handled) <= i)
			wl_syscall4(SYS_futex, (long)&never, FUTEX_WAIT_PRIVATE, 0, 0);
	return NULL;
}

static void *sender(void *arg)
{
	int tid = atomic_load(&work_tid);

	wl_name(COMM("sender"));
	spin_until_go();
	for (long i = 0; i < n_rounds; i++) {
		wl_wait_asleep(tid);
		evilE_31mNsignal(tid);
		while (atomic_load(&handled) <= i)
			sched_yield();
	}
	return NULL;
}

/* ---- hitm: a replay stream naming this process ---- */

static void write_replay(const char *path, long n)
{
	uint64_t st = WL_DS_STORE, hitm = WL_DS_HITM_LOCAL;
	uint64_t ip = (uint64_t)(uintptr_t)evilE_31mNwrite + 4;
	uint64_t a = (uint64_t)(uintptr_t)&evilE_31mNdata;
	FILE *f = fopen(path, "w");
	int pid = getpid();

	if (!f) {
		perror(path);
		exit(1);
	}
	fprintf(f, "# cpu pid tid ip addr data_src weight\n");
	for (long k = 0; k < n; k++) {
		for (int c = 0; c < 2; c++) {
			fprintf(f, "%d %d %d 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 " 0\n",
				c, pid, pid + 1 + c, ip, a + 8 * c, st);
			fprintf(f, "%d %d %d 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 " 120\n",
				c, pid, pid + 1 + c, ip, a + 8 * c, hitm);
		}
	}
	if (fclose(f)) {
		perror(path);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	pthread_t t, s;

	if (argc < 3) {
		fprintf(stderr, "usage: evil_names MODE N [ARGS]\n");
		return 2;
	}
	reexec(argv);
	wl_name(COMM("main"));
	n_rounds = wl_arg(argc, argv, 2, 10);
	atomic_store(&main_tid, (int)syscall(SYS_gettid));
	if (!strcmp(mode, "sleep")) {
		arg_ms = wl_arg(argc, argv, 3, 50);
		pthread_create(&t, NULL, sleeper, NULL);
	} else if (!strcmp(mode, "touch")) {
		pthread_create(&t, NULL, toucher, wl_fresh_pages(n_rounds));
	} else if (!strcmp(mode, "signal")) {
		/* no SA_RESTART: the target's futex wait returns */
		struct sigaction sa = { .sa_handler = on_usr1 };

		sigaction(SIGUSR1, &sa, NULL);
		pthread_create(&t, NULL, target, NULL);
		while (!atomic_load(&work_tid))
			wl_delay_ms(1);
		pthread_create(&s, NULL, sender, NULL);
	} else if (!strcmp(mode, "spin")) {
		cpu = (int)wl_arg(argc, argv, 2, 1);
		n_rounds = wl_arg(argc, argv, 3, 10);
		arg_ms = wl_arg(argc, argv, 4, 10);
		if (sysconf(_SC_NPROCESSORS_ONLN) > 1)
			wl_set_cpu(cpu == 0 ? 1 : 0);
		pthread_create(&t, NULL, spinner, NULL);
	} else if (!strcmp(mode, "hitm")) {
		if (argc < 4)
			return 2;
		write_replay(argv[3], n_rounds);
		wl_ready();
		printf("ready\n");
		fflush(stdout);
		evilE_31mNwrite(0);
		wl_delay_ms(60000);
		return 0;
	} else {
		fprintf(stderr, "evil_names: unknown mode %s\n", mode);
		return 2;
	}
	while (!atomic_load(&work_tid))
		wl_delay_ms(1);
	if (!strcmp(mode, "spin"))
		printf("%d %d %d\n", getpid(), atomic_load(&work_tid), atomic_load(&main_tid));
	else
		printf("%d %d\n", getpid(), atomic_load(&work_tid));
	fflush(stdout);
	wl_wait_go();
	if (!strcmp(mode, "spin")) {
		atomic_store(&word, 1);
		syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		while (!atomic_load(&done))
			wl_delay_ms(5);
		wl_delay_ms(300);
		return 0;	/* ends the worker, asleep for good */
	}
	atomic_store(&go, 1);
	pthread_join(t, NULL);
	if (!strcmp(mode, "signal")) {
		pthread_join(s, NULL);
		printf("sent %ld\n", n_rounds);
	}
	return 0;
}
