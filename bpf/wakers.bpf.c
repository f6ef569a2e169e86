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
#include "tp.bpf.h"
#include "irqctx.bpf.h"

#define PF_KTHREAD	0x00200000
#define TASK_DEAD	0x00000080

const volatile bool want_signals = true;
const volatile bool dwarf_mode = false;

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, MAX_STACK_DEPTH * sizeof(__u64));
	__uint(max_entries, 1);		/* --stack-storage-size */
} stacks SEC(".maps");

/* (waker, stacks, target) -> count and blocked time: preallocated, so
 * that counting never fails for want of memory */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);		/* --max-entries */
	__type(key, struct wakers_key);
	__type(value, struct wakers_val);
} agg SEC(".maps");

/* the same keys -> wakeup latency histogram.  Values are 4 KiB, so they
 * are allocated only for keys that occur; a histogram that cannot be made
 * (the map is full: LOSS_HIST_FULL; no kernel memory: LOSS_NOMEM) loses
 * one latency sample, never a wakeup. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);		/* --max-entries */
	__type(key, struct wakers_key);
	__type(value, struct hist);
} latency SEC(".maps");

/* Per traced thread: when it blocked, and its pending wakeup */
struct tstate {
	__u64 off_ts;		/* switched out to sleep; 0: not blocked */
	__u64 wake_ts;		/* woken and not yet run; 0: none */
	__u64 seq;		/* --dwarf: that wakeup's sample, 0 if none */
	struct wakers_key key;	/* the record of that wakeup */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);		/* --max-entries */
	__type(key, __u32);
	__type(value, struct tstate);
} tstates SEC(".maps");

/* Per CPU: the hard interrupt and softirq being served, for names */
struct cpu_irq {
	__s32 irq;		/* IRQ number + 1; 0: none */
	__s32 vec;		/* softirq vector + 1; 0: none */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cpu_irq);
} cpu_irqs SEC(".maps");

static const struct hist zero_hist;

static __always_inline struct cpu_irq *this_cpu_irq(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&cpu_irqs, &zero);
}

static __always_inline __u32 cpu_context(const struct cpu_irq *ci)
{
	int pc;

	/* enum wakers_ctx has the values of enum irqctx */
	if (preempt_count_read(&pc))
		return irqctx_of(pc);
	/* no preempt count: what the irq/softirq tracepoints saw */
	SET_CTX_SOURCE(IRQCTX_SRC_IRQ_EVENTS);
	if (ci && ci->irq)
		return WK_CTX_HARDIRQ;
	if (ci && ci->vec)
		return WK_CTX_SOFTIRQ;
	return WK_CTX_TASK;
}

/* The waker's half of a key: who and where, from the current context;
 * --dwarf: *seq is the user-stack sample taken, 0 if none */
static __always_inline void fill_waker(void *ctx, struct wakers_key *k, __u64 *seq)
{
	struct cpu_irq *ci = this_cpu_irq();
	__u32 c = cpu_context(ci);

	k->ctx = c;
	k->irq = -1;
	k->ustack = -1;
	k->kstack = -1;
	if (c == WK_CTX_TASK) {
		struct task_struct *cur = (void *)bpf_get_current_task();
		__u64 id = bpf_get_current_pid_tgid();
		bool kthread = BPF_CORE_READ(cur, flags) & PF_KTHREAD;

		k->waker_pid = id >> 32;
		k->waker_tid = (__u32)id;
		bpf_get_current_comm(&k->waker_comm, sizeof(k->waker_comm));
		/* an exiting process has no user memory left: nothing to take */
		if (!kthread && k->waker_pid && BPF_CORE_READ(cur, mm)) {
			if (dwarf_mode) {
				*seq = ustack_take(k->waker_pid, k->waker_tid);
				k->ustack = *seq ? WK_USTACK_DWARF : WK_USTACK_LOST;
			} else {
				k->ustack = stackid_checked(bpf_get_stackid(ctx, &stacks,
								BPF_F_USER_STACK), true);
			}
			k->waker_exec_id = BPF_CORE_READ(cur, self_exec_id);
			announce_tgid(k->waker_pid, k->waker_exec_id);
		}
	} else if (ci) {
		/* the user stack would be the interrupted task's: not taken */
		if (c == WK_CTX_HARDIRQ && ci->irq)
			k->irq = ci->irq - 1;
		else if (c == WK_CTX_SOFTIRQ && ci->vec)
			k->irq = ci->vec - 1;
	}
	k->kstack = stackid_checked(bpf_get_stackid(ctx, &stacks, 0), false);
}

