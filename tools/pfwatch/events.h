/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The perf events that run pfwatch's programs: the software events
 * page-faults-maj and -min (sample_period 1), one per CPU, or one on each
 * thread of the targets (inherited by the threads they create), so that
 * no other process pays anything. */
#ifndef PFWATCH_EVENTS_H
#define PFWATCH_EVENTS_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include "opts.h"

struct bpf_program;
struct perfev_set;

/* The per-thread events.  Every thread of a -p process present at the
 * start gets an event that its future threads inherit.  A thread that
 * shows up only in a second listing was created while the events were
 * being opened: it may or may not have inherited one.  It gets its own,
 * not inherited (so no thread ever holds two inherited copies), the
 * program counts one event per thread (dedupe), and from then on the
 * processes are listed again every poll, for threads whose creator had no
 * event. */
struct fault_events {
	/* the caller's */
	struct bpf_program *major, *minor;	/* the programs to run */
	bool *dedupe;			/* the programs' switch: one event per thread */
	const struct common_opts *o;	/* -p and -t */
	/* fault_events_open()'s */
	struct perfev_set *pev;
	struct id_list done;	/* threads given an event of their own */
	bool relist;		/* some thread was found late */
	size_t late;		/* threads found late */
	/* threads found late and left without an event of their own: the
	 * kernel has no attach cookies to tell two events of one thread
	 * apart (counted if they inherited one) */
	size_t uncovered;
	__u64 last_list_ns;
};

/* The threads of o's -p processes and -t threads, now */
size_t fault_events_threads(const struct common_opts *o);
/* Per thread of the targets, or per CPU: 0 or a negative errno */
int fault_events_open(struct fault_events *fe, bool per_thread);
/* Every poll, once some thread was found late: the new threads */
void fault_events_tick(struct fault_events *fe);
/* The events' own count of faults, major and minor */
__u64 fault_events_count(const struct fault_events *fe);
void fault_events_free(struct fault_events *fe);

#endif
