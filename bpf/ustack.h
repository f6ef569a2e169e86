/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A copy of the top of a thread's user stack and its user registers, for
 * DWARF unwinding in user space (--dwarf): shared by BPF and user space.
 * BPF: bpf/ustack.bpf.h; user space: tools/lib/dwunw.c (takes the samples
 * off the ring buffer and unwinds them) and tools/lib/stackframes.c (a
 * record's stacks, resolved and printed). */
#ifndef SUITE_USTACK_H
#define SUITE_USTACK_H

#define USTACK_EV_SAMPLE	0x5553		/* "US" */
#define USTACK_COPY_MAX		32768		/* bytes of stack, at most */
#define USTACK_REGS		8
#define USTACK_PAGE		4096
/* the pages a copy can touch: the partial one at sp, then whole ones */
#define USTACK_CHUNKS		(USTACK_COPY_MAX / USTACK_PAGE + 1)

/* regs[]: x86_64: ip sp bp bx r12 r13 r14 r15
 *         arm64:  pc sp x29 x30 x19 x20 x21 x22 */
enum { USTACK_IP, USTACK_SP, USTACK_FP };

struct ustack_sample {
	__u32 type;		/* USTACK_EV_SAMPLE */
	__u32 tgid;
	__u32 tid;
	__u32 len;		/* bytes of stack[], copied from regs[USTACK_SP] up */
	__u32 absent;		/* bit k: the k-th page of the copy (k = 0 the
				 * one at sp) was not in memory, its bytes are
				 * not the stack's (a fault that grows the stack,
				 * or a page of a large frame not yet touched) */
	__u32 reserved;
	__u64 seq;		/* links the sample to the tool's own record */
	__u64 regs[USTACK_REGS];
	__u8 stack[USTACK_COPY_MAX + USTACK_PAGE];	/* sent: len bytes */
};

#endif
