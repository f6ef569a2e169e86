// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* hotcheck: every event of the hot threads (-t, -p) and of their CPUs
 * (the target CPU filter, -C or the threads' affinity), one record each
 * on the ring buffer "events" (bpf/hotcheck.h), so that user space counts
 * them exactly and keeps their times; but the hot threads' syscalls of
 * the window, counted here by identity (sys_agg) and sent as records only
 * while the timeline's budget (--max-events) lasts:
 *   raw_syscalls sys_enter/sys_exit   the hot threads' syscalls, with a
 *                                     latency histogram per syscall
 *   perf_event (page faults)          faults after the warm-up
 *   sched_switch                      voluntary blocks (with the waker,
 *                                     from sched_waking), preemptions, and
 *                                     every other task on a hot CPU
 *   sched_migrate_task, signal_generate
 *   irq_handler_*, softirq_*, hrtimer_expire_*, irq_vectors:*   on a hot CPU
 *
 * The ring buffer never wakes the reader (BPF_RB_NO_WAKEUP): a wakeup is
 * an irq_work self-interrupt on the CPU being watched.  User space reads
 * it on a timer from another CPU. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "hotcheck.h"
#include "filter.bpf.h"
#include "losses.bpf.h"
#include "rbguard.bpf.h"
#include "hist.bpf.h"
#define ANNOUNCE_EXEC_PROGRAMS
#include "announce.bpf.h"
#include "stackeng.bpf.h"
#include "tp.bpf.h"
#include "compat.bpf.h"
#include "schedinfo.bpf.h"
#include "irqctx.bpf.h"
#include "sysregs.bpf.h"
#include "steal.bpf.h"
#include "agg.bpf.h"

#define PF_KTHREAD	0x00200000
#define TASK_DEAD	0x00000080

const volatile long nr_exit = -1;
const volatile long nr_exit_group = -1;
/* hotcheck's own process: never an intruder on a hot CPU */
const volatile __u32 self_tgid = 0;

/* Written by user space while running (.bss): faults before it are the
 * warm-up's; 0 once it is over */
__u64 warmup_end_ns;
/* Intervals closed at an arrival the kernel did not report
 * (bpf/schedinfo.bpf.h) */
__u64 switch_ins_unreported;
/* The window, as user space has it (.bss, written by it): syscalls are
 * counted in sys_agg from window_start_ns on (0: not yet; sent as records
 * until then, for user space to judge), and not at all once they begin
 * after window_end_ns (0: open) */
__u64 window_start_ns;
__u64 window_end_ns;
/* Syscall records sent for the timeline so far, and the most that are
 * (--max-events): a plain read and an add whose result is not used (no
 * fetching atomic before 5.12), so two CPUs at the cap may send one more
 * each; user space's cap is exact */
__u64 sys_sent;
const volatile __u64 sys_send_max = 10000;
/* The earliest start of a syscall counted and not sent (0: none) */
__u64 first_unsent_ns;

RINGBUF_MAP(events, 1);		/* --ringbuf-kb */
PERCPU_ARRAY_MAP(sys_hist, struct hist, HC_SYSCALLS);
COUNTER_MAP(stats, HCS_KINDS, stat_inc)
PERCPU_HASH_MAP(sys_agg_a, struct hc_sys_key, struct hc_sys_val, HC_SYS_AGG_ENTRIES);
PERCPU_HASH_MAP(sys_agg_b, struct hc_sys_key, struct hc_sys_val, HC_SYS_AGG_ENTRIES);
static const struct hc_sys_val zero_sys_val;

/* The syscall in progress of a hot thread, and the user stack it was
 * made from once something took it: a syscall's user registers stay as
 * they were at the entry until it returns, so the stack is walked once per
 * call (at a block, a wakeup it makes, or the exit), not at each of them.
 * Taken again if the registers did change (sigreturn, exec). */
struct hc_inflight {
	struct sys_inflight_head h;	/* first (bpf/sysregs.bpf.h) */
	__u64 ustack;		/* STACK_NONE: not taken in this call yet */
	__u64 image;
	__u64 uip, usp;		/* the user registers it was taken at */
};

INFLIGHT_MAP(inflight, struct hc_inflight);
static const struct hc_inflight zero_inflight;

HASH_MAP(tstates, __u32, struct hc_tstate, 16384);
/* a zeroed tstate to create entries from (too big for the stack) */
ARRAY_MAP(zero_tstate, struct hc_tstate, 1);

/* Per CPU: the other task running on a hot CPU, since when */
struct cpu_task {
	__u64 ts;		/* 0: none (idle or a hot thread) */
	__u32 pid;
	__u32 flags;
	char comm[TASK_COMM_LEN];
};

PERCPU_ARRAY_MAP(cpu_tasks, struct cpu_task, 1);

/* Per CPU: interrupt-like spans in flight, by slot */
struct span {
	__u64 ts;
	__u64 addr;
	__s64 id;
	char name[HC_NAME_LEN];
};

PERCPU_ARRAY_MAP(spans, struct span, SPAN_SLOTS(HCV_KINDS));

static __always_inline struct hc_rec *rec_new(__u32 type, __u64 ts)
{
	struct hc_rec *r = rb_reserve(&events, sizeof(*r), LOSS_RINGBUF);

	if (!r)
		return NULL;
	__builtin_memset(r, 0, sizeof(*r));
	r->type = type;
	r->cpu = bpf_get_smp_processor_id();
	r->ts = ts;
	return r;
}

static __always_inline void rec_send(struct hc_rec *r)
{
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
}

/* The current task's user stack, its image announced, if it has one */
static __always_inline __u64 current_ustack(void *ctx, bool btf, __u64 *image)
{
	struct task_struct *cur = CURRENT_TASK(btf);
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if ((KREAD(CUR_BTF(btf), cur, flags) & PF_KTHREAD) || !tgid ||
	    !KREAD(CUR_BTF(btf), cur, mm))
		return STACK_NONE;
	*image = current_image();
	announce_tgid(tgid, *image);
	return stack_user(ctx);
}

/* The current task's user stack, as current_ustack(); s: its syscall in
 * progress (or NULL), where the stack is kept for the rest of the call;
 * regs: its user registers if the caller has them (or NULL) */
static __always_inline __u64 call_ustack(void *ctx, bool btf, struct hc_inflight *s,
					 struct pt_regs *regs, __u64 *image)
{
	__u64 ip, sp, id;

	/* without bpf_task_pt_regs (5.15) nor the caller's registers: no
	 * way to tell the call's stack has not changed, taken each time */
	if (!s || !s->h.ts || (!regs && !kf_task_pt_regs))
		return current_ustack(ctx, btf, image);
	if (!regs)
		regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	/* a BTF pointer: loaded directly where the program is typed */
	ip = btf ? PT_REGS_IP(regs) : PT_REGS_IP_CORE(regs);
	sp = btf ? PT_REGS_SP(regs) : PT_REGS_SP_CORE(regs);
	if (s->ustack >= STACK_ID_MIN && s->uip == ip && s->usp == sp) {
		*image = s->image;
		return s->ustack;
	}
	id = current_ustack(ctx, btf, image);
	s->ustack = id;
	s->image = *image;
	s->uip = ip;
	s->usp = sp;
	return id;
}

/* The current task's syscall in progress, if it is a hot thread's */
static __always_inline struct hc_inflight *current_inflight(void)
{
	return inflight_lookup(&inflight);
}

/* The current hot thread's ids and comm into r */
static __always_inline void rec_current(struct hc_rec *r)
{
	__u64 id = bpf_get_current_pid_tgid();

	r->tid = (__u32)id;
	r->pid = id >> 32;
	bpf_get_current_comm(&r->comm, sizeof(r->comm));
}

/* Who acts now (a waker, a sender): a task, or the interrupt that
 * interrupted it (then the task is not named) */
static __always_inline void actor_current(void *ctx, bool btf, struct hc_rec *r,
					  bool stacks)
{
	__u64 id = bpf_get_current_pid_tgid();
	int pc;

	r->actor_ctx = preempt_count_read(&pc) ? irqctx_of(pc) : IRQCTX_TASK;
	r->wustack = STACK_NONE;
	r->wkstack = STACK_NONE;
	if (r->actor_ctx == IRQCTX_TASK) {
		r->actor_tid = (__u32)id;
		r->actor_pid = id >> 32;
		bpf_get_current_comm(&r->actor, sizeof(r->actor));
		if (stacks)
			r->wustack = call_ustack(ctx, btf, current_inflight(), NULL, &r->wimage);
	}
	if (stacks)
		r->wkstack = stack_kernel(ctx);
}

/* ---- syscalls ---- */

static __always_inline int on_enter(void *ctx, long nr)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct hc_inflight *s;
	struct hc_rec *r;

	if (!(__u32)id || !target_current(id >> 32, (__u32)id))
		return 0;
	if (nr == nr_exit || nr == nr_exit_group) {
		r = rec_new(HCR_SYSCALL, bpf_ktime_get_ns());
		if (!r)
			return 0;
		rec_current(r);
		r->nr = nr;
		r->flags = HCR_F_NORETURN;
		r->ustack = current_ustack(ctx, true, &r->image);
		rec_send(r);
		return 0;
	}
	s = (struct hc_inflight *)inflight_begin(&inflight, &zero_inflight, nr);
	if (s)
		s->ustack = STACK_NONE;
	return 0;
}

