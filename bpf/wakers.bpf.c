// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* wakers: who wakes the traced threads, from where, and how often.
 *
 * sched_waking runs in the waker's own context (unlike sched_wakeup, which
 * may run on the target's CPU for queued remote wakeups), so the waker is
 * current there -- unless the CPU is in interrupt context, where current
 * was merely interrupted: such wakeups are labelled by context instead.
 * sched_switch gives the target's switch-out time (how long it had been
 * blocked) and its switch-in (wakeup latency).  signal_generate counts the
 * signals sent to the targets. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "wakers.h"
#include "filter.bpf.h"
#include "losses.bpf.h"
#include "hist.bpf.h"
#define ANNOUNCE_EXEC_PROGRAMS
#include "announce.bpf.h"
#include "ustack.bpf.h"
#include "agg.bpf.h"
#include "tp.bpf.h"
#include "compat.bpf.h"
#include "schedinfo.bpf.h"
#include "irqctx.bpf.h"

#define PF_KTHREAD	0x00200000
#define TASK_DEAD	0x00000080

const volatile bool want_signals = true;

/* (waker, stacks, target) -> count and blocked time: preallocated, so
 * that counting never fails for want of memory; drained by user space
 * while tracing (bpf/agg.bpf.h), so --max-entries bounds the keys of one
 * drain interval, not of the run */
AGG_MAP(agg, struct wakers_key, struct wakers_val, 1);	/* --max-entries */

/* the same keys -> wakeup latency histogram, drained with agg.  Values
 * are 4 KiB, so they are allocated only for keys that occur (AGG_MAP's
 * two maps, not preallocated); a histogram that cannot be made (the map
 * is full: LOSS_HIST_FULL; no kernel memory: LOSS_NOMEM) loses one
 * latency sample, never a wakeup. */
HASH_MAP_NO_PREALLOC(latency_a, struct wakers_key, struct hist, 1);	/* --max-entries */
HASH_MAP_NO_PREALLOC(latency_b, struct wakers_key, struct hist, 1);

/* Per traced thread: when it blocked, and its pending wakeup */
struct tstate {
	__u64 off_ts;		/* switched out to sleep; 0: not blocked */
	__u64 wake_ts;		/* woken and not yet run; 0: none */
	__u64 seq;		/* --dwarf: that wakeup's sample, 0 if none */
	__u64 arrivals;		/* the thread's arrivals when it was woken
				 * (bpf/schedinfo.bpf.h) */
	struct wakers_key key;	/* the record of that wakeup */
};

HASH_MAP(tstates, __u32, struct tstate, 1);	/* --max-entries */

/* Per CPU: the hard interrupt and softirq being served, for names */
struct cpu_irq {
	__s32 irq;		/* IRQ number + 1; 0: none */
	__s32 vec;		/* softirq vector + 1; 0: none */
	__u32 irq_tid;		/* the task it came in: the entry's current */
	__u32 vec_tid;
};

PERCPU_ARRAY_MAP(cpu_irqs, struct cpu_irq, 1);

static const struct hist zero_hist;

static __always_inline struct cpu_irq *this_cpu_irq(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&cpu_irqs, &zero);
}

/* The IRQ and softirq this CPU serves in the current task: an entry
 * counts only while the task it came in runs.  On PREEMPT_RT a softirq
 * or a threaded handler runs in a task that can be preempted, and the
 * task preempting it is not in that softirq (seen on 6.12-rt: 32 of 200
 * futex wakeups were put on a [softirq] TIMER whose thread had been
 * preempted); an interrupt handler, which runs in whatever task it
 * interrupted, keeps that task's tid until its exit. */
static __always_inline __s32 ci_irq(const struct cpu_irq *ci, __u32 tid)
{
	return ci && ci->irq && ci->irq_tid == tid ? ci->irq : 0;
}

static __always_inline __s32 ci_vec(const struct cpu_irq *ci, __u32 tid)
{
	return ci && ci->vec && ci->vec_tid == tid ? ci->vec : 0;
}

static __always_inline __u32 cpu_context(const struct cpu_irq *ci, __u32 tid)
{
	int pc;

	/* enum wakers_ctx has the values of enum irqctx */
	if (preempt_count_read(&pc))
		return irqctx_of(pc);
	/* no preempt count: what the irq/softirq tracepoints saw */
	SET_CTX_SOURCE(IRQCTX_SRC_IRQ_EVENTS);
	if (ci_irq(ci, tid))
		return WK_CTX_HARDIRQ;
	if (ci_vec(ci, tid))
		return WK_CTX_SOFTIRQ;
	return WK_CTX_TASK;
}

