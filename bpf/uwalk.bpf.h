/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* ustack_walk(): the current task's user stack, as the kernel's own walk
 * finds it, for less (bpf/stackeng.bpf.h takes every user stack with it;
 * bench/floor/ measures it alone).  Needs vmlinux.h and compat.bpf.h's
 * switches (kf_ustack_walk, ustack_min_addr, ustack_max: set by
 * tools/lib/kfeat.c). */
#ifndef SUITE_UWALK_BPF_H
#define SUITE_UWALK_BPF_H

#include "stackeng.h"
#include "compat.bpf.h"

/* The current task's user stack into ips (STACK_FRAMES), as
 * bpf_get_stack(BPF_F_USER_STACK) finds it: bytes written, or < 0.
 *
 * x86-64: the kernel's walk (perf_callchain_user) stores the user
 * registers' ip, then follows the saved frame pointers from bp, storing
 * each frame's return address, until a frame cannot be read or the
 * stack is full.  A frame chain ends with a frame pointer of 0, so every
 * walk ends with a read at address 0: a page fault the kernel recovers
 * from, which costs more than the rest of the walk (2.5 us of a 2.6 us
 * walk of a few frames here: docs/PERFORMANCE.md).  Walked here frame by
 * frame with the same reads (bpf_probe_read_user: the same address
 * checks, and the same failure where the kernel's read fails), but
 * stopping before a read below vm.mmap_min_addr, where nothing is ever
 * mapped: the same frames for a fraction of the cost.  Whatever the
 * kernel's walk would treat otherwise goes to it: a 32-bit task, a kernel
 * thread or io worker, a task with uretprobes pending (the kernel
 * replaces their trampolines' addresses), a kernel without
 * bpf_task_pt_regs() or a machine that maps page 0. */
struct ustack_frame {
	__u64 next;
	__u64 ret;
};

#define USTACK_PF_KTHREAD	0x00200000
#define USTACK_PF_USER_WORKER	0x00004000	/* io workers (6.4; a bit the
						 * older kernels use otherwise:
						 * their tasks go to the kernel) */
#define USTACK_USER_CS		0x33		/* __USER_CS: 64-bit user mode */

/* Follows the frame-pointer chain from fp (a __u64 lvalue), storing each
 * frame's return address at ips[1], ips[2]...: READ(f, fp) reads the
 * struct ustack_frame at fp into *f, 0 on success.  Stops as the kernel's
 * walk does, at a frame that cannot be read or at kernel.perf_event_max_
 * stack frames, and before a read below vm.mmap_min_addr (which would
 * fail).  n (a __u32 lvalue, 1 with ips[0] set) ends as the frames held.
 * Shared by ustack_walk() and offcputime's stacks of sleepers, which
 * reads another task's memory. */
#define USTACK_FOLLOW(ips, n, fp, READ)                                        \
	for (__u32 uf_i = 1; uf_i < STACK_FRAMES; uf_i++) {                    \
		struct ustack_frame uf_f;                                      \
		if (uf_i >= ustack_max || (fp) < ustack_min_addr ||            \
		    READ(&uf_f, (fp)))                                         \
			break;                                                 \
		(ips)[uf_i] = uf_f.ret;                                        \
		(n) = uf_i + 1;                                                \
		(fp) = uf_f.next;                                              \
	}

#define USTACK_READ_CURRENT(f, fp) bpf_probe_read_user((f), sizeof(*(f)), (void *)(fp))

static __always_inline long ustack_walk(void *ctx, __u64 *ips)
{
#if defined(__TARGET_ARCH_x86)
	struct task_struct *t;
	struct pt_regs *r;
	__u64 fp;
	__u32 n = 1;

	if (!kf_ustack_walk || !kf_task_pt_regs || !kf_task_btf || ustack_min_addr < 4096)
		goto kernel;
	t = bpf_get_current_task_btf();
	if (!t->mm || (t->flags & (USTACK_PF_KTHREAD | USTACK_PF_USER_WORKER)))
		goto kernel;
	if (bpf_core_field_exists(t->utask) && BPF_CORE_READ(t, utask))
		goto kernel;
	r = (struct pt_regs *)bpf_task_pt_regs(t);
	if (!r || (r->cs & 0xffff) != USTACK_USER_CS)
		goto kernel;
	ips[0] = r->ip;
	fp = r->bp;
	USTACK_FOLLOW(ips, n, fp, USTACK_READ_CURRENT);
	return (long)n * sizeof(__u64);
kernel:
#endif
	return bpf_get_stack(ctx, ips, STACK_FRAMES * sizeof(__u64), BPF_F_USER_STACK);
}

#endif
