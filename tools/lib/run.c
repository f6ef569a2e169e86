// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "run.h"
#include "msg.h"
#include "clock.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>

volatile sig_atomic_t run_exiting;
uint64_t run_start_ns, run_end_ns;

/* One stop is often delivered more than once: GNU timeout signals its
 * child and then the child's process group, a supervisor may signal every
 * process of a service, a terminal's Ctrl-C reaches the whole foreground
 * group.  A signal within RUN_SAME_STOP_NS of the first is the same stop;
 * a later one is a second request and quits at once (the report is lost,
 * as asked).  clock_gettime() is async-signal-safe. */
#define RUN_SAME_STOP_NS	300000000ull

static uint64_t first_stop_ns;

static uint64_t signal_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void on_signal(int sig)
{
	uint64_t now = signal_now_ns();

	if (first_stop_ns && now - first_stop_ns < RUN_SAME_STOP_NS)
		return;
	if (run_exiting)
		_exit(128 + sig);
	first_stop_ns = now;
	run_exiting = 1;
}

void run_install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static bool targets_gone(const struct run_opts *o)
{
	size_t n = 0;

	if (o->pids)
		for (size_t i = 0; i < o->pids->n; i++, n++)
			if (id_list_alive(o->pids, i))
				return false;
	if (o->tids)
		for (size_t i = 0; i < o->tids->n; i++, n++)
			if (id_list_alive(o->tids, i))
				return false;
	return n > 0;
}

enum run_end run_loop(const struct run_opts *o)
{
	uint64_t deadline = 0, last_check = 0;
	enum run_end end;

	run_start_ns = now_ns();
	if (o->duration > 0)
		deadline = run_start_ns + (uint64_t)(o->duration * 1e9);
	for (;;) {
		uint64_t now = now_ns();
		int timeout = 100, err;

		if (run_exiting) {
			end = RUN_SIGNAL;
			break;
		}
		if (o->streaming)
			out_watch_reader();
		if (out_ended()) {
			end = RUN_OUTPUT;	/* said already, if it is to be */
			break;
		}
		if (deadline && now >= deadline) {
			end = RUN_DURATION;
			break;
		}
		if (now - last_check >= 200000000ull) {
			last_check = now;
			if (targets_gone(o)) {
				end = RUN_TARGETS_GONE;
				break;
			}
		}
		if (deadline && deadline - now < 100000000ull)
			timeout = (int)((deadline - now) / 1000000) + 1;
		if (o->poll) {
			err = o->poll(o->ctx, timeout);
			if (err < 0 && err != -EINTR) {
				msg_warn("polling failed: %s", strerror(-err));
				end = RUN_ERROR;
				break;
			}
		} else {
			usleep(timeout * 1000);
		}
	}
	run_end_ns = now_ns();
	return end;
}

int run_poll_ringbuf(void *rb, int timeout_ms)
{
	int err = ring_buffer__poll(rb, timeout_ms);

	return err < 0 ? err : 0;
}

void run_verdict(char *buf, size_t size, const char *what, const char *who,
		 enum run_end end, double duration)
{
	char dur[32];

	if (end == RUN_DURATION)
		snprintf(dur, sizeof(dur), "%g", duration);
	else
		snprintf(dur, sizeof(dur), "%.1f", (run_end_ns - run_start_ns) / 1e9);
	snprintf(buf, size, "%s by %s in %s s", what, who, dur);
}

void run_report_end(enum run_end end)
{
	if (end == RUN_TARGETS_GONE)
		msg_warn("every traced process has exited; stopped after %.1f s",
			 (run_end_ns - run_start_ns) / 1e9);
}