/* A syscall that began at start, counted but not on the timeline */
static __always_inline void sys_unsent(__u64 start)
{
	stat_inc(HCS_SYS_UNSENT);
	if (!first_unsent_ns || start < first_unsent_ns)
		first_unsent_ns = start;
}

/* A syscall of the window: counted under its identity in sys_agg, and
 * sent as a record while the timeline's budget lasts */
static __always_inline void sys_count(void *ctx, bool btf, struct hc_inflight *s,
				      struct pt_regs *regs, long nr, __u64 start, __u64 now,
				      long ret, __u32 flags)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct hc_sys_key k;
	struct hc_sys_val *v;
	struct hc_rec *r;

	__builtin_memset(&k, 0, sizeof(k));
	k.pid = id >> 32;
	k.nr = nr;
	bpf_get_current_comm(&k.comm, sizeof(k.comm));
	k.ustack = call_ustack(ctx, btf, s, regs, &k.image);
	v = agg_slot & 1 ? agg_value_in(&sys_agg_b, &k, &zero_sys_val, 1)
			 : agg_value_in(&sys_agg_a, &k, &zero_sys_val, 1);
	if (v) {
		v->count++;
		v->time_ns += now - start;
		if (!v->tid)
			v->tid = (__u32)id;
	}
	if (sys_sent >= sys_send_max) {
		sys_unsent(start);
		return;
	}
	__sync_fetch_and_add(&sys_sent, 1);
	r = rb_try_reserve(&events, sizeof(*r));
	if (!r) {
		/* counted all the same: only the timeline misses it */
		sys_unsent(start);
		return;
	}
	__builtin_memset(r, 0, sizeof(*r));
	r->type = HCR_SYSCALL;
	r->cpu = bpf_get_smp_processor_id();
	r->ts = start;
	r->tid = (__u32)id;
	r->pid = k.pid;
	__builtin_memcpy(r->comm, k.comm, sizeof(r->comm));
	r->dur = now - start;
	r->nr = nr;
	r->aux = ret;
	r->flags = flags | HCR_F_COUNTED;
	r->ustack = k.ustack;
	r->image = k.image;
	rec_send(r);
}

