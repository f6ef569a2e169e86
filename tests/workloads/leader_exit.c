// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* leader_exit [N]: a process whose first thread ends alone (pthread_exit()
 * in main) while its other thread lives on: that thread prints the pid,
 * waits until the first thread is a zombie, prints "leader gone", waits
 * for $WL_GO (on CPU: it never sleeps but in its blocks), blocks N times
 * (default 5) for 50 ms in leader_exit_block, and exits, the process with
 * it. */
#include "wl.h"
#include <pthread.h>

static long n;

NOINLINE void leader_exit_block(void)
{
	WL_SLEEP_MS(50);
	wl_keep(0);
}

/* The state letter of the first thread, from /proc/PID/task/PID/stat */
static char leader_state(void)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t len;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", getpid(), getpid());
	f = fopen(path, "r");
	if (!f)
		return 0;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

static void *worker(void *arg)
{
	(void)arg;
	wl_name("lx_worker");
	wl_ready();
	while (leader_state() != 'Z')
		sched_yield();
	printf("leader gone\n");
	fflush(stdout);
	for (const char *go = getenv("WL_GO"); go && access(go, F_OK);)
		sched_yield();
	for (long i = 0; i < n; i++)
		leader_exit_block();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	n = wl_arg(argc, argv, 1, 5);
	wl_name("lx_main");
	pthread_create(&t, NULL, worker, NULL);
	pthread_exit(NULL);
}