/* The waker's half of a key: who and where, from the current context;
 * --dwarf: *seq is the user-stack sample taken, 0 if none.  The current
 * task is read directly in tp_btf (a BTF pointer: no helper call per
 * field), through CO-RE probe reads in raw_tp. */
static __always_inline void fill_waker(void *ctx, bool btf, struct wakers_key *k, __u64 *seq)
{
	struct cpu_irq *ci = this_cpu_irq();
	__u32 cur_tid = (__u32)bpf_get_current_pid_tgid();
	__u32 c = cpu_context(ci, cur_tid);

	k->ctx = c;
	k->irq = -1;
	k->ustack = STACK_NONE;
	if (c == WK_CTX_TASK) {
		struct task_struct *cur = CURRENT_TASK(btf);
		__u64 id = bpf_get_current_pid_tgid();
		bool kthread = KREAD(CUR_BTF(btf), cur, flags) & PF_KTHREAD;

		k->waker_pid = id >> 32;
		k->waker_tid = (__u32)id;
		bpf_get_current_comm(&k->waker_comm, sizeof(k->waker_comm));
		/* an exiting process has no user memory left: nothing to take */
		if (!kthread && k->waker_pid && KREAD(CUR_BTF(btf), cur, mm)) {
			k->ustack = ustack_id(ctx, k->waker_pid, k->waker_tid, seq);
			k->waker_exec_id = current_image();
			announce_tgid(k->waker_pid, k->waker_exec_id);
		}
	} else if (ci) {
		/* the user stack would be the interrupted task's: not taken */
		if (c == WK_CTX_HARDIRQ && ci_irq(ci, cur_tid))
			k->irq = ci->irq - 1;
		else if (c == WK_CTX_SOFTIRQ && ci_vec(ci, cur_tid))
			k->irq = ci->vec - 1;
	}
	k->kstack = kstack_id(ctx);
}

/* --dwarf: the record of key k goes to user space after its sample;
 * false if it could not (the caller counts it in the maps instead) */
static __always_inline bool record_send(struct wakers_key *k, __u64 seq,
					__u64 blocked, bool known)
{
	struct wakers_record *r = ustack_record_reserve(seq, sizeof(*r), &k->ustack);

	if (!r)
		return false;
	r->type = WK_EV_RECORD;
	r->blocked_known = known;
	r->seq = seq;
	r->blocked_ns = blocked;
	r->key = *k;
	bpf_ringbuf_submit(r, 0);
	return true;
}

/* The record of key k in the slot being written (maps agg and lat),
 * created if new, and then for a wakeup its latency histogram too: a
 * failed allocation (uncounted here) gets a second chance when the
 * target runs */
static __always_inline struct wakers_val *agg_get_in(void *agg, void *lat,
						     const struct wakers_key *k)
{
	struct wakers_val *v = bpf_map_lookup_elem(agg, k), zero = {};

	if (v)
		return v;
	v = agg_value_in(agg, k, &zero, 1);
	if (v && k->type == WK_WAKEUP && !bpf_map_update_elem(lat, k, &zero_hist, BPF_NOEXIST))
		agg_new_inc(0);
	return v;
}

static __always_inline struct wakers_val *agg_get(const struct wakers_key *k)
{
	return agg_slot & 1 ? agg_get_in(&agg_b, &latency_b, k)
			    : agg_get_in(&agg_a, &latency_a, k);
}

/* The latency histogram of key k in the slot being written, created if
 * new (agg_value_in()'s way, its losses counted as histogram losses) */
static __always_inline struct hist *latency_in(void *map, const struct wakers_key *k)
{
	struct hist *h = bpf_map_lookup_elem(map, k);
	long err;

	if (h)
		return h;
	err = bpf_map_update_elem(map, k, &zero_hist, BPF_NOEXIST);
	if (err && err != -17 /* EEXIST */) {
		update_checked(err, LOSS_HIST_FULL);
		return NULL;
	}
	if (!err)
		agg_new_inc(0);
	return bpf_map_lookup_elem(map, k);
}

static __always_inline struct hist *latency_get(const struct wakers_key *k)
{
	return agg_slot & 1 ? latency_in(&latency_b, k) : latency_in(&latency_a, k);
}

static __always_inline void target_fill(struct wakers_key *k,
					struct task_struct *p, __u32 tgid,
					__u32 tid)
{
	k->target_pid = tgid;
	k->target_tid = tid;
	BPF_CORE_READ_STR_INTO(&k->target_comm, p, comm);
}

