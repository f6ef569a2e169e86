/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* hotcheck's collect half: the records of bpf/hotcheck.bpf.c, counted
 * as they come off the ring buffer (but the syscalls the kernel counted
 * itself: hc_collect_kernel) (one entry per identity: what the
 * record says once its times, CPU and return value are set aside, with
 * the count and the time of its events), the first HC_TIMELINE_DEFAULT
 * (--max-events) of them kept for the timeline; then turned into the
 * window's timeline (timeline.h: both clocks, stacks named) and the
 * verdict's rows.  Memory grows with the distinct causes and the cap,
 * never with the event rate.  What the other modules of hotcheck read
 * after the run (collect() builds it all): hc_timeline(run), the filled
 * struct hc_timeline, and the run itself (report.h prints it). */
#ifndef HOTCHECK_COLLECT_H
#define HOTCHECK_COLLECT_H

#include <linux/types.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "cadence.h"
#include "cpulist.h"
#include "hist.h"
#include "losses.h"
#include "isolation.h"
#include "memlock.h"
#include "opts.h"
#include "vec.h"
#include "timeline.h"
#include "hotcheck.h"
#include "steal.h"

struct stacksym;
struct stackstore;
struct hashmap;

/* One cause of a check: what, how often, for how long, from where */
struct hc_cause {
	const char *cause;	/* "getppid", "woken by writer (tid 42)" */
	const char *stack;	/* the folded stack, "" if none */
	const char *waker_stack;	/* blocks: the first waker's stack, "" if none */
	uint64_t count, time_ns;
	uint32_t id;		/* an IRQ's number, a task's tid (0: none) */
	bool kthread;		/* a task cause: a kernel thread */
	uint32_t tid;		/* thread-level causes: the first hot thread seen */
	uint32_t pid;		/* its process */
	struct cadence arrivals;	/* the CPUs' causes: when each came (a task's
					 * stay after a preemption resumes it) */
};

/* The events of one identity, summed as they come */
struct hc_agg {
	uint64_t count, time_ns;
	uint32_t tid;		/* the first hot thread seen with it */
	struct cadence arrivals;	/* the CPUs' records (into the cause's) */
	bool resumes;		/* a task that left runnable: its next stay is
				 * not an arrival */
};

#define HC_TIMELINE_DEFAULT 10000	/* events kept for the timeline: the first
					 * of the hot threads' own, and as many of
					 * their CPUs' */
#define HC_TICK_CALLBACKS 4		/* hrtimer callbacks named per tick identity */

/* The rows of the verdict, in this order (names: hc_check_names) */
enum hc_check_id {
	HCK_SYSCALLS,
	HCK_FAULTS,
	HCK_BLOCKS,
	HCK_PREEMPTIONS,
	HCK_MIGRATIONS,
	HCK_SIGNALS,
	HCK_INTRUDERS,		/* other tasks on the hot CPUs */
	HCK_IRQS,
	HCK_SOFTIRQS,
	HCK_TIMERS,		/* hrtimer callbacks and the local timer tick */
	HCK_IPIS,
	HCK_ISOLATION,		/* the CPUs' configuration */
	HCK_N,
};

/* A thread-level check: what the hot threads do themselves (syscalls,
 * faults, blocks, migrations, signals)?  The others are the CPUs' */
bool hc_check_thread_level(enum hc_check_id id);

struct hc_syscall_hist {
	long nr;
	const char *name;
	struct hist h;		/* latency, calls seen whole */
	uint64_t count;		/* every call, timed or not */
};

