// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* schedsilence: everything that runs on the watched CPUs.  Each program
 * drops events of other CPUs first thing (target_cpu()), so the CPUs that
 * are not watched pay one array lookup per event.  Task switches, wakeups
 * and migrations are streamed as they happen; interrupt-like spans
 * (hard IRQs, softirqs, x86 vectors, work items, hrtimer callbacks) are
 * paired here and streamed once, when they end.  User space decides what
 * is an intruder (tools/schedsilence/model.c).
 *
 * The ring buffer never wakes the reader (BPF_RB_NO_WAKEUP): a wakeup is
 * an irq_work self-interrupt on the watched CPU, which would be traced in
 * turn.  User space reads it on a timer from another CPU. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "schedsilence.h"
#include "filter.bpf.h"
#include "losses.bpf.h"
#include "rbguard.bpf.h"
#include "tp.bpf.h"
#include "compat.bpf.h"
#include "irqctx.bpf.h"
#include "steal.bpf.h"

#define PF_KTHREAD	0x00200000

/* the watched CPUs, for the IPI cpumask test (target_cpus holds them too) */
const volatile __u32 watch_cpus[SS_MAX_WATCH] = {};
const volatile __u32 nwatch = 0;

struct span_start {
	__u64 ts;
	__u64 addr;
	__u32 id;
	__u32 cpu;
	char name[SS_NAME_LEN];
};

/* in-flight span per CPU, by slot: the span kinds that cannot nest in
 * themselves, then one slot per x86 vector */
PERCPU_ARRAY_MAP(spans, struct span_start, SPAN_SLOTS(SS_VEC_KINDS));

/* work items run in kworkers, which can be preempted by another kworker
 * on the same CPU: their start is kept by thread */
LRU_HASH_MAP(works, __u32, struct span_start, 4096);

RINGBUF_MAP(events, 1 << 22);	/* sized by user space */

static __always_inline struct ss_event *ev_new(__u32 type, __u32 cpu)
{
	struct ss_event *e = rb_reserve(&events, sizeof(*e), LOSS_RINGBUF);

	if (!e)
		return NULL;
	__builtin_memset(e, 0, sizeof(*e));
	e->type = type;
	e->cpu = cpu;
	e->ts = bpf_ktime_get_ns();
	return e;
}

/* The same for an event about CPU cpu, only if it is watched */
static __always_inline struct ss_event *ev_watched(__u32 type, __u32 cpu)
{
	return target_cpu(cpu) ? ev_new(type, cpu) : NULL;
}

static __always_inline void ev_send(struct ss_event *e)
{
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
}

static __always_inline __u32 task_flags(struct task_struct *t)
{
	return (BPF_CORE_READ(t, flags) & PF_KTHREAD) ? SS_TASK_KTHREAD : 0;
}

/* ---- tasks ---- */

static __always_inline int handle_switch(bool preempt, struct task_struct *prev,
					 struct task_struct *next)
{
	struct ss_event *e = ev_watched(SS_EV_SWITCH, bpf_get_smp_processor_id());

	if (!e)
		return 0;
	steal_tick(e->cpu, e->ts);
	e->kind = preempt;
	e->id = task_state(false, prev);
	e->pid = BPF_CORE_READ(next, pid);
	e->pid2 = BPF_CORE_READ(prev, pid);
	e->start = BPF_CORE_READ(next, start_boottime);
	e->start2 = BPF_CORE_READ(prev, start_boottime);
	e->flags = task_flags(next);
	e->flags2 = task_flags(prev);
	BPF_CORE_READ_STR_INTO(&e->name, next, comm);
	BPF_CORE_READ_STR_INTO(&e->name2, prev, comm);
	ev_send(e);
	return 0;
}

TP_PROGRAMS(sched_switch, handle_switch(TP_ARG(0, bool),
					 TP_ARG(1, struct task_struct *),
					 TP_ARG(2, struct task_struct *)))

/* Who acts now (a waker, an IPI sender): in interrupt context, the
 * interrupt, not the task it happened to interrupt */
static __always_inline __u32 acting_ctx(void)
{
	int pc;

	return preempt_count_read(&pc) ? irqctx_of(pc) : IRQCTX_TASK;
}

static __always_inline int handle_wakeup(struct task_struct *p)
{
	struct ss_event *e = ev_watched(SS_EV_WAKEUP, task_cpu(p));

	if (!e)
		return 0;
	e->pid = BPF_CORE_READ(p, pid);
	e->start = BPF_CORE_READ(p, start_boottime);
	e->flags = task_flags(p);
	BPF_CORE_READ_STR_INTO(&e->name, p, comm);
	e->pid2 = (__u32)bpf_get_current_pid_tgid();
	bpf_get_current_comm(&e->name2, sizeof(e->name2));
	e->flags2 = bpf_get_smp_processor_id();
	e->kind = acting_ctx();
	ev_send(e);
	return 0;
}

TP_PROGRAMS(sched_wakeup, handle_wakeup(TP_ARG(0, struct task_struct *)))

