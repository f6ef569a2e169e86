/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* --trace FILE: a timeline in the Trace Event Format, the JSON object form
 * that Perfetto's UI and chrome://tracing open:
 *   {"displayTimeUnit":"ms","traceEvents":[...],"otherData":{...}}
 * written as the tool walks what it kept.  Times are given in ns of
 * CLOCK_MONOTONIC and written in microseconds with three decimals (the
 * format's unit), so no precision is lost; a duration is written as the
 * difference of the doubles a reader gets for its end and start, so that
 * ts + dur is the end exactly (tracefmt.c).  Names go through the JSON
 * writer (json.c), escaped completely.
 *
 * A track is a (pid, tid) pair named by metadata events ("M").  A CPU's
 * track lives in a process of its own, TRACEFMT_CPU_PID, above any pid
 * the kernel gives (PID_MAX_LIMIT is 2^22), so it never meets a thread's. */
#ifndef SUITE_TRACEFMT_H
#define SUITE_TRACEFMT_H

#include <stdint.h>
#include <stdio.h>
#include "json.h"

#define TRACEFMT_CPU_PID (1u << 30)
#define TRACEFMT_CPU_TID(cpu) (TRACEFMT_CPU_PID + 1 + (uint32_t)(cpu))

struct tracefmt {
	FILE *f;
	struct json j;
	uint64_t events;	/* trace events written (metadata included) */
	uint64_t ts_ns;		/* the start of the event being written */
};

/* Opens path for writing (created or truncated), checked like stdout
 * (output.c): -1 with errno set when it cannot be opened. */
int tracefmt_open(struct tracefmt *t, const char *path);
/* Begins the document and its "traceEvents" array */
void tracefmt_begin(struct tracefmt *t);
/* Names a process's track group and a thread's track ("M" events);
 * sort orders the threads of a process (lower first) */
void tracefmt_process(struct tracefmt *t, uint32_t pid, const char *name);
void tracefmt_thread(struct tracefmt *t, uint32_t pid, uint32_t tid, const char *name,
		     int64_t sort);
/* The track of a CPU: the thread "CPU N" of process TRACEFMT_CPU_PID
 * (name that process once with tracefmt_process) */
void tracefmt_cpu_track(struct tracefmt *t, uint32_t cpu);

/* One event: ph 'X' (a complete slice: give its duration) or 'i' (an
 * instant on its thread's track), then its args, then its end */
void tracefmt_ev_begin(struct tracefmt *t, char ph, const char *name, const char *cat,
		       uint32_t pid, uint32_t tid, uint64_t ts_ns);
void tracefmt_ev_dur(struct tracefmt *t, uint64_t dur_ns);
/* "args": {...}: the writer to put the keys and values with */
struct json *tracefmt_args_begin(struct tracefmt *t);
void tracefmt_args_end(struct tracefmt *t);
void tracefmt_ev_end(struct tracefmt *t);

/* The window the events lie in: CLOCK_MONOTONIC ns, and the offset to
 * CLOCK_REALTIME (realtime - monotonic) */
struct tracefmt_window {
	uint64_t start_ns, end_ns;
	uint64_t realtime_offset_ns;
};

/* Ends "traceEvents" and opens "otherData" with the tool, its version,
 * the clock, realtime_offset_us, window_start_us and window_end_us: the
 * writer for the tool's keys */
struct json *tracefmt_meta_begin(struct tracefmt *t, const struct tracefmt_window *w);
/* Ends the document and closes the file: -1 when it could not be written
 * (said on stderr, naming the file; the exit status is then 2) */
int tracefmt_close(struct tracefmt *t);

#endif
