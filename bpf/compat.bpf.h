/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What differs between the kernels the suite runs on (5.10 to today),
 * decided before load by the probes of tools/lib/kfeat.c and written to
 * these rodata switches: the verifier then sees only the branch this
 * kernel can run, so one object loads everywhere.  Each switch is true
 * by default (the newest kernels); kfeat.c sets the ones a tool's object
 * has. */
#ifndef SUITE_COMPAT_BPF_H
#define SUITE_COMPAT_BPF_H

#include <bpf/bpf_core_read.h>
#include "tp.bpf.h"

/* sched_switch has its fourth argument, prev_state (5.18) */
const volatile bool kf_switch_prev_state = true;
/* bpf_get_current_task_btf() (5.11), with the kernel's own BTF */
const volatile bool kf_task_btf = true;
/* task storage maps from tracing programs (5.12; kernel BTF) */
const volatile bool kf_task_storage = true;
/* bpf_task_pt_regs() (5.15) */
const volatile bool kf_task_pt_regs = true;
/* bpf_get_attach_cookie() in perf_event programs (5.15) */
const volatile bool kf_attach_cookie = true;
/* the per-CPU steal_time and bpf_per_cpu_ptr() (5.10; x86 KVM guest
 * kernels): bpf/steal.bpf.h */
const volatile bool kf_steal_time = true;
/* a ring buffer an interrupt may reserve in while the program it
 * interrupted does (every kernel but PREEMPT_RT before 6.0):
 * bpf/rbguard.bpf.h */
const volatile bool kf_ringbuf_nest = true;
/* user stacks walked by the program, frame pointer to frame pointer, as
 * the kernel's own walk does (x86-64, bpf_task_pt_regs()):
 * bpf/uwalk.bpf.h; ustack_min_addr: vm.mmap_min_addr, below which no
 * frame can be read; ustack_max: kernel.perf_event_max_stack */
const volatile bool kf_ustack_walk = true;
const volatile __u64 ustack_min_addr = 0;
const volatile __u32 ustack_max = 127;

/* task_struct before 5.14 named its state "state" */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

/* A task's scheduler state (__state since 5.14, state before) */
static __always_inline __u32 task_state(bool btf, struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return KREAD(btf, t, __state);
	return BPF_CORE_READ((struct task_struct___pre514 *)t, state);
}

/* task_struct before 5.16 kept its CPU in itself, not in thread_info */
struct task_struct___pre516 {
	unsigned int cpu;
} __attribute__((preserve_access_index));

/* The CPU a task is on, or last ran on */
static __always_inline __u32 task_cpu(struct task_struct *t)
{
	if (bpf_core_field_exists(t->thread_info.cpu))
		return BPF_CORE_READ(t, thread_info.cpu);
	return BPF_CORE_READ((struct task_struct___pre516 *)t, cpu);
}

/* The state prev left the CPU in, in a sched_switch program: the
 * tracepoint's prev_state where it has one (5.18), else prev's state
 * now, as the tracepoint itself reported it on those kernels.  The load
 * of the fourth argument is volatile so that the compiler cannot move it
 * out of its branch: the verifier refuses it where the tracepoint has
 * three arguments. */
#define SWITCH_PREV_STATE(ctx, btf, prev)				\
	(kf_switch_prev_state ? (__u32)((volatile __u64 *)(ctx))[3]	\
			      : task_state(btf, prev))

/* The two sched_switch programs (TP_PROGRAMS) of a handler
 * fn(ctx, btf, preempt, prev, next, prev_state) */
#define SWITCH_PROGRAMS(fn)						\
	TP_PROGRAMS(sched_switch, fn(ctx, btf, TP_ARG(0, bool),		\
				     TP_ARG(1, struct task_struct *),	\
				     TP_ARG(2, struct task_struct *),	\
				     SWITCH_PREV_STATE(ctx, btf,	\
					TP_ARG(1, struct task_struct *))))

/* The current task in a program of flavour btf: BTF-typed (direct loads)
 * where the kernel gives it so, else an untyped pointer read with CO-RE
 * probe reads; CUR_BTF(btf) says which, for KREAD() */
#define CUR_BTF(btf) ((btf) && kf_task_btf)
#define CURRENT_TASK(btf)						\
	(CUR_BTF(btf) ? bpf_get_current_task_btf()			\
		      : (struct task_struct *)bpf_get_current_task())

#endif