static __always_inline int handle_migrate(struct task_struct *p, int dest)
{
	struct ss_event *e;

	if (dest < 0)
		return 0;
	e = ev_watched(SS_EV_MIGRATE, dest);
	if (!e)
		return 0;
	e->pid = BPF_CORE_READ(p, pid);
	e->start = BPF_CORE_READ(p, start_boottime);
	e->flags = task_flags(p);
	e->flags2 = task_cpu(p);
	BPF_CORE_READ_STR_INTO(&e->name, p, comm);
	e->pid2 = (__u32)bpf_get_current_pid_tgid();
	bpf_get_current_comm(&e->name2, sizeof(e->name2));
	ev_send(e);
	return 0;
}

TP_PROGRAMS(sched_migrate_task, handle_migrate(TP_ARG(0, struct task_struct *),
						   TP_ARG(1, int)))

/* ---- spans ---- */

/* A span begins in slot, on this CPU if it is watched: its start, for
 * the caller to fill in (id, addr, name), or NULL */
static __always_inline struct span_start *span_begin(__u32 slot)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct span_start *s;

	if (!target_cpu(cpu))
		return NULL;
	s = bpf_map_lookup_elem(&spans, &slot);
	if (!s)
		return NULL;
	s->ts = bpf_ktime_get_ns();
	s->cpu = cpu;
	/* the tick, each interrupt: the hypervisor's share since the last */
	steal_tick(cpu, s->ts);
	s->addr = 0;
	s->id = 0;
	s->name[0] = 0;
	return s;
}

/* The same for a span known by its number (softirq or x86 vector) */
static __always_inline int span_begin_id(__u32 slot, __u32 id)
{
	struct span_start *s = span_begin(slot);

	if (s)
		s->id = id;
	return 0;
}

static __always_inline void span_emit(struct span_start *s, __u32 kind, __u32 id,
				      __u64 addr)
{
	struct ss_event *e;
	__u64 now = bpf_ktime_get_ns();

	e = ev_new(SS_EV_SPAN, s->cpu);
	if (!e)
		return;
	e->ts = s->ts;
	e->dur = now - s->ts;
	e->kind = kind;
	e->id = id;
	e->addr = addr ? addr : s->addr;
	__builtin_memcpy(e->name, s->name, sizeof(e->name));
	e->pid = (__u32)bpf_get_current_pid_tgid();
	bpf_get_current_comm(&e->name2, sizeof(e->name2));
	ev_send(e);
}

/* A span that ends without having begun (it was running at attach) is
 * not sent: its length is unknown. */
static __always_inline int span_end(__u32 slot, __u32 kind, __u32 id)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct span_start *s;

	if (!target_cpu(cpu))
		return 0;
	s = bpf_map_lookup_elem(&spans, &slot);
	if (!s || !s->ts)
		return 0;
	span_emit(s, kind, id ? id : s->id, 0);
	s->ts = 0;
	return 0;
}

static __always_inline int irq_entry(int irq, struct irqaction *action)
{
	struct span_start *s = span_begin(SLOT_IRQ);

	if (s) {
		s->id = irq;
		bpf_probe_read_kernel_str(s->name, sizeof(s->name),
					  BPF_CORE_READ(action, name));
	}
	return 0;
}

TP_PROGRAMS(irq_handler_entry, irq_entry(TP_ARG(0, int),
					     TP_ARG(1, struct irqaction *)))

TP_PROGRAMS(irq_handler_exit, span_end(SLOT_IRQ, SS_SPAN_IRQ, 0))

TP_PROGRAMS(softirq_entry, span_begin_id(SLOT_SOFTIRQ, TP_ARG(0, unsigned int)))

TP_PROGRAMS(softirq_exit, span_end(SLOT_SOFTIRQ, SS_SPAN_SOFTIRQ, 0))

/* A soft hrtimer (run from the HRTIMER softirq, as most are on
 * PREEMPT_RT) can be interrupted by a hard one (the tick's): a slot each,
 * so that the one does not end the other's span */
static __always_inline __u32 hrtimer_slot(struct hrtimer *t)
{
	return BPF_CORE_READ(t, is_soft) ? SLOT_HRTIMER_SOFT : SLOT_HRTIMER;
}

static __always_inline int hrtimer_entry(struct hrtimer *t)
{
	struct span_start *s = span_begin(hrtimer_slot(t));

	if (s)
		s->addr = (__u64)BPF_CORE_READ(t, function);
	return 0;
}

TP_PROGRAMS(hrtimer_expire_entry, hrtimer_entry(TP_ARG(0, struct hrtimer *)))

TP_PROGRAMS(hrtimer_expire_exit, span_end(hrtimer_slot(TP_ARG(0, struct hrtimer *)),
						 SS_SPAN_HRTIMER, 0))

static __always_inline int work_start(struct work_struct *w)
{
	__u32 cpu = bpf_get_smp_processor_id();
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct span_start s = {};

	if (!target_cpu(cpu))
		return 0;
	s.ts = bpf_ktime_get_ns();
	s.cpu = cpu;
	s.addr = (__u64)BPF_CORE_READ(w, func);
	update_checked(bpf_map_update_elem(&works, &tid, &s, BPF_ANY), LOSS_START_FULL);
	return 0;
}