static __always_inline int on_exit(void *ctx, bool btf, struct pt_regs *regs, long ret)
{
	__u64 id = bpf_get_current_pid_tgid(), now, start;
	struct hc_inflight *s;
	struct hist *h;
	struct hc_rec *r;
	__u32 flags = 0;
	long nr;

	if (!(__u32)id || !target_current(id >> 32, (__u32)id))
		return 0;
	now = bpf_ktime_get_ns();
	s = current_inflight();
	if (s && s->h.ts) {
		nr = s->h.nr;
		start = s->h.ts;
	} else {
		/* entered before tracing began: counted, its latency unknown */
		nr = regs_nr(regs);
		start = now;
		flags = HCR_F_EARLY;
	}
	if (nr >= 0 && nr < HC_SYSCALLS) {
		__u32 slot = nr;

		h = bpf_map_lookup_elem(&sys_hist, &slot);
		if (h && !flags)
			hist_add_local(h, now - start);
	} else {
		stat_inc(HCS_SYSCALL_RANGE);
	}
	if (window_end_ns && start > window_end_ns) {
		/* begun after the window: not of it (user space would drop it) */
		stat_inc(HCS_SYS_OUTSIDE);
	} else if (window_start_ns && now >= window_start_ns) {
		sys_count(ctx, btf, s, regs, nr, start, now, ret, flags);
	} else {
		r = rec_new(HCR_SYSCALL, start);
		if (r) {
			rec_current(r);
			r->dur = now - start;
			r->nr = nr;
			r->aux = ret;
			r->flags = flags;
			r->ustack = call_ustack(ctx, btf, s, regs, &r->image);
			rec_send(r);
		}
	}
	if (s)
		s->h.ts = 0;
	return 0;
}

