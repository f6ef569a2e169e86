/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* wakers: what crosses between bpf/wakers.bpf.c and user space
 * (tools/wakers/). */
#ifndef WAKERS_H
#define WAKERS_H

#include "hist.h"

#define TASK_COMM_LEN 16

/* What a record counts */
enum wakers_type {
	WK_WAKEUP = 1,		/* sched_waking of a traced thread */
	WK_SIGNAL = 2,		/* signal_generate aimed at a traced thread */
};

/* Where the waker (or signal sender) ran */
/* the values of enum irqctx (bpf/irqctx.h) */
enum wakers_ctx {
	WK_CTX_TASK = 0,	/* process context: the waker is current */
	WK_CTX_HARDIRQ = 1,	/* hard interrupt: current was merely interrupted */
	WK_CTX_SOFTIRQ = 2,	/* softirq (on irq exit, bh enable or ksoftirqd) */
	WK_CTX_NMI = 3,
};

/* One aggregation key: who woke (or signalled) whom, from where.  All
 * fields are fixed size and the struct has no holes (it is hashed). */
struct wakers_key {
	__u32 type;		/* enum wakers_type */
	__u32 ctx;		/* enum wakers_ctx */
	__s32 irq;		/* hardirq: IRQ number; softirq: vector; -1: unknown */
	__s32 sig;		/* WK_SIGNAL: signal number, else 0 */
	__s32 sig_result;	/* WK_SIGNAL: the kernel's TRACE_SIGNAL_* result */
	__u32 sig_group;	/* WK_SIGNAL: 1 if sent to the whole process */
	__u32 waker_pid;	/* tgid of the waker; 0 in interrupt context */
	__u32 waker_tid;
	__u32 target_pid;
	__u32 target_tid;
	__u64 kstack;		/* stack ids, or marks (bpf/stackeng.h) */
	__u64 ustack;		/* --dwarf: STACK_IN_SAMPLE in a record */
	__u64 waker_exec_id;	/* the waker's image (bpf/announce.h) its user
				 * stack was taken in; 0 without one */
	char waker_comm[TASK_COMM_LEN];	/* empty in interrupt context */
	char target_comm[TASK_COMM_LEN];
};

/* The aggregation map "agg" holds these; the aggregation map "latency"
 * holds, for the same keys (wakeups only), a struct hist of the time from
 * the wakeup until the target ran, in ns.  Both are drained by user space
 * while tracing (bpf/agg.bpf.h). */
struct wakers_val {
	__u64 count;
	__u64 blocked_ns;	/* sum of how long the target had been blocked */
	__u64 blocked_known;	/* wakeups in that sum: the others ended a
				 * sleep that began before tracing did */
};

/* --dwarf: the waker's user stack is a sample on ustack_rb (bpf/ustack.h),
 * followed there by the record it belongs to; user space unwinds it and
 * aggregates those records itself.  Wakeups without a sample (interrupt
 * context, kernel threads, lost samples) stay in the maps as usual. */

enum wakers_event_type {
	WK_EV_RECORD = 0x5752,		/* "WR": one wakeup or signal */
	WK_EV_LATENCY = 0x574c,		/* "WL": the woken thread ran */
};

struct wakers_record {
	__u32 type;		/* WK_EV_RECORD */
	__u32 blocked_known;	/* 1: blocked_ns is known */
	__u64 seq;		/* its sample */
	__u64 blocked_ns;
	struct wakers_key key;	/* ustack: STACK_IN_SAMPLE */
};

struct wakers_latency {
	__u32 type;		/* WK_EV_LATENCY */
	__u32 tid;		/* the woken thread */
	__u64 seq;		/* the sample of the wakeup that woke it */
	__u64 latency_ns;
};

#endif
