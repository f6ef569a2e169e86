/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* schedsilence: the records its BPF half streams for the watched CPUs.
 * Every record begins with its type; spans (an interrupt, a softirq, a
 * work item, an hrtimer callback) are sent once, when they end.
 * BPF: bpf/schedsilence.bpf.c; user space: tools/schedsilence/. */
#ifndef SCHEDSILENCE_H
#define SCHEDSILENCE_H

#define SS_NAME_LEN 32
#define SS_MAX_WATCH 64		/* CPUs one run can watch */

enum ss_type {
	SS_EV_SWITCH = 1,	/* sched_switch on a watched CPU */
	SS_EV_WAKEUP,		/* a task woken onto a watched CPU */
	SS_EV_MIGRATE,		/* a task moved onto a watched CPU */
	SS_EV_SPAN,		/* an interrupt-like span ended on a watched CPU */
	SS_EV_IPI_SEND,		/* an IPI was sent to a watched CPU */
	SS_EV_TICK_STOP,	/* tick_stop (nohz_full CPUs only) */
};

/* What ran in a span, by the tracepoint that saw it */
enum ss_span_kind {
	SS_SPAN_IRQ = 1,	/* irq_handler_entry/exit: id = irq, name */
	SS_SPAN_SOFTIRQ,	/* softirq_entry/exit: id = vector */
	SS_SPAN_VECTOR,		/* irq_vectors:*: id = enum ss_vector */
	SS_SPAN_WORK,		/* workqueue_execute_start/end: addr = function */
	SS_SPAN_HRTIMER,	/* hrtimer_expire_entry/exit: addr = function */
	SS_SPAN_KINDS,
};

/* x86 interrupt vectors with tracepoints (irq_vectors:*) */
enum ss_vector {
	SS_VEC_LOCAL_TIMER,
	SS_VEC_RESCHEDULE,
	SS_VEC_CALL_FUNCTION,
	SS_VEC_CALL_FUNCTION_SINGLE,
	SS_VEC_IRQ_WORK,
	SS_VEC_X86_PLATFORM_IPI,
	SS_VEC_ERROR_APIC,
	SS_VEC_SPURIOUS_APIC,
	SS_VEC_THERMAL_APIC,
	SS_VEC_DEFERRED_ERROR_APIC,
	SS_VEC_THRESHOLD_APIC,
	SS_VEC_KINDS,
};

#define SS_TASK_KTHREAD 0x1	/* flags: the task is a kernel thread */

struct ss_event {
	__u32 type;		/* enum ss_type */
	__u32 cpu;		/* the watched CPU it happened on or was aimed at */
	__u64 ts;		/* CLOCK_MONOTONIC ns (span: its start) */
	__u64 dur;		/* span: ns; otherwise 0 */
	__u64 addr;		/* work/hrtimer function; IPI callsite */
	__u64 addr2;		/* IPI callback */
	__u32 kind;		/* span: enum ss_span_kind; switch: preempt; tick_stop: success;
				 * wakeup, IPI send: the waker's or sender's enum irqctx
				 * (not task: pid2/pid and name2 are the interrupted task) */
	__u32 id;		/* irq, softirq vector, ss_vector; switch: prev's state;
				 * tick_stop: dependency */
	__u32 pid;		/* switch: next; wakeup/migrate: the task; IPI: sender */
	__u32 pid2;		/* switch: prev; wakeup: the waker */
	__u32 flags;		/* switch: next's SS_TASK_*; */
	__u32 flags2;		/* switch: prev's SS_TASK_*; migrate: source CPU */
	char name[SS_NAME_LEN];	/* switch: next comm; span irq: action name; */
	char name2[16];		/* switch: prev comm; wakeup/IPI: waker/sender comm */
	__u64 start;		/* switch, wakeup, migrate: pid's task->start_boottime
				 * (who it is: ids are reused) */
	__u64 start2;		/* switch: prev's */
};

#endif
