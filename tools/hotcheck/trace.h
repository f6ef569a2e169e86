/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* hotcheck --trace FILE: the window's timeline (timeline.h: the events
 * kept, --max-events) in the Trace Event Format (tools/lib/tracefmt.h):
 * a track per hot CPU (other tasks, IRQs, softirqs, timers, IPIs, stolen
 * time), a track per hot thread (its blocks with their wakers and its
 * preemptions with who took the CPU as slices; its syscalls, faults,
 * migrations and signals as instants), and with --correlate the slow
 * requests on a track of their own.
 *
 * Calls, from hotcheck.c: hc_trace_open() when the options are read (a
 * path that cannot be written exits 2); hc_trace_write() after the
 * report. */
#ifndef HOTCHECK_TRACE_H
#define HOTCHECK_TRACE_H

#include "tracefmt.h"

struct hc_run;
struct hc_correlation;

struct hc_trace {
	const char *path;	/* NULL: no --trace */
	struct tracefmt t;
};

/* Opens path (NULL: nothing to do): exits 2, said, when it cannot */
void hc_trace_open(struct hc_trace *tr, const char *path);
/* The timeline of run (built), and corr's requests (NULL: none), into
 * the file, closed then (a failed write is said: exit 2) */
void hc_trace_write(struct hc_trace *tr, const struct hc_run *run,
		    const struct hc_correlation *corr);

#endif