/* sys_enter(regs, id), sys_exit(regs, ret) */
TP_PROGRAMS(sys_enter, on_enter(ctx, TP_ARG(1, long)))
TP_PROGRAMS(sys_exit, on_exit(ctx, btf, TP_ARG(0, struct pt_regs *), TP_ARG(1, long)))

/* ---- page faults (perf events on the hot threads) ---- */

static __always_inline int on_fault(struct bpf_perf_event_data *ctx, bool major)
{
	__u64 id = bpf_get_current_pid_tgid(), now, ip;
	struct hc_rec *r;

	if (!(__u32)id || !target_current(id >> 32, (__u32)id))
		return 0;
	now = bpf_ktime_get_ns();
	if (warmup_end_ns && now < warmup_end_ns) {
		stat_inc(HCS_WARMUP_FAULTS);
		return 0;
	}
	r = rec_new(HCR_FAULT, now);
	if (!r)
		return 0;
	rec_current(r);
	r->nr = major;
	r->aux = ctx->addr;
	r->ustack = current_ustack(ctx, true, &r->image);
	ip = PT_REGS_IP((struct pt_regs *)&ctx->regs);
	/* kernel text lives in the upper half: a fault taken in kernel mode */
	r->kstack = (__s64)ip < 0 ? stack_kernel(ctx) : STACK_NONE;
	rec_send(r);
	return 0;
}

PROG_PAIR("perf_event", hc_fault_major, "perf_event", hc_fault_minor,
	  struct bpf_perf_event_data, on_fault)

/* ---- the scheduler ---- */

/* The interval in ts ended dur ns after it began: sent */
static __always_inline void interval_send(struct hc_tstate *ts, __u64 dur)
{
	struct hc_rec *r = rb_reserve(&events, sizeof(*r), LOSS_RINGBUF);

	if (!r)
		return;
	__builtin_memcpy(r, &ts->rec, sizeof(*r));
	r->dur = dur;
	rec_send(r);
}

/* The open interval of ts ended at a switch-in the kernel did not
 * report: sent if the scheduler's arrival stamp says when, else lost
 * (counted) */
static __always_inline void close_unseen(bool btf, struct task_struct *task,
					 struct hc_tstate *ts)
{
	__u64 n, end;