struct hc_run {
	/* set up by hotcheck.c */
	const struct common_opts *opts;
	const struct cpu_list *cpus;	/* the hot CPUs */
	double warmup;			/* seconds */
	struct stacksym *sym;
	struct stackstore *stacks;
	uint64_t window_start_ns, window_end_ns;
	int64_t realtime_offset_ns;
	__u64 losses[LOSS_KINDS];
	uint64_t stats[HCS_KINDS];
	uint64_t switch_ins_unreported;
	uint64_t fault_events;		/* perf events opened */
	struct memlock memlock;		/* of the first hot process, at the end */
	uint32_t memlock_pid;
	struct sys_config cfg;		/* the isolation configuration */
	/* /proc/interrupts over the window, the hot CPUs' columns */
	struct irq_snap irq_before, irq_after;
	bool have_irqs;
	/* stolen time, per hot CPU (as cpus): NULL if not read */
	struct steal_result *stolen;
	VEC(struct hc_steal_step) steal_steps;	/* in the window (the timeline's) */
	uint64_t steal_steps_lost;	/* past HC_STEAL_STEPS: not kept */

	size_t timeline_max;		/* events kept (0: HC_TIMELINE_DEFAULT) */
	bool unpinned;			/* -p/-t without -C, threads on every CPU:
					 * no CPU-level checks */
	const char *affinity;		/* unpinned: the CPUs they may run on */

	/* filled while tracing */
	struct hashmap *agg;		/* normalized hc_rec -> struct hc_agg */
	VEC(struct hc_rec) kept;	/* the timeline's records, in arrival order */
	VEC(struct hc_mark) marks;	/* HCR_ONCPU, HCR_EXIT; HC_MARK_OFF_AT_END
					 * from hotcheck.c (map tstates) */
	size_t kept_class[2];		/* of them: the threads' own, the CPUs' */
	VEC(struct hc_rec) pending;	/* hrtimer callbacks not yet placed in a tick */
	uint64_t events;		/* records in the window, all counted */
	uint64_t not_kept;		/* in the window, counted, not in the timeline */
	uint64_t first_not_kept_ns;	/* the earliest start of those */
	uint64_t records;		/* records read off the ring buffer, all */
	uint64_t kernel_counted;	/* syscalls of the window counted in the
					 * kernel (map sys_agg), sent or not */
	uint64_t bad_records;		/* of a size or type not known: counted */
	uint64_t outside_window;	/* records of the attach or the detach:
					 * before or after the window, not counted */
	size_t arrivals_kept;		/* of every cause's cadence: at most
					 * CADENCE_BUDGET */

	/* filled by hc_collect_build() */
	struct hc_timeline tl;
	struct hc_check checks[HCK_N];
	VEC(struct hc_cause) causes[HCK_N];	/* sorted, most first */
	VEC(struct hc_syscall_hist) sys;	/* by count, most first */
	struct hashmap *strings;	/* interned strings of the timeline */
	struct hashmap *stack_names;	/* stack ref -> folded string */
};

/* The ring-buffer callback of "events" (ctx: the struct hc_run) */
int hc_on_record(void *ctx, void *data, size_t size);
/* After the run: the per-CPU syscall histograms (map sys_hist's
 * values, HC_SYSCALLS of them, ncpus each) */
void hc_collect_hists(struct hc_run *r, const struct hist *percpu, int ncpus);
/* After the run: the syscalls counted in the kernel (the drained table
 * of map sys_agg: struct hc_sys_key -> struct hc_sys_val, NULL: none)
 * into the counts, and those it did not send (stats[HCS_SYS_UNSENT],
 * read first; the earliest began at first_unsent_ns) into the events not
 * kept */
void hc_collect_kernel(struct hc_run *r, struct hashmap *sys_agg, uint64_t first_unsent_ns);
/* How two drained values of sys_agg join (agg.h) */
void hc_sys_val_combine(void *dst, const void *src);
/* After the run: the timeline and the checks */
void hc_collect_build(struct hc_run *r);
/* A block's folded stack as the report prints it (once built) */
const char *hc_block_stack(struct hc_run *r, const struct hc_rec *rec);
/* The timeline of the run, once built */
const struct hc_timeline *hc_timeline(const struct hc_run *r);
void hc_run_free(struct hc_run *r);

extern const char *const hc_check_names[HCK_N];

#endif