/* The wakeup recorded in ts took lat ns to get the target (tid) running */
static __always_inline void latency_done(struct tstate *ts, __u32 tid, __u64 lat)
{
	struct hist *h;

	if (ts->seq) {
		/* its record is in user space: so is its histogram */
		struct wakers_latency *l = bpf_ringbuf_reserve(&ustack_rb, sizeof(*l), 0);

		if (l) {
			l->type = WK_EV_LATENCY;
			l->tid = tid;
			l->seq = ts->seq;
			l->latency_ns = lat;
			bpf_ringbuf_submit(l, 0);
		} else {
			loss_inc(LOSS_RINGBUF);
		}
		ts->seq = 0;
		ts->wake_ts = 0;
		return;
	}
	/* keys hold the target tid: only this thread's own switches, one
	 * CPU at a time, update this histogram (user space reads a slot's
	 * only once no program writes it) */
	h = latency_get(&ts->key);
	if (h)
		hist_add_local(h, lat);
	ts->wake_ts = 0;
}

/* A wakeup of task still waiting for its switch-in when the thread is
 * seen again (leaving the CPU, or woken anew): if it was switched in
 * since, the kernel did not say when, and the latency is not known
 * (counted); if not, it was woken while still on its CPU and never
 * waited */
static __always_inline void latency_settle(bool btf, struct task_struct *task,
					   struct tstate *ts, __u32 tid)
{
	if (arrivals_known(task) && TASK_ARRIVALS(btf, task) != ts->arrivals) {
		loss_inc(LOSS_END_UNSEEN);
		ts->seq = 0;
		ts->wake_ts = 0;
	} else {
		latency_done(ts, tid, 0);
	}
}

/* The handlers read the ids of the tasks in their arguments with KREAD():
 * tp_btf programs directly, raw_tp ones through bpf_probe_read_kernel
 * (several times slower), so that untraced tasks cost little either way. */
static __always_inline int handle_waking(void *ctx, bool btf, struct task_struct *p)
{
	__u32 tid = KREAD(btf, p, pid), tgid = KREAD(btf, p, tgid);
	struct wakers_key key;
	struct wakers_val *val;
	struct tstate *ts;
	__u64 now, blocked = 0, seq = 0;

	if (!tid || !target_task(TARGET_ARG(btf), p, tgid, tid))
		return 0;
	if (!target_cpu(bpf_get_smp_processor_id()))
		return 0;
	now = bpf_ktime_get_ns();
	__builtin_memset(&key, 0, sizeof(key));
	key.type = WK_WAKEUP;
	target_fill(&key, p, tgid, tid);
	fill_waker(ctx, btf, &key, &seq);

	ts = bpf_map_lookup_elem(&tstates, &tid);
	/* the wakeup before this one, if its wait was never seen to end */
	if (ts && ts->wake_ts)
		latency_settle(btf, p, ts, tid);
	if (ts && ts->off_ts && now > ts->off_ts)
		blocked = now - ts->off_ts;
	if (record_send(&key, seq, blocked, ts)) {
		val = NULL;	/* user space counts it */
	} else {
		val = agg_get(&key);
		seq = 0;
	}
	if (val) {
		__sync_fetch_and_add(&val->count, 1);
		/* no state yet: its sleep began before tracing did */
		if (ts) {
			__sync_fetch_and_add(&val->blocked_ns, blocked);
			__sync_fetch_and_add(&val->blocked_known, 1);
		}
	}
	if (ts) {
		ts->off_ts = 0;
		ts->key = key;
		ts->seq = seq;
		ts->wake_ts = now;
		if (arrivals_known(p))
			ts->arrivals = TASK_ARRIVALS(btf, p);
	} else {
		struct tstate n = { .wake_ts = now, .seq = seq, .key = key };

		if (arrivals_known(p))
			n.arrivals = TASK_ARRIVALS(btf, p);

		update_checked(bpf_map_update_elem(&tstates, &tid, &n, BPF_ANY),
			       LOSS_START_FULL);
	}
	return 0;
}

TP_PROGRAMS(sched_waking, handle_waking(ctx, btf, TP_ARG(0, struct task_struct *)))

