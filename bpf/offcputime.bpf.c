// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* offcputime: off-CPU time by thread, user stack and kernel stack, from
 * sched_switch.  A thread's user stack is taken when it leaves the CPU;
 * the interval is closed when it comes back, and only then, if the
 * interval counts (-m, -M), is its kernel stack taken: it has not changed
 * while the thread was off the CPU (kstack_at_switch_in; with raw_tp the
 * task switched in is not a trusted pointer, and both are taken at
 * switch-out). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "offcputime.h"
#include "filter.bpf.h"
#include "losses.bpf.h"
#define ANNOUNCE_EXEC_PROGRAMS
#include "announce.bpf.h"
#include "ustack.bpf.h"
#include "agg.bpf.h"
#include "tp.bpf.h"
#include "compat.bpf.h"
#include "schedinfo.bpf.h"

#define PF_KTHREAD	0x00200000
#define TASK_DEAD	0x00000080

const volatile bool user_threads_only = false;
const volatile bool kernel_threads_only = false;
const volatile bool all_states = true;
const volatile __u32 state_mask = 0;		/* kernel task state bits */
const volatile bool runnable_state = false;	/* 'R': preempted */
const volatile __u64 min_ns = 1000;
const volatile __u64 max_ns = ~0ULL;
const volatile bool want_ustack = true;
const volatile bool want_kstack = true;
const volatile bool kstack_at_switch_in = true;
/* Intervals ended at an arrival the kernel did not report (close_unseen,
 * and the walk at the end) */
__u64 switch_ins_unreported;

/* both sized by --max-entries */
HASH_MAP(start, __u32, struct offcpu_start, 1);
AGG_MAP(counts, struct offcpu_key, struct offcpu_val, 1);

/* Switch-ins the kernel does not report (bpf/schedinfo.bpf.h): an
 * interval whose thread arrived once since it began ended then, and is
 * counted as it was; arrived more often, its end is unknown and it is
 * lost (LOSS_END_UNSEEN). */

static __always_inline bool state_match(bool preempt, __u32 state)
{
	if (state & TASK_DEAD)
		return false;	/* its last switch: it never comes back */
	if (all_states)
		return true;
	if (preempt || state == 0)
		return runnable_state;
	return state & state_mask;
}

/* The kernel stack deferred to now: next is about to run, its stack is
 * still the one it left the CPU with */
static __always_inline void take_deferred(bool btf, struct task_struct *next,
					  struct offcpu_key *key)
{
	if (key->kstack != STACK_DEFERRED)
		return;
	if (btf)
		key->kstack = stack_of_task(next);
	else
		key->kstack = STACK_LOST;	/* never: raw_tp does not defer */
}

/* An interval of key, delta ns long, ends; next: the thread now switched
 * in, whose kernel stack is the one it waited in (NULL: it ran since, and
 * a deferred kernel stack is lost) */
static __always_inline void close_interval(bool btf, struct task_struct *next,
					   struct offcpu_key *key, __u64 seq, __u64 delta)
{
	struct offcpu_val *val, zero = {};
	bool in_range = delta >= min_ns && delta <= max_ns;

	if (in_range) {
		if (next)
			take_deferred(btf, next, key);
		else if (key->kstack == STACK_DEFERRED) {
			loss_inc(LOSS_KSTACK);
			key->kstack = STACK_LOST;
		}
	}
	if (seq) {
		/* user space holds the sample: close it there, in range or not */
		struct offcpu_interval ev = {
			.type = OFFCPU_EV_INTERVAL,
			.in_range = in_range,
			.seq = seq,
			.delta_ns = delta,
			.key = *key,
		};

		if (!bpf_ringbuf_output(&ustack_rb, &ev, sizeof(ev), 0))
			return;
		loss_inc(LOSS_RINGBUF);
		key->ustack = STACK_LOST;	/* keep the time, not the stack */
	}
	if (!in_range)
		return;
	val = AGG_VALUE(counts, key, &zero);
	if (!val)
		return;
	/* a key is one thread's, and a thread comes back on one CPU at a
	 * time: plain adds are exact */
	val->total_ns += delta;
	val->count++;
}

