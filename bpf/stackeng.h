/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The stack engine: what crosses between its BPF half (bpf/stackeng.bpf.h)
 * and its user-space half (tools/lib/stackstore.c).
 *
 * A stack is taken with bpf_get_stack() or bpf_get_task_stack() into
 * per-CPU scratch and named by a 64-bit hash of its frames, computed in
 * BPF: its id, which the tools' keys and records carry.  The frames cross
 * to user space once, on the ring buffer stack_rb, the first time the
 * stack is seen (and again if the kernel's set of seen ids, an LRU, has
 * forgotten it): user space keeps them for the whole run.  So two
 * different stacks never evict or refuse each other; a stack is lost only
 * when stack_rb is full, and then it is counted. */
#ifndef SUITE_STACKENG_H
#define SUITE_STACKENG_H

#define STACK_FRAMES 127		/* frames of a stack, at most */

/* Ids below STACK_ID_MIN are marks, not stacks */
#define STACK_NONE	0ULL	/* not taken (kernel thread, -u/-k, interrupt) */
#define STACK_LOST	1ULL	/* could not be taken (counted by reason) */
#define STACK_IN_SAMPLE	2ULL	/* --dwarf: in a user-stack sample */
#define STACK_DEFERRED	3ULL	/* to be taken later (offcputime: at switch-in) */
#define STACK_ID_MIN	16ULL

#define STACK_EV_FRAMES 0x5346	/* "SF" */

/* One new stack on stack_rb: frames leaf first, nr of them (the record
 * is as long as they are) */
struct stack_event {
	__u32 type;		/* STACK_EV_FRAMES */
	__u32 nr;
	__u64 id;
	__u64 ips[STACK_FRAMES];
};

#endif