	if (!arrivals_known(task)) {
		loss_inc(LOSS_END_UNSEEN);
		return;
	}
	n = TASK_ARRIVALS(btf, task) - ts->arrivals;
	end = TASK_LAST_ARRIVAL(btf, task);
	if (n != 1 || end <= ts->rq_ts) {
		loss_inc(LOSS_END_UNSEEN);
		return;
	}
	__sync_fetch_and_add(&switch_ins_unreported, 1);
	if (ts->rec.kstack == STACK_DEFERRED) {
		/* it ran since: its stack now is not the one it waited in */
		loss_inc(LOSS_KSTACK);
		ts->rec.kstack = STACK_LOST;
	}
	interval_send(ts, end - ts->rq_ts);
}

/* A mark of a hot thread's time on its CPU: HCR_ONCPU, HCR_EXIT (at most
 * one each per thread) */
static __always_inline void oncpu_mark(__u32 type, __u32 tid, __u32 tgid, __u64 now)
{
	struct hc_rec *r = rec_new(type, now);

	if (!r)
		return;
	r->tid = tid;
	r->pid = tgid;
	rec_send(r);
}

static __always_inline void hot_out(void *ctx, bool btf, bool preempt,
				    struct task_struct *prev, struct task_struct *next,
				    __u32 tid, __u32 tgid, __u32 state, __u64 now)
{
	struct hc_tstate *ts;
	struct hc_rec *r;
	struct hc_inflight *s;
	__u32 zero = 0;

	ts = bpf_map_lookup_elem(&tstates, &tid);
	if (state & TASK_DEAD) {
		if (ts && ts->rec.ts)
			close_unseen(btf, prev, ts);
		bpf_map_delete_elem(&tstates, &tid);
		oncpu_mark(HCR_EXIT, tid, tgid, now);
		return;
	}
	if (!ts) {
		ts = bpf_map_lookup_elem(&zero_tstate, &zero);
		if (!ts || update_checked(bpf_map_update_elem(&tstates, &tid, ts, BPF_NOEXIST),
					  LOSS_START_FULL))
			return;
		ts = bpf_map_lookup_elem(&tstates, &tid);
		if (!ts)
			return;
	} else if (ts->rec.ts) {
		/* its last interval is still open: its switch-in went unreported */
		close_unseen(btf, prev, ts);
	}
	r = &ts->rec;
	__builtin_memset(r, 0, sizeof(*r));
	r->ts = now;
	r->tid = tid;
	r->pid = tgid;
	r->cpu = bpf_get_smp_processor_id();
	r->nr = -1;
	bpf_get_current_comm(&r->comm, sizeof(r->comm));
	ts->woken = 0;
	if (arrivals_known(prev)) {
		ts->rq_ts = rq_clock_now(btf, prev);
		ts->arrivals = TASK_ARRIVALS(btf, prev);
	}
	if (preempt || !state) {
		/* runnable: the CPU was taken by next */
		r->type = HCR_PREEMPT;
		r->actor_tid = KREAD(btf, next, pid);
		r->actor_pid = KREAD(btf, next, tgid);
		if (KREAD(btf, next, flags) & PF_KTHREAD)
			r->flags = HCR_F_KTHREAD;
		BPF_CORE_READ_STR_INTO(&r->actor, next, comm);
		return;
	}
	r->type = HCR_BLOCK;
	r->aux = state;
	/* prev is current here: its syscall in flight names the wait */
	s = current_inflight();
	if (s && s->h.ts)
		r->nr = s->h.nr;
	r->ustack = call_ustack(ctx, btf, s, NULL, &r->image);
	/* the kernel stack is the same when it comes back, and a walk of a
	 * task off its CPU (hot_in) costs less than one at the switch; the
	 * scheduler's frames, which that walk skips, user space drops from
	 * both.  raw_tp: next is not a trusted pointer there, taken now. */
	r->kstack = btf ? STACK_DEFERRED : stack_kernel(ctx);
}

