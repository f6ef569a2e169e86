/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* How one event of the timeline reads (timeline.h): its kind's name, its
 * duration, the function it happened in, the phrase of a report
 * ("preempted by rdkafka-metrics (tid 812) for 2.1 ms") and the name of a
 * cause that groups events ("preemption by rdkafka-metrics (tid 812)").
 * Used by correlate.c, bundle.c and baseline.c. */
#ifndef HOTCHECK_EVENT_H
#define HOTCHECK_EVENT_H

#include "timeline.h"

/* "syscall", "fault", "block", "preempt", "migrate", "signal",
 * "intruder" (the kind column of timeline.tsv and JSON) */
const char *hc_kind_name(enum hc_kind kind);


/* The leaf function of a folded stack (root to leaf, ';'-joined, its
 * first frame the thread's comm): the last user frame, else the last
 * kernel frame (with its "_[k]"); the first frame (the comm) and the
 * bracketed marks ("[unknown]", "[user stack lost]", "[softirq]") are
 * never taken.  Its start in stack and its length in *len; NULL (and
 * *len 0) when the stack names no function. */
const char *hc_stack_leaf(const char *stack, size_t *len);

/* The phrase of one event ("syscall write took 35 us in flush_log"), cut
 * to size; returns buf */
char *hc_event_phrase(char *buf, size_t size, const struct hc_event *e);

/* The cause an event stands for, by (kind, actor), else (kind, leaf
 * function of its stack), else (kind, what): "preemption by
 * rdkafka-metrics (tid 812)", "page faults in order_book_grow",
 * "blocks woken by diag_flusher (tid 77)", "syscalls (write)",
 * "IRQ 24 (eth0) on the CPU".  Events of one cause have one name. */
char *hc_event_cause(char *buf, size_t size, const struct hc_event *e);

#endif