/* How long the open interval sp of task lasted, if task was switched in
 * once, unreported, since it began (0: not known) */
static __always_inline __u64 unseen_delta(bool btf, struct task_struct *task,
					  const struct offcpu_start *sp)
{
	__u64 n = TASK_ARRIVALS(btf, task) - sp->arrivals;
	__u64 end = TASK_LAST_ARRIVAL(btf, task);

	if (n != 1 || end <= sp->rq_ts)
		return 0;
	return end - sp->rq_ts;
}

/* The open interval sp of task ended at a switch-in the kernel did not
 * report: counted, or lost if when is not known */
static __always_inline void close_unseen(bool btf, struct task_struct *task,
					 struct offcpu_start *sp)
{
	struct offcpu_key key = sp->key;
	__u64 delta = arrivals_known(task) ? unseen_delta(btf, task, sp) : 0;

	if (!delta) {
		loss_inc(LOSS_END_UNSEEN);
		return;
	}
	__sync_fetch_and_add(&switch_ins_unreported, 1);
	close_interval(btf, NULL, &key, sp->seq, delta);
}

static __always_inline void dead_thread(bool btf, struct task_struct *task, __u32 tid)
{
	struct offcpu_start *sp = bpf_map_lookup_elem(&start, &tid);

	if (!sp)
		return;
	if (sp->ts)
		close_unseen(btf, task, sp);
	bpf_map_delete_elem(&start, &tid);
}

static __always_inline void switch_out(void *ctx, bool btf, bool preempt,
				       struct task_struct *prev, __u32 state)
{
	struct offcpu_start s;
	__u32 tid = KREAD(btf, prev, pid);
	__u32 tgid = KREAD(btf, prev, tgid);
	__u32 flags;
	bool kthread;
	long err;

	if (!tid || !target_task(TARGET_ARG(btf), prev, tgid, tid))
		return;
	flags = KREAD(btf, prev, flags);
	kthread = flags & PF_KTHREAD;
	if ((user_threads_only && kthread) || (kernel_threads_only && !kthread))
		return;
	if (state & TASK_DEAD) {
		/* its last switch: an interval still open ended unseen */
		dead_thread(btf, prev, tid);
		return;
	}
	if (!state_match(preempt, state))
		return;
	if (!target_cpu(bpf_get_smp_processor_id()))
		return;

	/* zeroed here, not where declared: untraced tasks never pay for it */
	__builtin_memset(&s, 0, sizeof(s));
	s.ts = bpf_ktime_get_ns();
	if (arrivals_known(prev)) {
		s.rq_ts = rq_clock_now(btf, prev);
		s.arrivals = TASK_ARRIVALS(btf, prev);
	}
	s.key.tgid = tgid;
	s.key.tid = tid;
	bpf_get_current_comm(&s.key.comm, sizeof(s.key.comm));
	if (want_kstack)
		s.key.kstack = btf && kstack_at_switch_in ? STACK_DEFERRED : kstack_id(ctx);
	if (want_ustack && !kthread) {
		s.key.exec_id = task_image(btf, prev);
		s.key.ustack = ustack_id(ctx, tgid, tid, &s.seq);
		announce_tgid(tgid, s.key.exec_id);
	}
	/* the thread's last interval still open: the kernel did not report
	 * its switch-in (see runqueues above) */
	err = bpf_map_update_elem(&start, &tid, &s, BPF_NOEXIST);
	if (err == -17 /* EEXIST */) {
		struct offcpu_start *old = bpf_map_lookup_elem(&start, &tid);

		/* ts 0: closed at its switch-in, the delete only failed */
		if (old && old->ts)
			close_unseen(btf, prev, old);
		err = bpf_map_update_elem(&start, &tid, &s, BPF_ANY);
	}
	/* any other failure loses this interval: counted by its cause */
	update_checked(err, LOSS_START_FULL);
}