static __always_inline int work_end(__u64 func)
{
	__u32 cpu = bpf_get_smp_processor_id();
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct span_start *s;

	if (!target_cpu(cpu))
		return 0;
	s = bpf_map_lookup_elem(&works, &tid);
	if (!s)
		return 0;
	span_emit(s, SS_SPAN_WORK, 0, func);
	bpf_map_delete_elem(&works, &tid);
	return 0;
}

TP_PROGRAMS(workqueue_execute_start, work_start(TP_ARG(0, struct work_struct *)))

/* tp_btf cannot read a function-pointer argument: the function read at
 * the start is used */
TP_PROGRAMS(workqueue_execute_end, work_end(btf ? 0 : TP_ARG(1, __u64)))

/* irq_vectors:NAME_entry/exit, one slot each; the ones this kernel lacks
 * are not loaded (user space checks btf_trace_NAME_entry) */
#define VECTOR_TP(tp, vec)						\
	TP_PROGRAMS(tp##_entry, span_begin_id(SLOT_VEC0 + vec, vec))	\
	TP_PROGRAMS(tp##_exit, span_end(SLOT_VEC0 + vec, SS_SPAN_VECTOR, 0))

VECTOR_TP(local_timer, SS_VEC_LOCAL_TIMER)
VECTOR_TP(reschedule, SS_VEC_RESCHEDULE)
VECTOR_TP(call_function, SS_VEC_CALL_FUNCTION)
VECTOR_TP(call_function_single, SS_VEC_CALL_FUNCTION_SINGLE)
VECTOR_TP(irq_work, SS_VEC_IRQ_WORK)
VECTOR_TP(x86_platform_ipi, SS_VEC_X86_PLATFORM_IPI)
VECTOR_TP(error_apic, SS_VEC_ERROR_APIC)
VECTOR_TP(spurious_apic, SS_VEC_SPURIOUS_APIC)
VECTOR_TP(thermal_apic, SS_VEC_THERMAL_APIC)
VECTOR_TP(deferred_error_apic, SS_VEC_DEFERRED_ERROR_APIC)
VECTOR_TP(threshold_apic, SS_VEC_THRESHOLD_APIC)

/* ---- IPIs sent to a watched CPU (seen on the sender) ---- */

static __always_inline void ipi_sent(__u32 cpu, __u64 callsite, __u64 callback)
{
	struct ss_event *e = ev_new(SS_EV_IPI_SEND, cpu);

	if (!e)
		return;
	e->addr = callsite;
	e->addr2 = callback;
	e->pid = (__u32)bpf_get_current_pid_tgid();
	bpf_get_current_comm(&e->name2, sizeof(e->name2));
	e->flags2 = bpf_get_smp_processor_id();
	e->kind = acting_ctx();
	ev_send(e);
}

static __always_inline int handle_ipi_cpu(__u32 cpu, __u64 callsite, __u64 callback)
{
	if (!target_cpu(cpu))
		return 0;
	ipi_sent(cpu, callsite, callback);
	return 0;
}

TP_PROGRAMS(ipi_send_cpu, handle_ipi_cpu(TP_ARG(0, unsigned int), TP_ARG(1, __u64),
					   TP_ARG(2, __u64)))

static __always_inline int handle_ipi_mask(const struct cpumask *mask, __u64 callsite,
					   __u64 callback)
{
	__u32 n = nwatch;

	for (__u32 i = 0; i < SS_MAX_WATCH && i < n; i++) {
		__u32 cpu = watch_cpus[i];
		unsigned long word = 0;

		if (cpu >= 8 * sizeof(((struct cpumask *)0)->bits))
			break;
		bpf_probe_read_kernel(&word, sizeof(word),
				      (const void *)((unsigned long)mask + cpu / 64 * 8));
		if (word & (1UL << (cpu % 64)))
			ipi_sent(cpu, callsite, callback);
	}
	return 0;
}

TP_PROGRAMS(ipi_send_cpumask, handle_ipi_mask(TP_ARG(0, const struct cpumask *),
						   TP_ARG(1, __u64), TP_ARG(2, __u64)))

/* ---- tick_stop: why the tick of a nohz_full CPU could not stop ---- */

static __always_inline int handle_tick_stop(int success, int dep)
{
	struct ss_event *e = ev_watched(SS_EV_TICK_STOP, bpf_get_smp_processor_id());

	if (!e)
		return 0;
	e->kind = success;
	e->id = dep;
	ev_send(e);
	return 0;
}

TP_PROGRAMS(tick_stop, handle_tick_stop(TP_ARG(0, int), TP_ARG(1, int)))

/* ---- stolen time at the window's ends (tools/lib/steal.c) ---- */

STEAL_SNAP_PROGRAM()

char LICENSE[] SEC("license") = "Dual BSD/GPL";
