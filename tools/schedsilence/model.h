/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* schedsilence's verdict: which events on the watched CPUs are intruders,
 * aggregated by (CPU, kind, identity), with a bounded timeline.  Pure: it
 * reads only the records it is fed (bpf/schedsilence.h), so recorded event
 * streams can be replayed by the unit tests. */
#ifndef SUITE_SILENCE_H
#define SUITE_SILENCE_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cadence.h"
#include "hashmap.h"
#include "opts.h"
#include "schedsilence.h"

enum silence_kind {
	SK_TASK,
	SK_IRQ,
	SK_SOFTIRQ,
	SK_TIMER_TICK,
	SK_IPI,
	SK_WORKQUEUE,
	SK_HRTIMER,
	SK_MIGRATION,
	SK_KINDS,
};

#define SILENCE_NO_ID UINT32_MAX
#define SILENCE_COMM_LEN 16

struct silence_cfg {
	const struct cpu_list *cpus;		/* watched */
	const struct id_list *allow_tids;	/* expected threads */
	const char (*allow_comms)[SILENCE_COMM_LEN];
	size_t n_allow_comms;
	size_t timeline_max;			/* first N intruding events printed */
	/* first N intruding events kept (--trace: SILENCE_TRACE_KEEP), the
	 * printed ones among them; the timeline is timeline_max when less */
	size_t timeline_keep;
	/* The window, CLOCK_MONOTONIC ns: events before start_ts or after
	 * end_ts are not counted (0: no bound) */
	uint64_t start_ts, end_ts;
	/* Inside the window, the part strictly between the two readings of
	 * /proc/interrupts: vector counts in it are kept apart (vec_inner),
	 * so that inner <= /proc delta <= the window's count */
	uint64_t inner_start, inner_end;
};

struct intruder {
	uint32_t cpu;
	enum silence_kind kind;
	uint32_t id;		/* pid, irq, softirq vector, ss_vector; SILENCE_NO_ID */
	uint64_t addr;		/* workqueue / hrtimer function */
	char name[64];		/* comm, irq action, vector or function name */
	bool kthread;
	uint64_t count, total_ns, max_ns, first_ts, last_ts;
	bool running_at_end;	/* task: still on the CPU when tracing stopped */
	bool running_at_start;	/* task: already on the CPU when tracing began */
	/* task: switch-outs while still runnable (preempted): each one is
	 * followed by another switch-in that is not a new arrival */
	uint64_t preempted;
	/* task: wakeups onto the CPU and the last waker: a task, or an
	 * interrupt (waker_ctx not IRQCTX_TASK: waker is its label, "[hardirq]",
	 * and waker_pid 0, never the task it interrupted) */
	uint64_t wakeups;
	uint32_t waker_pid;
	uint32_t waker_ctx;	/* enum irqctx */
	char waker[SILENCE_COMM_LEN];
	uint32_t from_cpu;	/* migration: the CPU it came from */
	/* when it arrived: each event, but for a task the switch-ins that
	 * resume it after a preemption (left_runnable) */
	struct cadence arrivals;
	bool left_runnable;
};

struct timeline_ev {
	uint64_t ts, dur;
	size_t row;		/* index into rows */
	bool resumed;		/* a task's switch-in after a preemption: not an arrival */
};

/* IPIs sent to a watched CPU, by sender and call site */
struct ipi_sender {
	uint32_t cpu;		/* the watched CPU */
	uint32_t pid;		/* last sender thread */
	char comm[SILENCE_COMM_LEN];
	uint64_t callsite, callback;
	char site_name[64], callback_name[64];
	uint64_t count;
};

struct silence_cpu {
	uint32_t cpu;
	bool known;		/* a switch has been seen */
	uint32_t cur_pid;
	bool cur_intruder;
	size_t cur_row, cur_tl;	/* cur_tl: timeline index or SIZE_MAX */
	uint64_t since;
	uint64_t allowed_switch_ins, idle_switch_ins;
	uint64_t tick_stop_ok, tick_stop_fail;
	uint32_t tick_deps;	/* tick_stop dependency bits seen */
	uint64_t vec_inner[SS_VEC_KINDS];	/* x86 vectors in the inner window */
};

struct silence {
	struct silence_cfg cfg;
	struct intruder *rows;
	size_t nrows, cap;
	struct hashmap *row_of;	/* struct row_key -> row index (size_t) */
	struct timeline_ev *timeline;
	size_t ntimeline, timeline_cap;
	uint64_t timeline_dropped;	/* intruding events not kept */
	struct ipi_sender *senders;
	size_t nsenders, senders_cap;
	struct silence_cpu *cpus;
	size_t ncpus;
	uint64_t events_fed, events_ignored;
	size_t arrivals_kept;	/* of every row's cadence, at most CADENCE_BUDGET: a
				 * long run on a busy CPU stays bounded */
};

/* Intruding events kept for --trace (32 bytes each): the first ones */
#define SILENCE_TRACE_KEEP (1u << 20)

/* Events kept: the larger of timeline_max and timeline_keep */
size_t silence_timeline_cap(const struct silence_cfg *cfg);

struct silence *silence_new(const struct silence_cfg *cfg);
void silence_free(struct silence *s);
/* One record from the ring buffer (size checked) */
void silence_feed(struct silence *s, const void *data, size_t size);
/* Close the tasks still running on a watched CPU at end_ts */
void silence_finish(struct silence *s, uint64_t end_ts);
/* Rows sorted by CPU, then count (most first); the timeline by time.
 * Indexes into rows change: call once, after silence_finish(). */
void silence_sort(struct silence *s);

/* Intruding events and intruders (rows with count > 0) on one CPU */
uint64_t silence_cpu_events(const struct silence *s, uint32_t cpu, size_t *intruders);
/* A CPU is silent when nothing intruded and nothing was lost */
bool silence_cpu_silent(const struct silence *s, uint32_t cpu, uint64_t losses);
struct silence_cpu *silence_cpu_state(struct silence *s, uint32_t cpu);

/* Is task pid (started at start, task->start_boottime) allowed: one of
 * the allowed threads itself (not a later task given its number), or an
 * allowed comm? */
bool silence_allowed(const struct silence_cfg *cfg, uint32_t pid, uint64_t start,
		     const char *comm);

const char *silence_kind_name(enum silence_kind k);
/* "local_timer", "reschedule", ... */
const char *silence_vector_name(uint32_t vec);
/* Names of the tick_stop dependency bits in deps, comma separated */
void silence_tick_deps_str(uint32_t deps, char *buf, size_t size);

#endif
