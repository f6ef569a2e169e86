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
	__u64 delta;

	/* opened by the walk at the start just after the thread came back
	 * (it read the arrival): it was never off-CPU since, nothing ended */
	if (sp->seeded && arrivals_known(task) && TASK_ARRIVALS(btf, task) == sp->arrivals)
		return;
	delta = arrivals_known(task) ? unseen_delta(btf, task, sp) : 0;

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

/* The entry sp of tid is done with: deleted, or if that fails marked
 * closed (ts 0), which switch_out and the walk at the end respect */
static __always_inline void start_close(__u32 tid, struct offcpu_start *sp)
{
	if (bpf_map_delete_elem(&start, &tid))
		sp->ts = 0;
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
	if (!state_match(preempt, state)) {
		/* not counted (--state: a preemption); but an interval still
		 * open ended at a switch-in the kernel did not report: closed
		 * now, while one arrival since tells its end (at the next
		 * switch-out that counts, a second would have made it lost) */
		struct offcpu_start *old = bpf_map_lookup_elem(&start, &tid);

		if (old && old->ts) {
			close_unseen(btf, prev, old);
			start_close(tid, old);
		}
		return;
	}
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
	/* a thread on its way out (exit_mm() done) has no user memory, so
	 * no user stack: none taken, rather than one counted unreadable */
	if (want_ustack && !kthread && KREAD(btf, prev, mm)) {
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

SWITCH_PROGRAMS(handle_switch)

/* ---- threads off-CPU since before the window ----
 *
 * A walk over every task as tracing begins (user space runs it once,
 * after attaching).  With -p/-t (seed_targets), each target thread off
 * the CPU then gets an open interval from then, with its stacks, as if
 * it had left the CPU at the start: it ends at its switch-in like any
 * other, or, still open at the end, counts the whole window.  Without
 * (every thread: too many to list), each thread's switch count is kept
 * (asleep), and the walk at the end counts those that never ran
 * (whole_window_sleepers). */
const volatile bool seed_targets = false;
__u64 sleepers_seeded;		/* intervals opened by the walk */
__u64 sleepers_no_ustack;	/* of them, user stack not walkable */
__u64 sleepers_unchecked;	/* system-wide: asleep map full */
__u64 whole_window_sleepers;	/* system-wide: never ran in the window */
HASH_MAP(asleep, __u32, __u64, 1);	/* sized by user space */
/* the user stack walked by the sleepable walk (one task at a time) */
ARRAY_MAP(seed_scratch, struct stack_event, 1);

static __always_inline __u64 task_switches(struct task_struct *task)
{
	return task->nvcsw + task->nivcsw;
}

/* Is task, off the CPU, one the tool would count if it left it now? */
static __always_inline bool sleeper_counts(struct task_struct *task, __u32 *statep)
{
	__u32 state = task_state(true, task);

	if (task->on_cpu || task->exit_state || (state & TASK_DEAD))
		return false;
	if ((user_threads_only && (task->flags & PF_KTHREAD)) ||
	    (kernel_threads_only && !(task->flags & PF_KTHREAD)))
		return false;
	*statep = state;
	return state_match(false, state);
}

/* The user stack of task, off the CPU, from the registers it saved as it
 * entered the kernel: the frame-pointer walk of a switch-out's user stack
 * (bpf/uwalk.bpf.h: the same frames, so the same id), through
 * bpf_copy_from_user_task() */
static __always_inline __u64 seed_ustack(struct task_struct *task)
{
	struct stack_event *ev;
	struct pt_regs *regs;
	struct stack_cpu none = {};	/* no ids cached: a sleepable program */
	__u32 zero = 0, n = 1;
	__u64 bp;

	ev = bpf_map_lookup_elem(&seed_scratch, &zero);
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	if (!ev || !regs)
		return STACK_LOST;
#if defined(__TARGET_ARCH_x86)
	ev->ips[0] = BPF_CORE_READ(regs, ip);
	bp = BPF_CORE_READ(regs, bp);
#elif defined(__TARGET_ARCH_arm64)
	ev->ips[0] = BPF_CORE_READ(regs, pc);
	bp = BPF_CORE_READ(regs, regs[29]);
#else
	return STACK_LOST;
#endif
	if (!ev->ips[0])
		return STACK_LOST;
#define SEED_READ(f, fp) bpf_copy_from_user_task((f), sizeof(*(f)), (void *)(fp), task, 0)
	USTACK_FOLLOW(ev->ips, n, bp, SEED_READ);
#undef SEED_READ
	return stack_commit(ev, n * sizeof(__u64), true, &none);
}

static __always_inline int seed_one(struct bpf_iter__task *ctx, bool walk_user)
{
	struct task_struct *task = ctx->task;
	struct offcpu_start s;
	__u32 tid, tgid, state;
	bool kthread;

	if (!task)
		return 0;
	tid = task->pid;
	tgid = task->tgid;
	if (!tid || !target_task(TARGET_BTF, task, tgid, tid) || !sleeper_counts(task, &state))
		return 0;
	if (!seed_targets) {
		__u64 sw = task_switches(task);

		if (bpf_map_update_elem(&asleep, &tid, &sw, BPF_NOEXIST))
			__sync_fetch_and_add(&sleepers_unchecked, 1);
		return 0;
	}
	kthread = task->flags & PF_KTHREAD;
	__builtin_memset(&s, 0, sizeof(s));
	s.ts = bpf_ktime_get_ns();
	s.seeded = 1;
	if (arrivals_known(task)) {
		s.rq_ts = rq_clock_now(true, task);
		s.arrivals = TASK_ARRIVALS(true, task);
	}
	s.key.tgid = tgid;
	s.key.tid = tid;
	bpf_probe_read_kernel_str(s.key.comm, sizeof(s.key.comm), task->comm);
	/* taken now, in either mode (with raw_tp nothing takes a deferred
	 * one): the stack it waits in, whenever it comes back */
	if (want_kstack)
		s.key.kstack = stack_of_task(task);
	if (want_ustack && !kthread) {
		s.key.exec_id = task_image(true, task);
		if (walk_user) {
			s.key.ustack = seed_ustack(task);
			if (s.key.ustack == STACK_LOST)
				__sync_fetch_and_add(&sleepers_no_ustack, 1);
		} else {
			/* not on this kernel: said by user space */
			s.key.ustack = STACK_LOST;
		}
		announce_tgid(tgid, s.key.exec_id);
	}
	/* NOEXIST: a switch-out since the programs were attached has
	 * opened its interval already */
	if (bpf_map_update_elem(&start, &tid, &s, BPF_NOEXIST))
		return 0;
	if (task->on_cpu) {
		/* it came back meanwhile: its switch-in may have found no
		 * interval to end; the next switch-out opens its own */
		struct offcpu_start *sp = bpf_map_lookup_elem(&start, &tid);

		if (sp && sp->seeded)
			bpf_map_delete_elem(&start, &tid);
		return 0;
	}
	__sync_fetch_and_add(&sleepers_seeded, 1);
	return 0;
}

/* both made, one loaded: sleepable where bpf_copy_from_user_task() is */
PROG_PAIR("iter.s/task", seed_sleepers_user, "iter/task", seed_sleepers,
	  struct bpf_iter__task, seed_one)

/* system-wide, at the end: the threads asleep at the start that never
 * ran since */
static __always_inline void count_whole_window(struct task_struct *task, __u32 tid)
{
	__u64 *sw;
	__u32 state;

	if (seed_targets)
		return;
	sw = bpf_map_lookup_elem(&asleep, &tid);
	if (sw && *sw == task_switches(task) && sleeper_counts(task, &state))
		__sync_fetch_and_add(&whole_window_sleepers, 1);
}

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
	count_whole_window(task, tid);
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