/* --dwarf: the record of key k goes to user space after its sample;
 * false if it could not (the caller counts it in the maps instead) */
static __always_inline bool record_send(struct wakers_key *k, __u64 seq,
					__u64 blocked, bool known)
{
	struct wakers_record *r;

	if (!seq)
		return false;
	r = bpf_ringbuf_reserve(&ustack_rb, sizeof(*r), 0);
	if (!r) {
		loss_inc(LOSS_RINGBUF);
		k->ustack = WK_USTACK_LOST;	/* keep the count, not the stack */
		return false;
	}
	r->type = WK_EV_RECORD;
	r->blocked_known = known;
	r->seq = seq;
	r->blocked_ns = blocked;
	r->key = *k;
	bpf_ringbuf_submit(r, 0);
	return true;
}

/* The record of key k, created if new (with, for a wakeup, its latency
 * histogram: made here too, so that a failed allocation gets a second
 * chance when the target runs) */
static __always_inline struct wakers_val *agg_get(const struct wakers_key *k)
{
	struct wakers_val *v = bpf_map_lookup_elem(&agg, k), zero = {};
	long err;

	if (v)
		return v;
	err = bpf_map_update_elem(&agg, k, &zero, BPF_NOEXIST);
	v = bpf_map_lookup_elem(&agg, k);
	if (!v)
		update_checked(err ? err : -2 /* ENOENT: gone again */, LOSS_AGG_FULL);
	else if (k->type == WK_WAKEUP)
		bpf_map_update_elem(&latency, k, &zero_hist, BPF_NOEXIST);
	return v;
}

static __always_inline void target_fill(struct wakers_key *k,
					struct task_struct *p, __u32 tgid,
					__u32 tid)
{
	k->target_pid = tgid;
	k->target_tid = tid;
	BPF_CORE_READ_STR_INTO(&k->target_comm, p, comm);
}

/* The handlers take the ids of the tasks in their arguments: tp_btf
 * programs read them directly, raw_tp ones through bpf_probe_read_kernel
 * (several times slower), so that untraced tasks cost little either way. */
static __always_inline int handle_waking(void *ctx, enum target_src src,
					 struct task_struct *p, __u32 tid, __u32 tgid)
{
	struct wakers_key key;
	struct wakers_val *val;
	struct tstate *ts;
	__u64 now, blocked = 0, seq = 0;

	if (!tid || !target_task(src, p, tgid, tid))
		return 0;
	if (!target_cpu(bpf_get_smp_processor_id()))
		return 0;
	now = bpf_ktime_get_ns();
	__builtin_memset(&key, 0, sizeof(key));
	key.type = WK_WAKEUP;
	target_fill(&key, p, tgid, tid);
	fill_waker(ctx, &key, &seq);

	ts = bpf_map_lookup_elem(&tstates, &tid);
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
	} else {
		struct tstate n = { .wake_ts = now, .seq = seq, .key = key };

		update_checked(bpf_map_update_elem(&tstates, &tid, &n, BPF_ANY),
			       LOSS_START_FULL);
	}
	return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(sched_waking_btf, struct task_struct *p)
{
	return handle_waking(ctx, TARGET_BTF, p, p->pid, p->tgid);
}

SEC("raw_tp/sched_waking")
int sched_waking_raw(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *p = (struct task_struct *)ctx->args[0];

	return handle_waking(ctx, TARGET_RAW, p, BPF_CORE_READ(p, pid),
			     BPF_CORE_READ(p, tgid));
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
	h = bpf_map_lookup_elem(&latency, &ts->key);
	if (!h) {
		long err = bpf_map_update_elem(&latency, &ts->key, &zero_hist, BPF_NOEXIST);

		h = bpf_map_lookup_elem(&latency, &ts->key);
		if (!h)
			update_checked(err ? err : -2, LOSS_HIST_FULL);
	}
	/* keys hold the target tid: only this thread's own switches, one
	 * CPU at a time, update this histogram */
	if (h)
		hist_add_local(h, lat);
	ts->wake_ts = 0;
}

static __always_inline void switch_out(bool preempt, struct task_struct *prev,
				       __u32 tid, __u64 now)
{
	__u32 state = BPF_CORE_READ(prev, __state);
	struct tstate *ts;

	if (state & TASK_DEAD) {
		bpf_map_delete_elem(&tstates, &tid);
		return;
	}
	ts = bpf_map_lookup_elem(&tstates, &tid);
	/* woken while still on its CPU: it never waited to run */
	if (ts && ts->wake_ts)
		latency_done(ts, tid, 0);
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

	if (ts && ts->wake_ts)
		latency_done(ts, tid, now > ts->wake_ts ? now - ts->wake_ts : 0);
}

