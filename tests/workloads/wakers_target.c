// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* wakers_target MODE N [GO_FILE]
 * A thread named "wk_target" is woken exactly N times, in a way chosen by
 * MODE, each time while it is really asleep (its /proc state is S):
 *   futex   thread "wk_waker" wakes it with FUTEX_WAKE from
 *           wakers_poke_target(); it waits in wakers_wait_here()
 *   signal  thread "wk_signaler" sends it SIGUSR1 with tgkill from
 *           wakers_send_signal(); it waits in wakers_wait_here()
 *   timer   it sleeps 1 ms in wakers_nap_here() (woken by the hrtimer
 *           interrupt: nobody's task)
 *   net     thread "wk_sender" writes a UDP datagram over loopback from
 *           wakers_send_packet(); it reads in wakers_recv_here() (woken by
 *           the NET_RX softirq)
 * Prints its pid, then the target's tid; starts when GO_FILE exists (or at
 * once without one), the target spinning until then so that it is never
 * woken before; at the end prints "woken N" (the wakeups it caused). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <arpa/inet.h>
#include <linux/futex.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "wl.h"

static long n_rounds;
static const char *mode;
static atomic_int flag;			/* futex word */
static atomic_int never;		/* futex word nobody sets */
static atomic_int handled;		/* signals handled by the target */
static atomic_int received;		/* datagrams read by the target */
static atomic_int target_tid;
static atomic_int go;			/* set once GO_FILE exists */
static int sock_rx, sock_tx;

/* ---- the target ---- */

NOINLINE void wakers_wait_here(atomic_int *word)
{
	wl_syscall4(SYS_futex, (long)word, FUTEX_WAIT_PRIVATE, 0, 0);
}

NOINLINE void wakers_nap_here(void)
{
	WL_SLEEP_MS(1);
}

NOINLINE long wakers_recv_here(char *buf, long len)
{
	return wl_syscall4(SYS_read, sock_rx, (long)buf, len, 0);
}

static void on_usr1(int sig)
{
	atomic_fetch_add(&handled, 1);
}

static void *target(void *arg)
{
	char buf[64];

	wl_name("wk_target");
	atomic_store(&target_tid, (int)syscall(SYS_gettid));
	/* spin, do not sleep: no wakeup of this thread before the start */
	while (!atomic_load(&go))
		sched_yield();
	for (long i = 0; i < n_rounds; i++) {
		if (!strcmp(mode, "futex")) {
			while (!atomic_load(&flag))
				wakers_wait_here(&flag);
			atomic_store(&flag, 0);
		} else if (!strcmp(mode, "signal")) {
			while (atomic_load(&handled) <= i)
				wakers_wait_here(&never);
		} else if (!strcmp(mode, "timer")) {
			wakers_nap_here();
		} else {
			if (wakers_recv_here(buf, sizeof(buf)) > 0)
				atomic_fetch_add(&received, 1);
			else
				i--;
		}
	}
	return NULL;
}

/* ---- the wakers ---- */

static void wait_target_asleep(void)
{
	wl_wait_asleep(atomic_load(&target_tid));
}

/* A call after the system call makes the wakers below non-leaf
 * functions, which gcc gives a frame pointer (leaf ones get none here,
 * and the unwinder would then skip their caller). */
NOINLINE void wakers_after(void)
{
	__asm__ volatile("" ::: "memory");
}

NOINLINE long wakers_poke_target(void)
{
	long r;

	atomic_store(&flag, 1);
	r = wl_syscall4(SYS_futex, (long)&flag, FUTEX_WAKE_PRIVATE, 1, 0);
	wakers_after();
	return r;
}

NOINLINE long wakers_send_signal(void)
{
	long r = wl_syscall4(SYS_tgkill, getpid(), atomic_load(&target_tid), SIGUSR1, 0);

	wakers_after();
	return r;
}

NOINLINE long wakers_send_packet(void)
{
	static const char msg[] = "wake up";
	long r = wl_syscall4(SYS_write, sock_tx, (long)msg, sizeof(msg), 0);

	wakers_after();
	return r;
}

static void *waker(void *arg)
{
	long woken = 0;

	wl_name(!strcmp(mode, "futex") ? "wk_waker" :
		!strcmp(mode, "signal") ? "wk_signaler" : "wk_sender");
	for (long i = 0; i < n_rounds; i++) {
		if (!strcmp(mode, "futex")) {
			while (atomic_load(&flag))
				sched_yield();
			wait_target_asleep();
			woken += wakers_poke_target() == 1;
		} else if (!strcmp(mode, "signal")) {
			while (atomic_load(&handled) < i)
				sched_yield();
			wait_target_asleep();
			woken += wakers_send_signal() == 0;
			while (atomic_load(&handled) <= i)
				sched_yield();
		} else {
			while (atomic_load(&received) < i)
				sched_yield();
			wait_target_asleep();
			woken += wakers_send_packet() > 0;
		}
	}
	printf("woken %ld\n", woken);
	return NULL;
}

static void udp_pair(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sock_rx = socket(AF_INET, SOCK_DGRAM, 0);
	sock_tx = socket(AF_INET, SOCK_DGRAM, 0);
	if (sock_rx < 0 || sock_tx < 0 ||
	    bind(sock_rx, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(sock_rx, (struct sockaddr *)&a, &len) ||
	    connect(sock_tx, (struct sockaddr *)&a, sizeof(a))) {
		perror("udp socket");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	pthread_t t, w;

	if (argc < 3) {
		fprintf(stderr, "usage: wakers_target futex|signal|timer|net N [GO_FILE]\n");
		return 2;
	}
	mode = argv[1];
	n_rounds = wl_arg(argc, argv, 2, 100);
	sigaction(SIGUSR1, &sa, NULL);	/* no SA_RESTART: the wait returns */
	if (!strcmp(mode, "net"))
		udp_pair();
	wl_name("wk_main");
	wl_start_target(&t, target, &target_tid);
	wl_wait_file(argc > 3 ? argv[3] : NULL);
	atomic_store(&go, 1);
	if (strcmp(mode, "timer"))
		pthread_create(&w, NULL, waker, NULL);
	pthread_join(t, NULL);
	if (strcmp(mode, "timer"))
		pthread_join(w, NULL);
	else
		printf("woken %ld\n", n_rounds);
	return 0;
}
