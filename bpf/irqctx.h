/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The context a tracepoint fires in: a task, or an interrupt that merely
 * interrupted current (then current is not the one acting).  Shared by
 * BPF (bpf/irqctx.bpf.h) and user space (tools/lib/irqctx.c). */
#ifndef SUITE_IRQCTX_H
#define SUITE_IRQCTX_H

enum irqctx {
	IRQCTX_TASK = 0,	/* process context: current acts */
	IRQCTX_HARDIRQ = 1,	/* hard interrupt */
	IRQCTX_SOFTIRQ = 2,	/* softirq (on irq exit, bh enable or ksoftirqd) */
	IRQCTX_NMI = 3,
};

/* Where the preempt count was read from (0: not yet) */
enum irqctx_source {
	IRQCTX_SRC_NONE = 0,
	IRQCTX_SRC_PERCPU = 1,		/* this CPU's preempt count, by runqueue offset */
	IRQCTX_SRC_THREAD_INFO = 2,	/* thread_info.preempt_count (not x86) */
	IRQCTX_SRC_IRQ_EVENTS = 3,	/* the tool's own irq/softirq tracepoints */
};

#endif
