/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Which context a program runs in, from this CPU's preempt count.
 *
 * The preempt count is a per-CPU variable on x86 (in thread_info
 * elsewhere).  A per-CPU ksym would be simplest, but needs
 * CONFIG_KALLSYMS_ALL, which kernels often lack; so user space reads from
 * the kernel's BTF where it lies relative to this CPU's runqueue (both
 * are per-CPU variables, so their distance is the same on every CPU):
 * irqctx_percpu_layout() fills pc_by_rq, pc_from_rq (offset of the
 * preempt count) and cpu_from_rq (offset of cpu_number, to check that the
 * runqueue is this CPU's). */
#ifndef SUITE_IRQCTX_BPF_H
#define SUITE_IRQCTX_BPF_H

#include "irqctx.h"

/* preempt_count layout (include/linux/preempt.h, !PREEMPT_RT) */
#define PC_SOFTIRQ_OFFSET	0x00000100
#define PC_HARDIRQ_MASK		0x000f0000
#define PC_NMI_MASK		0x00f00000

const volatile bool pc_by_rq = false;
const volatile __s64 pc_from_rq = 0;
const volatile __s64 cpu_from_rq = 0;

/* enum irqctx_source of the last reading, for -v and JSON; written only
 * when it changes, so CPUs do not fight over its cache line */
__u32 ctx_source = 0;

#define SET_CTX_SOURCE(v) do { if (ctx_source != (v)) ctx_source = (v); } while (0)

/* other architectures keep the preempt count in thread_info */
struct thread_info___ic {
	int preempt_count;
} __attribute__((preserve_access_index));

/* The preempt count of this CPU; false if no source is known */
static __always_inline bool preempt_count_read(int *pc)
{
	struct task_struct *t = (void *)bpf_get_current_task();

	if (pc_by_rq && bpf_core_field_exists(struct cfs_rq, rq)) {
		/* current runs here, so its runqueue is this CPU's */
		__u64 rq = (__u64)BPF_CORE_READ(t, se.cfs_rq, rq);
		int cpu = -1;

		if (rq && !bpf_probe_read_kernel(&cpu, sizeof(cpu), (void *)(rq + cpu_from_rq)) &&
		    cpu == (int)bpf_get_smp_processor_id() &&
		    !bpf_probe_read_kernel(pc, sizeof(*pc), (void *)(rq + pc_from_rq))) {
			SET_CTX_SOURCE(IRQCTX_SRC_PERCPU);
			return true;
		}
	}
	if (bpf_core_field_exists(struct thread_info___ic, preempt_count)) {
		struct thread_info___ic *ti = (void *)&t->thread_info;

		*pc = BPF_CORE_READ(ti, preempt_count);
		SET_CTX_SOURCE(IRQCTX_SRC_THREAD_INFO);
		return true;
	}
	return false;
}

/* enum irqctx from a preempt count */
static __always_inline __u32 irqctx_of(int pc)
{
	if (pc & PC_NMI_MASK)
		return IRQCTX_NMI;
	if (pc & PC_HARDIRQ_MASK)
		return IRQCTX_HARDIRQ;
	if (pc & PC_SOFTIRQ_OFFSET)
		return IRQCTX_SOFTIRQ;
	return IRQCTX_TASK;
}

/* The slots of a per-CPU array of spans in flight (an IRQ, a softirq,
 * an hrtimer expiry, an x86 vector): the kinds that cannot nest in
 * themselves, then one slot per vector from SLOT_VEC0; SPAN_SLOTS(n)
 * with n vectors */
enum { SLOT_IRQ, SLOT_SOFTIRQ, SLOT_HRTIMER, SLOT_HRTIMER_SOFT, SLOT_VEC0 };
#define SPAN_SLOTS(nvec) (SLOT_VEC0 + (nvec))

#endif
