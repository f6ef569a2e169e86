/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* hotcheck's record of one window: every event recorded for the hot
 * threads and their CPUs, in time order, and the verdict's rows.  The
 * collect half (tools/hotcheck/collect.c) fills it from the BPF object;
 * correlate.c, baseline.c and bundle.c read it. */
#ifndef HOTCHECK_TIMELINE_H
#define HOTCHECK_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum hc_kind {
	HC_SYSCALL,	/* the hot thread made a syscall: what = its name */
	HC_FAULT,	/* a page fault after the warm-up: what = "minor" or "major" */
	HC_BLOCK,	/* off CPU voluntarily: what = the wait (e.g. "futex"), actor = waker */
	HC_PREEMPT,	/* involuntary: actor = the task or interrupt that took the CPU */
	HC_MIGRATE,	/* moved to another CPU: what = "cpu A -> B" */
	HC_SIGNAL,	/* a signal received: what = its name, actor = sender */
	HC_INTRUDER,	/* on the hot CPU: another task, an IRQ, softirq, timer or IPI */
	HC_STEAL,	/* the hypervisor held the CPU: stolen_ns of it, somewhere
			 * between two readings of its steal time (start_ns and
			 * start_ns + dur_ns: the resolution) */
	HC_KIND_N
};

/* One event.  Times are CLOCK_MONOTONIC nanoseconds; the timeline carries
 * the offset to CLOCK_REALTIME taken at the start of the window.  All
 * strings are owned by the timeline and already escaped for printing. */
struct hc_event {
	enum hc_kind kind;
	uint32_t tid;		/* the hot thread it concerns (0: CPU-level only) */
	int32_t cpu;
	uint64_t start_ns;	/* CLOCK_MONOTONIC */
	uint64_t dur_ns;	/* 0 for an instant (a minor fault, a signal) */
	const char *what;	/* the syscall, fault kind, wait, intruder kind */
	const char *actor;	/* the comm of who did it ("" if none) */
	uint32_t actor_tid;	/* 0 if none; an IRQ's number for interrupts */
	const char *stack;	/* folded frames root to leaf, ';'-joined ("" if none) */
	const char *waker_stack;/* HC_BLOCK: the waker's stack ("" if unknown) */
	uint64_t stolen_ns;	/* HC_STEAL: how much of dur_ns was stolen */
};

/* One row of the verdict: a check, silent or not. */
struct hc_check {
	const char *name;	/* "syscalls", "page faults", "blocks", "preemptions",
				 * "migrations", "signals", "cpu intruders", "irqs",
				 * "isolation" ... stable: the baseline matches rows by it */
	bool silent;
	uint64_t count;		/* events counted exactly */
	uint64_t time_ns;	/* time they took, where it means something */
	const char *top_cause;	/* "" when silent */
	const char *fix;	/* "" when silent or unknown */
	const char *skipped;	/* not checked: why (NULL: checked) */
};

/* One line of a folded file of the bundle: a stack and its sum over
 * every event of the window (not only the timeline's) */
struct hc_fold {
	enum hc_kind kind;
	bool waker;		/* the wakers' stacks of the blocks */
	const char *stack;	/* as written */
	uint64_t count, time_ns;
};

/* What says when a hot thread was on its CPU besides its off-CPU
 * intervals (HC_BLOCK, HC_PREEMPT): --trace's running slices */
enum hc_mark_kind {
	HC_MARK_ONCPU,		/* first seen coming onto its CPU, off since before tracing */
	HC_MARK_EXIT,		/* it exited: off its CPU for good */
	HC_MARK_OFF_AT_END,	/* off its CPU at the window's end, since ts_ns */
};

struct hc_mark {
	uint32_t tid;
	enum hc_mark_kind kind;
	uint64_t ts_ns;		/* CLOCK_MONOTONIC */
	bool preempted;		/* HC_MARK_OFF_AT_END: runnable, not blocked */
};

struct hc_timeline {
	struct hc_event *ev;	/* sorted by start_ns */
	size_t n;
	int64_t realtime_offset_ns;	/* CLOCK_REALTIME - CLOCK_MONOTONIC */
	uint64_t window_start_ns, window_end_ns;	/* CLOCK_MONOTONIC */
	struct hc_check *checks;
	size_t n_checks;
	uint64_t events_dropped;	/* events lost (reported, never silent) */
	uint64_t events_not_kept;	/* counted in the checks, past the cap of ev[] */
	uint64_t complete_until_ns;	/* ev[] holds every event that began before
					 * it (0: every event of the window) */
	struct hc_fold *folds;		/* the folded files' lines (NULL: from ev[]) */
	/* steal_reported: the hypervisor reports steal time on every hot
	 * CPU (ev[] holds its HC_STEAL steps); else steal_unknown says why it
	 * is not known, a phrase: "steal time is not reported by the
	 * hypervisor on this machine" (NULL: not said) */
	bool steal_reported;
	const char *steal_unknown;
	size_t n_folds;
	/* the marks of the hot threads' time on their CPUs, in the window
	 * (or before it: HC_MARK_ONCPU), any order */
	const struct hc_mark *marks;
	size_t n_marks;
	/* NULL: every off-CPU interval of the hot threads is in ev[] (up to
	 * complete_until_ns); else why not, a phrase */
	const char *offcpu_incomplete;
};

#endif
