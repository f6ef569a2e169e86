/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Helpers for the benchmark workloads: a fixed-length measured window and
 * one result line, "ops_per_sec: N ops: N secs: S", that bench/bench.py
 * parses.  The harness starts each workload stopped, attaches the tracer,
 * then lets it run, so the window never includes the tracer's start-up. */
#ifndef BENCH_WL_H
#define BENCH_WL_H

#include "wl.h"

static inline double bw_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline double bw_secs_arg(int argc, char **argv, int i, double def)
{
	double v = argc > i ? strtod(argv[i], NULL) : def;

	if (!(v > 0 && v < 3600)) {
		fprintf(stderr, "%s: duration '%s' out of range (0, 3600)\n",
			argv[0], argv[i]);
		exit(2);
	}
	return v;
}

static inline void bw_report(unsigned long long ops, double secs)
{
	printf("ops_per_sec: %.1f ops: %llu secs: %.6f\n", ops / secs, ops, secs);
	fflush(stdout);
}

#endif