static __always_inline void hot_in(bool btf, struct task_struct *next, __u32 tid, __u32 tgid,
				   __u64 now)
{
	struct hc_tstate *ts = bpf_map_lookup_elem(&tstates, &tid);
	__u32 zero = 0;

	if (!ts) {
		/* off CPU since before tracing began: marked once, its
		 * entry made now (none made, none marked: counted) */
		ts = bpf_map_lookup_elem(&zero_tstate, &zero);
		if (ts && !update_checked(bpf_map_update_elem(&tstates, &tid, ts, BPF_NOEXIST),
					  LOSS_START_FULL))
			oncpu_mark(HCR_ONCPU, tid, tgid, now);
		return;
	}
	if (!ts->rec.ts)
		return;
	if (switch_in_hidden())
		return;
	if (arrivals_known(next) && TASK_ARRIVALS(btf, next) != ts->arrivals) {
		close_unseen(btf, next, ts);	/* it ran since, unreported */
	} else {
		if (ts->rec.kstack == STACK_DEFERRED)
			ts->rec.kstack = btf ? stack_of_task(next) : STACK_LOST;
		interval_send(ts, now - ts->rec.ts);
	}
	ts->rec.ts = 0;
}

/* ---- stolen time of the hot CPUs ---- */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, HC_STEAL_STEPS);
	__type(key, __u32);
	__type(value, struct hc_steal_step);
} steal_steps SEC(".maps");

__u64 steal_steps_n = 0;	/* steps found, kept or not */

/* An event on a hot CPU: read its stolen time; more than at the last
 * event on it (in the window) is a step */
static __always_inline void hc_steal(__u64 now)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct steal_cpu *c;
	struct hc_steal_step *st;
	__u64 last, last_ts, samples, i;
	__u32 k;

	if (!kf_steal_time)
		return;
	c = bpf_map_lookup_elem(&steal_cpus, &cpu);
	if (!c)
		return;
	last = c->last;
	last_ts = c->last_ts;
	samples = c->samples;
	steal_tick(cpu, now);
	if (!samples || c->samples <= samples || c->last <= last || last_ts < steal_window_start ||
	    !steal_window_start)
		return;
	/* a slot by a plain read and an add whose result is not used: a
	 * fetching atomic is refused before 5.12 ("BPF_STX uses reserved
	 * fields"); two CPUs stepping at once may take one slot (one step
	 * overwritten, the next slot left empty: user space skips it) */
	i = steal_steps_n;
	__sync_fetch_and_add(&steal_steps_n, 1);
	if (i >= HC_STEAL_STEPS)
		return;
	k = (__u32)i;
	st = bpf_map_lookup_elem(&steal_steps, &k);
	if (!st)
		return;
	st->from_ts = last_ts;
	st->to_ts = now;
	st->stolen = c->last - last;
	st->cpu = cpu;
}

STEAL_SNAP_PROGRAM()

/* Another task than the hot threads on a hot CPU: each one's stay is
 * sent when it leaves */
static __always_inline void cpu_switch(bool btf, struct task_struct *next, __u32 next_tid,
				       __u32 next_tgid, bool next_hot, bool prev_runnable,
				       __u64 now)
{
	__u32 zero = 0;
	struct cpu_task *ct = bpf_map_lookup_elem(&cpu_tasks, &zero);
	struct hc_rec *r;

	if (!ct)
		return;
	if (ct->ts) {
		r = rec_new(HCR_TASK, ct->ts);
		if (r) {
			r->dur = now - ct->ts;
			r->actor_tid = ct->pid;
			r->flags = ct->flags | (prev_runnable ? HCR_F_RUNNABLE : 0);
			__builtin_memcpy(r->actor, ct->comm, sizeof(ct->comm));
			rec_send(r);
		}
		ct->ts = 0;
	}
	if (!next_tid || next_hot || (self_tgid && next_tgid == self_tgid))
		return;
	ct->ts = now;
	ct->pid = next_tid;
	ct->flags = KREAD(btf, next, flags) & PF_KTHREAD ? HCR_F_KTHREAD : 0;
	BPF_CORE_READ_STR_INTO(&ct->comm, next, comm);
}

/* state: the one __schedule() read as it began (the tracepoint's
 * prev_state), not prev->__state now */