/* The entry sp of tid is done with: deleted, or if that fails marked
 * closed (ts 0), which switch_out and the walk at the end respect */
static __always_inline void start_close(__u32 tid, struct offcpu_start *sp)
{
	if (bpf_map_delete_elem(&start, &tid))
		sp->ts = 0;
}

static __always_inline void switch_in(bool btf, struct task_struct *next)
{
	__u32 tid = KREAD(btf, next, pid);
	__u32 tgid = KREAD(btf, next, tgid);
	struct offcpu_start *sp;
	struct offcpu_key key;
	__u64 delta, seq;

	if (!tid || !target_task(TARGET_ARG(btf), next, tgid, tid))
		return;
	sp = bpf_map_lookup_elem(&start, &tid);
	if (!sp || !sp->ts)
		return;
	if (switch_in_hidden())
		return;
	if (arrivals_known(next) &&
	    TASK_ARRIVALS(btf, next) != sp->arrivals) {
		/* it ran since, from a switch-in not reported (then left
		 * the CPU unrecorded: preempted, with --state) */
		close_unseen(btf, next, sp);
		start_close(tid, sp);
		return;
	}
	delta = bpf_ktime_get_ns() - sp->ts;
	key = sp->key;
	seq = sp->seq;
	start_close(tid, sp);
	close_interval(btf, next, &key, seq, delta);
}

/* state: the one __schedule() read as it began (the tracepoint's
 * prev_state), not prev->__state now: a wake-up on another CPU may have
 * made that TASK_WAKING already (it does not wait for prev to be off the
 * CPU to say so), and the interval would not match --state */
static __always_inline int handle_switch(void *ctx, bool btf, bool preempt,
					 struct task_struct *prev,
					 struct task_struct *next, __u32 state)
{
	switch_out(ctx, btf, preempt, prev, state);
	switch_in(btf, next);
	return 0;
}

TP_PROGRAMS(sched_switch, handle_switch(ctx, btf, TP_ARG(0, bool),
					 TP_ARG(1, struct task_struct *),
					 TP_ARG(2, struct task_struct *),
					 SWITCH_PREV_STATE(ctx, btf,
							   TP_ARG(1, struct task_struct *))))

/* At the end, for the threads still off-CPU: their deferred kernel
 * stacks, taken by a walk over every task (user space runs it once,
 * after detaching) */
SEC("iter/task")
int inflight_stacks(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct offcpu_start *sp;
	__u32 tid;

	if (!task)
		return 0;
	tid = task->pid;
	sp = bpf_map_lookup_elem(&start, &tid);
	if (!sp || !sp->ts)
		return 0;
	if (arrivals_known(task) && TASK_ARRIVALS(true, task) != sp->arrivals) {
		/* it came back, unreported (or after the programs were
		 * detached): user space counts it up to when it did, or to
		 * the end of the run if that was later */
		sp->end_delta = unseen_delta(true, task, sp);
		if (!sp->end_delta) {
			loss_inc(LOSS_END_UNSEEN);
			sp->ts = 0;
			return 0;
		}
		__sync_fetch_and_add(&switch_ins_unreported, 1);
		if (sp->key.kstack == STACK_DEFERRED) {
			/* its stack now is not the one it waited in */
			loss_inc(LOSS_KSTACK);
			sp->key.kstack = STACK_LOST;
		}
		return 0;
	}
	if (sp->key.kstack != STACK_DEFERRED)
		return 0;
	if (task->on_cpu) {
		/* it came back after the programs were detached: its stack
		 * now is not the one it waited in */
		loss_inc(LOSS_KSTACK);
		sp->key.kstack = STACK_LOST;
		return 0;
	}
	take_deferred(true, task, &sp->key);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
