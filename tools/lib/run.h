/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The run loop every tool shares: duration, SIGINT/SIGTERM (one stop
 * however often delivered; a deliberate second one exits at once), and the early stop when every traced process is gone. */
#ifndef SUITE_RUN_H
#define SUITE_RUN_H

#include <signal.h>
#include <stdbool.h>
#include "opts.h"
#include "output.h"

extern volatile sig_atomic_t run_exiting;

enum run_end {
	RUN_DURATION,		/* -d expired */
	RUN_SIGNAL,		/* SIGINT or SIGTERM */
	RUN_TARGETS_GONE,	/* every traced process or thread exited */
	RUN_ERROR,		/* the poll callback failed */
	RUN_OUTPUT,		/* an output takes no more (out_ended()) */
};

struct run_opts {
	double duration;		/* seconds, 0: no limit */
	const struct id_list *pids;	/* stop when all of these ... */
	const struct id_list *tids;	/* ... and these are gone */
	/* Called every ~100 ms (or as soon as data is ready); should block
	 * at most timeout_ms.  Returns < 0 on error (-EINTR is not one). */
	int (*poll)(void *ctx, int timeout_ms);
	void *ctx;
	/* The mode prints while tracing: stop as soon as the reader of
	 * stdout is gone, even before the next write (out_watch_reader()) */
	bool streaming;
};

/* SIGINT/SIGTERM handlers: the first sets run_exiting; the same stop
 * delivered again within 300 ms is ignored; a later one _exit(128+sig)s;
 * SIGPIPE ignored so a closed stdout ends output quietly (see
 * output.h). */
void run_install_signals(void);
/* Runs until -d, a signal, the targets' exit, or an output that takes
 * no more (a reader gone, a write failed: see output.h) */
enum run_end run_loop(const struct run_opts *o);
/* The monotonic time (ns) at which run_loop() started and ended */
extern uint64_t run_start_ns, run_end_ns;
/* A run_opts.poll for a libbpf ring_buffer (ctx is the ring_buffer) */
int run_poll_ringbuf(void *rb, int timeout_ms);
/* The --check verdict line: "WHAT by WHO in N s", N being the -d duration
 * when it ran out, else the time traced */
void run_verdict(char *buf, size_t size, const char *what, const char *who,
		 enum run_end end, double duration);
/* Says on stderr why tracing stopped, when it is not the expected way. */
void run_report_end(enum run_end end);

#endif