static __always_inline int handle_switch(void *ctx, bool btf, bool preempt,
					 struct task_struct *prev,
					 struct task_struct *next, __u32 state)
{
	enum target_src src = TARGET_ARG(btf);
	__u32 prev_tid = KREAD(btf, prev, pid), prev_tgid = KREAD(btf, prev, tgid);
	__u32 next_tid = KREAD(btf, next, pid), next_tgid = KREAD(btf, next, tgid);
	bool out = prev_tid && target_task(src, prev, prev_tgid, prev_tid);
	bool in = next_tid && target_task(src, next, next_tgid, next_tid);
	bool hot_cpu = tfilter.by_cpu && target_cpu(bpf_get_smp_processor_id());
	__u64 now;

	if (!out && !in && !hot_cpu)
		return 0;
	now = bpf_ktime_get_ns();
	hc_steal(now);
	if (hot_cpu)
		cpu_switch(btf, next, next_tid, next_tgid, in, preempt || !state, now);
	if (out)
		hot_out(ctx, btf, preempt, prev, next, prev_tid, prev_tgid, state, now);
	if (in)
		hot_in(btf, next, next_tid, next_tgid, now);
	return 0;
}

SWITCH_PROGRAMS(handle_switch)

/* The first wakeup of a blocked hot thread names its waker */
static __always_inline int handle_waking(void *ctx, bool btf, struct task_struct *p)
{
	__u32 tid = KREAD(btf, p, pid), tgid = KREAD(btf, p, tgid);
	struct hc_tstate *ts;

	if (!tid || !target_task(TARGET_ARG(btf), p, tgid, tid))
		return 0;
	ts = bpf_map_lookup_elem(&tstates, &tid);
	if (!ts || !ts->rec.ts || ts->rec.type != HCR_BLOCK || ts->woken)
		return 0;
	ts->woken = 1;
	actor_current(ctx, btf, &ts->rec, true);
	return 0;
}

TP_PROGRAMS(sched_waking, handle_waking(ctx, btf, TP_ARG(0, struct task_struct *)))

/* A record of type about task p (tid of tgid) now, when p is a target */
static __always_inline struct hc_rec *rec_target(__u32 type, bool btf, struct task_struct *p,
						 __u32 tid, __u32 tgid)
{
	struct hc_rec *r;

	if (!tid || !target_task(TARGET_ARG(btf), p, tgid, tid))
		return NULL;
	r = rec_new(type, bpf_ktime_get_ns());
	if (!r)
		return NULL;
	r->tid = tid;
	r->pid = tgid;
	BPF_CORE_READ_STR_INTO(&r->comm, p, comm);
	return r;
}

static __always_inline int handle_migrate(bool btf, struct task_struct *p, int dest)
{
	__u32 tid = KREAD(btf, p, pid), tgid = KREAD(btf, p, tgid);
	struct hc_rec *r;

	r = rec_target(HCR_MIGRATE, btf, p, tid, tgid);
	if (!r)
		return 0;
	r->nr = dest;
	r->aux = task_cpu(p);
	actor_current(NULL, btf, r, false);
	rec_send(r);
	return 0;
}

TP_PROGRAMS(sched_migrate_task, handle_migrate(btf, TP_ARG(0, struct task_struct *),
						   TP_ARG(1, int)))

static __always_inline int handle_signal(void *ctx, bool btf, int sig,
					 struct task_struct *task, int result)
{
	__u32 tid, tgid;
	struct hc_rec *r;

	if (!task)
		return 0;
	tid = KREAD(btf, task, pid);
	tgid = KREAD(btf, task, tgid);
	r = rec_target(HCR_SIGNAL, btf, task, tid, tgid);
	if (!r)
		return 0;
	r->nr = sig;
	r->aux = result;
	actor_current(ctx, btf, r, true);
	rec_send(r);
	return 0;
}

/* signal_generate(sig, info, task, group, result) */
TP_PROGRAMS(signal_generate, handle_signal(ctx, btf, TP_ARG(0, int),
					   TP_ARG(2, struct task_struct *), TP_ARG(4, int)))

