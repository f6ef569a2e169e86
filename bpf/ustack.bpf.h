/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Taking the stacks of an event for a key: kernel and user stacks as ids
 * of the stack engine (bpf/stackeng.bpf.h), or, with --dwarf (dwarf_mode),
 * the user stack as a sample (bpf/ustack.h) for DWARF unwinding: the
 * current task's user registers (saved at kernel entry) and up to
 * ustack_copy_size bytes of its stack, sent on ustack_rb.  Costly: only
 * for traced threads, only with --dwarf. */
#ifndef SUITE_USTACK_BPF_H
#define SUITE_USTACK_BPF_H

#include "ustack.h"
#include "losses.bpf.h"
#include "rbguard.bpf.h"
#include "maps.bpf.h"
#include "stackeng.bpf.h"
#include "compat.bpf.h"

const volatile bool dwarf_mode = false;
const volatile __u32 ustack_copy_size = 8192;

/* one scratch sample per CPU (a per-CPU map cannot hold 32 KB values);
 * indexed by CPU: the programs run with preemption off */
ARRAY_MAP(ustack_scratch, struct ustack_sample, 1);	/* number of possible CPUs */
RINGBUF_MAP(ustack_rb, 1);	/* sized by user space */
PERCPU_ARRAY_MAP(ustack_seq, __u64, 1);

/* Copies size bytes of user stack from sp into s->stack, a page at a
 * time: the part of sp's page, then whole pages.  A page that is not in
 * memory (a read here cannot fault it in) is marked in s->absent and the
 * rest still copied, since the callers' frames above it are what the
 * unwinder needs.  Returns the bytes to send: up to the end of the last
 * page read, at most size (0: none; the stack's top may come first).
 * Unrolled, with constant page offsets past the first, so that every
 * verifier (6.1's too) follows it in few states. */
static __always_inline __u32 ustack_copy(struct ustack_sample *s, __u64 sp, __u32 size)
{
	__u32 first = USTACK_PAGE - (__u32)(sp & (USTACK_PAGE - 1));	/* 1..4096 */
	__u32 absent = 0, end = 0, off;

	if (size > USTACK_COPY_MAX)
		size = USTACK_COPY_MAX;
	if (first > size)
		first = size;
	if (bpf_probe_read_user(s->stack, first & (2 * USTACK_PAGE - 1), (void *)sp))
		absent = 1;
	else
		end = first;
#pragma unroll
	for (int i = 1; i < USTACK_CHUNKS; i++) {
		off = first + (__u32)(i - 1) * USTACK_PAGE;
		if (off >= size || off > USTACK_COPY_MAX)
			break;
		if (bpf_probe_read_user(s->stack + off, USTACK_PAGE, (void *)(sp + off)))
			absent |= 1u << i;
		else
			end = off + USTACK_PAGE;
	}
	s->absent = absent;
	return end < size ? end : size;
}

/* Sends a sample of the current task; returns its sequence number (never
 * 0), or 0 when it could not be taken (counted as a lost user stack). */
static __always_inline __u64 ustack_take(__u32 tgid, __u32 tid)
{
	struct task_struct *task;
	struct ustack_sample *s;
	struct pt_regs *regs;
	__u32 zero = 0, cpu = bpf_get_smp_processor_id(), len;
	__u64 *seqp, seq;

	/* --dwarf needs both (5.15): the loader refuses it without them */
	if (!kf_task_pt_regs || !kf_task_btf)
		return 0;
	task = bpf_get_current_task_btf();
	s = bpf_map_lookup_elem(&ustack_scratch, &cpu);
	seqp = bpf_map_lookup_elem(&ustack_seq, &zero);
	if (!s || !seqp)
		return 0;
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	if (!regs) {
		loss_inc(LOSS_USTACK);
		return 0;
	}
#if defined(__TARGET_ARCH_x86)
	s->regs[0] = BPF_CORE_READ(regs, ip);
	s->regs[1] = BPF_CORE_READ(regs, sp);
	s->regs[2] = BPF_CORE_READ(regs, bp);
	s->regs[3] = BPF_CORE_READ(regs, bx);
	s->regs[4] = BPF_CORE_READ(regs, r12);
	s->regs[5] = BPF_CORE_READ(regs, r13);
	s->regs[6] = BPF_CORE_READ(regs, r14);
	s->regs[7] = BPF_CORE_READ(regs, r15);
#elif defined(__TARGET_ARCH_arm64)
	s->regs[0] = BPF_CORE_READ(regs, pc);
	s->regs[1] = BPF_CORE_READ(regs, sp);
	s->regs[2] = BPF_CORE_READ(regs, regs[29]);
	s->regs[3] = BPF_CORE_READ(regs, regs[30]);
	s->regs[4] = BPF_CORE_READ(regs, regs[19]);
	s->regs[5] = BPF_CORE_READ(regs, regs[20]);
	s->regs[6] = BPF_CORE_READ(regs, regs[21]);
	s->regs[7] = BPF_CORE_READ(regs, regs[22]);
#endif
	len = ustack_copy(s, s->regs[1], ustack_copy_size);
	seq = ++*seqp;
	s->type = USTACK_EV_SAMPLE;
	s->tgid = tgid;
	s->tid = tid;
	s->len = len;
	s->seq = seq << 12 | bpf_get_smp_processor_id();	/* unique over CPUs */
	if (len > USTACK_COPY_MAX)
		return 0;
	if (rb_output(&ustack_rb, s, offsetof(struct ustack_sample, stack) + len, LOSS_RINGBUF))
		return 0;
	return s->seq;
}

/* Room on ustack_rb for the record (size bytes) of an event whose user
 * stack went as sample seq, to follow it there (user space joins them by
 * seq): NULL if there is no sample (seq 0), or if the ring buffer is full;
 * then it is counted and *ustack set to STACK_LOST, so that the caller counts
 * the event itself, without its stack.  The caller fills and submits it. */
static __always_inline void *ustack_record_reserve(__u64 seq, __u64 size, __u64 *ustack)
{
	void *r;

	if (!seq)
		return NULL;
	r = rb_reserve(&ustack_rb, size, LOSS_RINGBUF);
	if (!r)
		*ustack = STACK_LOST;
	return r;
}

/* The kernel stack of the event: its id (bpf/stackeng.h) */
static __always_inline __u64 kstack_id(void *ctx)
{
	return stack_kernel(ctx);
}

/* The user stack of the current task (tgid, tid): its id; with --dwarf,
 * a sample sent on ustack_rb instead: then *seq is its number and the id
 * STACK_IN_SAMPLE, or STACK_LOST (and *seq 0) if it could not be taken */
static __always_inline __u64 ustack_id(void *ctx, __u32 tgid, __u32 tid, __u64 *seq)
{
	if (!dwarf_mode)
		return stack_user(ctx);
	*seq = ustack_take(tgid, tid);
	return *seq ? STACK_IN_SAMPLE : STACK_LOST;
}

#endif
