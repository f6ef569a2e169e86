/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The stack engine's BPF half (bpf/stackeng.h says how it works; user
 * space: tools/lib/stackstore.c).  The includer gets the maps
 * stack_scratch, stack_nest, stack_seen (--stack-storage-size ids) and
 * stack_rb (sized by user space), and:
 *   stack_user(ctx)          the current task's user stack
 *   stack_kernel(ctx)        the kernel stack where the program runs
 *   stack_of_task(task)      the kernel stack of a task that is not
 *                            running (bpf_get_task_stack: the kernel skips
 *                            the scheduler's own functions, as in
 *                            /proc/PID/stack)
 * each returning a stack id, or STACK_LOST (counted). */
#ifndef SUITE_STACKENG_BPF_H
#define SUITE_STACKENG_BPF_H

#include "stackeng.h"
#include "losses.bpf.h"
#include "rbguard.bpf.h"
#include "maps.bpf.h"
#include "uwalk.bpf.h"

/* programs nest (an interrupt's program inside a task's): one scratch
 * stack per level */
#define STACK_NEST_MAX 4	/* a power of 2 */

PERCPU_ARRAY_MAP(stack_scratch, struct stack_event, STACK_NEST_MAX);
/* Per CPU: the programs taking a stack now, and the ids last found sent,
 * in STACK_RECENT slots by their low bits: a stack taken again and again
 * (the usual case: one loop faulting, blocking, waking; two threads
 * handing work to each other take four stacks in turn) then costs no
 * look-up in stack_seen.  An id sent once stays in user space for the
 * run, and a slot only ever holds such an id (written after the frames
 * went, one 64-bit store, whichever program nested on the CPU wrote it
 * last), so the cache is never wrong; the LRU is only not told the id is
 * still in use. */
#define STACK_RECENT 16		/* a power of 2 */

struct stack_cpu {
	__u32 nest;
	__u32 pad;
	__u64 recent[STACK_RECENT];
};
PERCPU_ARRAY_MAP(stack_nest, struct stack_cpu, 1);
LRU_HASH_MAP(stack_seen, __u64, __u8, 1);	/* --stack-storage-size */
RINGBUF_MAP(stack_rb, 1);			/* sized by user space */

enum stack_how { STACK_HOW_USER, STACK_HOW_KERNEL, STACK_HOW_TASK };

/* The id of nr frames: a 64-bit mix of them, of their count and of
 * whose they are (user or kernel), never a mark */
static __always_inline __u64 stack_hash(const __u64 *ips, __u32 nr, __u64 seed)
{
	__u64 h = seed ^ (nr * 0x9e3779b97f4a7c15ULL);

	for (__u32 i = 0; i < STACK_FRAMES; i++) {
		if (i >= nr)
			break;
		/* xor-multiply (FNV-1a's shape, on whole frames): a
		 * bijection of h for each frame, so stacks that differ in one
		 * frame never collide; the end mixes the high bits down */
		h = (h ^ ips[i]) * 0xbf58476d1ce4e5b9ULL;
	}
	h ^= h >> 29;
	h *= 0x94d049bb133111ebULL;
	h ^= h >> 32;
	return h < STACK_ID_MIN ? h + STACK_ID_MIN : h;
}

/* Names the stack in ev (bytes long, or < 0: a failed walk): its id,
 * its frames sent to user space if they may not be there yet */
static __always_inline __u64 stack_commit(struct stack_event *ev, long bytes, bool user,
					  struct stack_cpu *cpu)
{
	__u64 *last;
	__u8 one = 1;
	__u32 nr;
	__u64 id;

	if (bytes <= 0) {
		/* an empty walk too, as bpf_get_stackid() had it */
		loss_inc(user ? LOSS_USTACK : LOSS_KSTACK);
		return STACK_LOST;
	}
	nr = (__u32)bytes / sizeof(__u64);
	if (nr > STACK_FRAMES)
		nr = STACK_FRAMES;
	id = stack_hash(ev->ips, nr, user ? 0x75 : 0x6b);
	last = &cpu->recent[id & (STACK_RECENT - 1)];
	if (*last == id)
		return id;
	/* a lookup first: an LRU update takes a free node before it finds
	 * the key is there */
	if (bpf_map_lookup_elem(&stack_seen, &id)) {
		*last = id;
		return id;
	}
	ev->type = STACK_EV_FRAMES;
	ev->nr = nr;
	ev->id = id;
	/* frames before the mark: whoever finds the id seen finds its frames
	 * on the ring before its own record */
	if (rb_output(&stack_rb, ev, offsetof(struct stack_event, ips) + nr * sizeof(__u64),
		      LOSS_STACK_RING))
		return STACK_LOST;
	bpf_map_update_elem(&stack_seen, &id, &one, BPF_ANY);
	*last = id;
	return id;
}

/* bytes, as the verifier cannot know it: through ev (its id is written
 * again before it is read).  The walk can end after any of its frames,
 * each with a length the verifier knows; without this it would follow
 * what comes next (the hash of the frames, itself a loop) once for each
 * length, at every place a user stack is taken: hotcheck took 1.5 s to
 * load instead of 0.6 */
static __always_inline long ustack_laundered(struct stack_event *ev, long bytes)
{
	*(volatile __u64 *)&ev->id = (__u64)bytes;
	return (long)*(volatile __u64 *)&ev->id;
}

static __always_inline __u64 stack_take(void *ctx, struct task_struct *task,
					enum stack_how how)
{
	struct stack_cpu *cpu;
	struct stack_event *ev;
	__u32 zero = 0, level;
	long bytes;
	__u64 id;

	cpu = bpf_map_lookup_elem(&stack_nest, &zero);
	if (!cpu)
		return STACK_LOST;
	level = cpu->nest;
	if (level >= STACK_NEST_MAX) {
		loss_inc(LOSS_STACK_BUSY);
		return STACK_LOST;
	}
	ev = bpf_map_lookup_elem(&stack_scratch, &level);
	if (!ev)
		return STACK_LOST;
	cpu->nest = level + 1;
	if (how == STACK_HOW_TASK)
		bytes = bpf_get_task_stack(task, ev->ips, sizeof(ev->ips), 0);
	else if (how == STACK_HOW_USER)
		bytes = ustack_laundered(ev, ustack_walk(ctx, ev->ips));
	else
		bytes = bpf_get_stack(ctx, ev->ips, sizeof(ev->ips), 0);
	id = stack_commit(ev, bytes, how == STACK_HOW_USER, cpu);
	cpu->nest = level;
	return id;
}

static __always_inline __u64 stack_user(void *ctx)
{
	return stack_take(ctx, NULL, STACK_HOW_USER);
}

static __always_inline __u64 stack_kernel(void *ctx)
{
	return stack_take(ctx, NULL, STACK_HOW_KERNEL);
}

static __always_inline __u64 stack_of_task(struct task_struct *task)
{
	return stack_take(NULL, task, STACK_HOW_TASK);
}

#endif
