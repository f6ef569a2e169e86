/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What the scheduler itself counts of a task, for switches the kernel
 * does not report.  A kernel may emit no sched_switch event at all for
 * some switches (on this suite's test machines: none for a switch away
 * from a thread of the machine's init agent), so a thread switched in
 * from such a task is never seen coming back.  The scheduler still
 * counts the thread's arrivals on a CPU (task->sched_info.pcount, where
 * the kernel has CONFIG_SCHED_INFO) and stamps the last one (last_arrival,
 * on the run queue's clock).  Used by offcputime (an interval ends at that
 * arrival) and wakers (a wakeup's latency is then not known). */
#ifndef SUITE_SCHEDINFO_BPF_H
#define SUITE_SCHEDINFO_BPF_H

#include <bpf/bpf_core_read.h>
#include "tp.bpf.h"

/* For tests (SUITE_TEST_HIDE_SWITCH_IN=N, tools/lib/testenv.h): every
 * Nth switch-in a tool would act on is ignored, as if the kernel had not
 * reported it.  Call only where the switch-in matters. */
const volatile __u32 hide_switch_in_every = 0;
__u32 hide_switch_in_seq;

static __always_inline bool switch_in_hidden(void)
{
	return hide_switch_in_every && ++hide_switch_in_seq % hide_switch_in_every == 0;
}

/* Does this kernel count arrivals? */
static __always_inline bool arrivals_known(struct task_struct *task)
{
	return bpf_core_field_exists(task->sched_info);
}

/* How many times task has been switched in (only if arrivals_known) */
#define TASK_ARRIVALS(btf, task) KREAD(btf, task, sched_info.pcount)
/* When it was last switched in, on the run queue's clock */
#define TASK_LAST_ARRIVAL(btf, task) KREAD(btf, task, sched_info.last_arrival)

/* The run queue's clock now, in a sched_switch program: where
 * __schedule() began, as the scheduler stamps the next task's arrival.
 * Read through prev, the task leaving this CPU (its fair-class queue is
 * this CPU's, whatever its class; the per-CPU runqueues is not a symbol a
 * program can take on a kernel without CONFIG_KALLSYMS_ALL) */
static __always_inline __u64 rq_clock_now(bool btf, struct task_struct *prev)
{
	struct cfs_rq *cfs = KREAD(btf, prev, se.cfs_rq);
	struct rq *rq;

	if (bpf_core_field_exists(cfs->rq))
		rq = KREAD(btf, cfs, rq);
	else	/* no group scheduling: the queue is the run queue's own */
		rq = (void *)cfs - bpf_core_field_offset(struct rq, cfs);
	return KREAD(btf, rq, clock);
}

#endif
