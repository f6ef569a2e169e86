/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What the running kernel offers the BPF programs, probed once before
 * anything is loaded (its BTF, libbpf's helper and map-type probes), and
 * the object adapted to it: the rodata switches of bpf/compat.bpf.h, the
 * inflight maps made hash maps where task storage is missing, maps
 * preallocated where the kernel needs it.  One binary then loads on every
 * kernel from 5.10 on; docs/KERNELS.md lists which feature came when. */
#ifndef SUITE_KFEAT_H
#define SUITE_KFEAT_H

#include <stdbool.h>
#include <stdint.h>

struct btf;
struct bpf_object;

enum kfeat {
	KF_KERNEL_BTF,		/* /sys/kernel/btf/vmlinux: tp_btf, BTF pointers */
	KF_RINGBUF,		/* BPF ring buffers */
	KF_TASK_STACK,		/* bpf_get_task_stack() */
	KF_SWITCH_PREV_STATE,	/* sched_switch's prev_state argument */
	KF_TASK_BTF,		/* bpf_get_current_task_btf() */
	KF_TASK_STORAGE,	/* task storage in tracing programs */
	KF_TASK_PT_REGS,	/* bpf_task_pt_regs() */
	KF_ATTACH_COOKIE,	/* bpf_get_attach_cookie() in perf_event programs */
	KF_LAZY_MAPS,		/* hash maps without preallocation in tracing programs */
	KF_ATOMICS,		/* BPF atomic or, and, xor, exchange, compare-and-swap */
	KF_INHERIT_THREAD,	/* perf_event_attr.inherit_thread */
	KF_COPY_FROM_USER_TASK,	/* bpf_copy_from_user_task() in sleepable task iterators */
	KF_PREEMPT_RT,		/* a PREEMPT_RT kernel (not a feature: a property) */
	KF_STEAL_TIME,		/* the per-CPU steal_time and the way to it in the
				 * kernel's BTF (tools/lib/steal.c) */
	KF_RINGBUF_NEST,	/* ring buffer reservations that an interrupt may
				 * nest (all but PREEMPT_RT before 6.0:
				 * bpf/rbguard.bpf.h) */
	KF_USTACK_WALK,		/* user stacks walked by the BPF programs
				 * (x86-64, bpf_task_pt_regs(), page 0 never
				 * mapped: bpf/stackeng.bpf.h) */
	KF_COUNT,
};

/* --btf FILE: the kernel's BTF from a file (NULL: the kernel's own) */
extern const char *kernel_btf_path;

/* Does the running kernel have f?  Probed on first use, then cached.
 * SUITE_KFEAT_OFF=name,name (the names of kfeat_name()) turns features
 * off, for tests of the fallbacks on a kernel that has them all. */
bool kfeat_has(enum kfeat f);
/* "task_storage", and the first kernel that has it ("5.12") */
const char *kfeat_name(enum kfeat f);
const char *kfeat_since(enum kfeat f);
/* Exits with EXIT_UNSUPPORTED unless the kernel has f: "WHAT needs
 * FEATURE (Linux SINCE or newer; this kernel: RELEASE)" */
void kfeat_require(enum kfeat f, const char *what);

/* The kernel's BTF (the --btf file, or /sys/kernel/btf/vmlinux), loaded
 * once; NULL if there is none (owned here, never freed by the caller) */
const struct btf *kernel_btf(void);
/* The number of arguments of tracepoint tp (its btf_trace_TP prototype),
 * -1 if the BTF does not have it */
int kernel_tp_args(const char *tp);

/* Before load: the object adapted to this kernel (see above) */
void kfeat_apply(struct bpf_object *obj);
/* For a tool's rodata steal_rq_delta (bpf/steal.bpf.h; tools/lib/steal.c
 * reads it), before load: &steal_time - &runqueues in the per-CPU area,
 * from the kernel's BTF; 0 if unknown */
int64_t kfeat_steal_rq_delta(void);

#endif