/* ---- interrupts on a hot CPU ---- */

static __always_inline struct span *span_begin(__u32 slot, __s64 id)
{
	struct span *s;

	if (!target_cpu(bpf_get_smp_processor_id()))
		return NULL;
	s = bpf_map_lookup_elem(&spans, &slot);
	if (!s)
		return NULL;
	s->ts = bpf_ktime_get_ns();
	hc_steal(s->ts);
	s->id = id;
	s->addr = 0;
	s->name[0] = 0;
	return s;
}

static __always_inline int span_begin_id(__u32 slot, __s64 id)
{
	span_begin(slot, id);
	return 0;
}

/* A span that ends without having begun (running at attach) is not sent:
 * its length is unknown */
static __always_inline int span_end(__u32 slot, __u32 type)
{
	struct span *s;
	struct hc_rec *r;

	if (!target_cpu(bpf_get_smp_processor_id()))
		return 0;
	s = bpf_map_lookup_elem(&spans, &slot);
	if (!s || !s->ts)
		return 0;
	r = rec_new(type, s->ts);
	if (r) {
		r->dur = bpf_ktime_get_ns() - s->ts;
		r->nr = s->id;
		r->aux = s->addr;
		__builtin_memcpy(r->actor, s->name, sizeof(r->actor));
		rec_send(r);
	}
	s->ts = 0;
	return 0;
}

static __always_inline int irq_entry(int irq, struct irqaction *action)
{
	struct span *s = span_begin(SLOT_IRQ, irq);

	if (s)
		bpf_probe_read_kernel_str(s->name, sizeof(s->name), BPF_CORE_READ(action, name));
	return 0;
}

TP_PROGRAMS(irq_handler_entry, irq_entry(TP_ARG(0, int), TP_ARG(1, struct irqaction *)))
TP_PROGRAMS(irq_handler_exit, span_end(SLOT_IRQ, HCR_IRQ))
TP_PROGRAMS(softirq_entry, span_begin_id(SLOT_SOFTIRQ, TP_ARG(0, unsigned int)))
TP_PROGRAMS(softirq_exit, span_end(SLOT_SOFTIRQ, HCR_SOFTIRQ))

/* A soft hrtimer (run from the HRTIMER softirq, as most are on
 * PREEMPT_RT) can be interrupted by a hard one (the tick's): a slot each,
 * so that the one does not end the other's span */
static __always_inline __u32 hrtimer_slot(struct hrtimer *t)
{
	return BPF_CORE_READ(t, is_soft) ? SLOT_HRTIMER_SOFT : SLOT_HRTIMER;
}

static __always_inline int hrtimer_entry(struct hrtimer *t)
{
	struct span *s = span_begin(hrtimer_slot(t), 0);

	if (s)
		s->addr = (__u64)BPF_CORE_READ(t, function);
	return 0;
}

TP_PROGRAMS(hrtimer_expire_entry, hrtimer_entry(TP_ARG(0, struct hrtimer *)))
TP_PROGRAMS(hrtimer_expire_exit, span_end(hrtimer_slot(TP_ARG(0, struct hrtimer *)),
						 HCR_TIMER))

/* irq_vectors:NAME_entry/exit; the ones this kernel lacks are not loaded */
#define VECTOR_TP(tp, vec)						\
	TP_PROGRAMS(tp##_entry, span_begin_id(SLOT_VEC0 + vec, vec))	\
	TP_PROGRAMS(tp##_exit, span_end(SLOT_VEC0 + vec, HCR_VECTOR))

VECTOR_TP(local_timer, HCV_LOCAL_TIMER)
VECTOR_TP(reschedule, HCV_RESCHEDULE)
VECTOR_TP(call_function, HCV_CALL_FUNCTION)
VECTOR_TP(call_function_single, HCV_CALL_FUNCTION_SINGLE)
VECTOR_TP(irq_work, HCV_IRQ_WORK)

char LICENSE[] SEC("license") = "Dual BSD/GPL";
