/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What a BPF program could not record, counted per CPU, so that the tool
 * can say so at the end: nothing is lost silently.
 * BPF: bpf/losses.bpf.h; user space: tools/lib/bpfmaps.c (read), and
 * tools/lib/lifecycle.c (reported). */
#ifndef SUITE_LOSSES_H
#define SUITE_LOSSES_H

enum loss_kind {
	LOSS_STACK_RING,	/* stack ring buffer full: a new stack's frames could not be sent */
	LOSS_STACK_BUSY,	/* stacks taken too deeply nested (programs inside programs) */
	LOSS_USTACK,		/* user stack could not be read (-EFAULT, ...) */
	LOSS_KSTACK,		/* kernel stack could not be read */
	LOSS_AGG_FULL,		/* the aggregation map was full */
	LOSS_START_FULL,	/* the in-flight map was full: an interval was missed */
	LOSS_RINGBUF,		/* ring buffer full: an event was dropped */
	LOSS_OTHER,		/* any other failed map update */
	LOSS_NOMEM,		/* no kernel memory for a new element (-ENOMEM) */
	LOSS_HIST_FULL,		/* the histogram map was full: a sample was lost */
	LOSS_END_UNSEEN,	/* an interval whose end the kernel never reported,
				 * nor the scheduler's arrival stamp told */
	LOSS_RB_NESTED,		/* an interrupt came while its CPU reserved ring
				 * buffer space, which PREEMPT_RT before 6.0
				 * cannot nest (bpf/rbguard.bpf.h) */
	LOSS_KINDS,
};

#endif