static __always_inline void switch_out(bool btf, bool preempt, struct task_struct *prev,
				       __u32 tid, __u64 now)
{
	__u32 state = task_state(btf, prev);
	struct tstate *ts;

	ts = bpf_map_lookup_elem(&tstates, &tid);
	if (state & TASK_DEAD) {
		/* its last switch: a wakeup whose switch-in went unseen
		 * is settled first */
		if (ts && ts->wake_ts)
			latency_settle(btf, prev, ts, tid);
		bpf_map_delete_elem(&tstates, &tid);
		return;
	}
	if (ts && ts->wake_ts)
		latency_settle(btf, prev, ts, tid);
	if (preempt || !state) {
		if (ts)
			ts->off_ts = 0;	/* runnable: not blocked */
		return;
	}
	if (ts) {
		ts->off_ts = now;
	} else {
		struct tstate n = { .off_ts = now };

		update_checked(bpf_map_update_elem(&tstates, &tid, &n, BPF_ANY),
			       LOSS_START_FULL);
	}
}

static __always_inline void switch_in(__u32 tid, __u64 now)
{
	struct tstate *ts = bpf_map_lookup_elem(&tstates, &tid);

	if (!ts || !ts->wake_ts)
		return;
	if (switch_in_hidden())
		return;
	latency_done(ts, tid, now > ts->wake_ts ? now - ts->wake_ts : 0);
}

static __always_inline int handle_switch(bool btf, bool preempt,
					 struct task_struct *prev, struct task_struct *next)
{
	enum target_src src = TARGET_ARG(btf);
	__u32 prev_tid = KREAD(btf, prev, pid), prev_tgid = KREAD(btf, prev, tgid);
	__u32 next_tid = KREAD(btf, next, pid), next_tgid = KREAD(btf, next, tgid);
	bool out = prev_tid && target_task(src, prev, prev_tgid, prev_tid);
	bool in = next_tid && target_task(src, next, next_tgid, next_tid);
	__u64 now;

	if (!out && !in)
		return 0;
	now = bpf_ktime_get_ns();
	if (out)
		switch_out(btf, preempt, prev, prev_tid, now);
	if (in)
		switch_in(next_tid, now);
	return 0;
}

TP_PROGRAMS(sched_switch, handle_switch(btf, TP_ARG(0, bool),
					 TP_ARG(1, struct task_struct *),
					 TP_ARG(2, struct task_struct *)))

static __always_inline int handle_signal(void *ctx, bool btf, int sig,
					 struct task_struct *task, int group, int result)
{
	struct wakers_key key;
	struct wakers_val *val;
	__u32 tid, tgid;
	__u64 seq = 0;

	if (!want_signals || !task)
		return 0;
	tid = KREAD(btf, task, pid);
	tgid = KREAD(btf, task, tgid);
	if (!tid || !target_task(TARGET_ARG(btf), task, tgid, tid))
		return 0;
	if (!target_cpu(bpf_get_smp_processor_id()))
		return 0;
	__builtin_memset(&key, 0, sizeof(key));
	key.type = WK_SIGNAL;
	key.sig = sig;
	key.sig_result = result;
	key.sig_group = !!group;
	target_fill(&key, task, tgid, tid);
	fill_waker(ctx, btf, &key, &seq);
	if (record_send(&key, seq, 0, false))
		return 0;
	val = agg_get(&key);
	if (val)
		__sync_fetch_and_add(&val->count, 1);
	return 0;
}

/* signal_generate(sig, info, task, group, result) */
TP_PROGRAMS(signal_generate, handle_signal(ctx, btf, TP_ARG(0, int),
					   TP_ARG(2, struct task_struct *),
					   TP_ARG(3, int), TP_ARG(4, int)))

/* Interrupt bookkeeping, per CPU, for the IRQ and softirq names */
static __always_inline int irq_mark(__s32 irq_plus_one)
{
	struct cpu_irq *ci = this_cpu_irq();

	if (ci) {
		ci->irq = irq_plus_one;
		ci->irq_tid = (__u32)bpf_get_current_pid_tgid();
	}
	return 0;
}

static __always_inline int softirq_mark(__s32 vec_plus_one)
{
	struct cpu_irq *ci = this_cpu_irq();

	if (ci) {
		ci->vec = vec_plus_one;
		ci->vec_tid = (__u32)bpf_get_current_pid_tgid();
	}
	return 0;
}

TP_PROGRAMS(irq_handler_entry, irq_mark(TP_ARG(0, int) + 1))
TP_PROGRAMS(irq_handler_exit, irq_mark(0))
TP_PROGRAMS(softirq_entry, softirq_mark((__s32)TP_ARG(0, unsigned int) + 1))
TP_PROGRAMS(softirq_exit, softirq_mark(0))

char LICENSE[] SEC("license") = "Dual BSD/GPL";