static __always_inline int handle_switch(enum target_src src, bool preempt,
					 struct task_struct *prev, struct task_struct *next,
					 __u32 prev_tid, __u32 prev_tgid,
					 __u32 next_tid, __u32 next_tgid)
{
	bool out = prev_tid && target_task(src, prev, prev_tgid, prev_tid);
	bool in = next_tid && target_task(src, next, next_tgid, next_tid);
	__u64 now;

	if (!out && !in)
		return 0;
	now = bpf_ktime_get_ns();
	if (out)
		switch_out(preempt, prev, prev_tid, now);
	if (in)
		switch_in(next_tid, now);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(sched_switch_btf, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	return handle_switch(TARGET_BTF, preempt, prev, next, prev->pid, prev->tgid,
			     next->pid, next->tgid);
}

SEC("raw_tp/sched_switch")
int sched_switch_raw(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *prev = (struct task_struct *)ctx->args[1];
	struct task_struct *next = (struct task_struct *)ctx->args[2];

	return handle_switch(TARGET_RAW, (bool)ctx->args[0], prev, next,
			     BPF_CORE_READ(prev, pid),
			     BPF_CORE_READ(prev, tgid), BPF_CORE_READ(next, pid),
			     BPF_CORE_READ(next, tgid));
}

static __always_inline int handle_signal(void *ctx, enum target_src src, int sig,
					 struct task_struct *task, __u32 tid,
					 __u32 tgid, int group, int result)
{
	struct wakers_key key;
	struct wakers_val *val;
	__u64 seq = 0;

	if (!want_signals || !tid || !target_task(src, task, tgid, tid))
		return 0;
	if (!target_cpu(bpf_get_smp_processor_id()))
		return 0;
	__builtin_memset(&key, 0, sizeof(key));
	key.type = WK_SIGNAL;
	key.sig = sig;
	key.sig_result = result;
	key.sig_group = !!group;
	target_fill(&key, task, tgid, tid);
	fill_waker(ctx, &key, &seq);
	if (record_send(&key, seq, 0, false))
		return 0;
	val = agg_get(&key);
	if (val)
		__sync_fetch_and_add(&val->count, 1);
	return 0;
}

SEC("tp_btf/signal_generate")
int BPF_PROG(signal_generate_btf, int sig, struct kernel_siginfo *info,
	     struct task_struct *task, int group, int result)
{
	if (!task)
		return 0;
	return handle_signal(ctx, TARGET_BTF, sig, task, task->pid, task->tgid, group,
			     result);
}

SEC("raw_tp/signal_generate")
int signal_generate_raw(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *task = (struct task_struct *)ctx->args[2];

	return handle_signal(ctx, TARGET_RAW, (int)ctx->args[0], task,
			     BPF_CORE_READ(task, pid),
			     BPF_CORE_READ(task, tgid), (int)ctx->args[3],
			     (int)ctx->args[4]);
}

/* Interrupt bookkeeping, per CPU, for the IRQ and softirq names */
static __always_inline int irq_mark(__s32 irq_plus_one)
{
	struct cpu_irq *ci = this_cpu_irq();

	if (ci)
		ci->irq = irq_plus_one;
	return 0;
}

static __always_inline int softirq_mark(__s32 vec_plus_one)
{
	struct cpu_irq *ci = this_cpu_irq();

	if (ci)
		ci->vec = vec_plus_one;
	return 0;
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(irq_handler_entry_btf, int irq)
{
	return irq_mark(irq + 1);
}

SEC("raw_tp/irq_handler_entry")
int irq_handler_entry_raw(struct bpf_raw_tracepoint_args *ctx)
{
	return irq_mark((int)ctx->args[0] + 1);
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(irq_handler_exit_btf)
{
	return irq_mark(0);
}

SEC("raw_tp/irq_handler_exit")
int irq_handler_exit_raw(struct bpf_raw_tracepoint_args *ctx)
{
	return irq_mark(0);
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(softirq_entry_btf, unsigned int vec)
{
	return softirq_mark((__s32)vec + 1);
}

SEC("raw_tp/softirq_entry")
int softirq_entry_raw(struct bpf_raw_tracepoint_args *ctx)
{
	return softirq_mark((__s32)ctx->args[0] + 1);
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(softirq_exit_btf)
{
	return softirq_mark(0);
}

SEC("raw_tp/softirq_exit")
int softirq_exit_raw(struct bpf_raw_tracepoint_args *ctx)
{
	return softirq_mark(0);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
