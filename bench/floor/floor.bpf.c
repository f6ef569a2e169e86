// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The floor of make bench: the least a BPF program on a hook can cost.
 * Each floor_ program does one per-CPU array lookup and one add, nothing
 * else; bench/floor/floor.c attaches the ones asked for.  The walk_
 * programs are the floor of a tracer that names its events' stacks as
 * offcputime and wakers do (and hotcheck, which stands for both): the
 * four stack walks, on the same events, with nothing done with the
 * frames: the user stacks walked as the tools walk them (bpf/uwalk.bpf.h;
 * with ustack_min_addr 0, by the kernel's bpf_get_stack()), the kernel
 * stacks by the kernel's helpers. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "uwalk.bpf.h"	/* the tools' user-stack walk */

enum { HIT_SWITCH, HIT_SYS_ENTER, HIT_SYS_EXIT, HIT_FAULT_TP, HIT_FAULT_PERF,
       HIT_WALK_SWITCH, HIT_WALK_WAKING, HIT_MAX };

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, HIT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} hits SEC(".maps");

static __always_inline int hit(__u32 i)
{
	__u64 *n = bpf_map_lookup_elem(&hits, &i);

	if (n)
		*n += 1;
	return 0;
}

/* One program per hook: floor_NAME, in section SECTION, counting in slot I */
#define FLOOR(section, name, i)						\
	SEC(section)							\
	int floor_##name(void *ctx)					\
	{								\
		return hit(i);						\
	}

FLOOR("tp_btf/sched_switch", sched_switch, HIT_SWITCH)
FLOOR("raw_tp/sys_enter", sys_enter, HIT_SYS_ENTER)
FLOOR("raw_tp/sys_exit", sys_exit, HIT_SYS_EXIT)
FLOOR("tp_btf/page_fault_user", page_fault_user, HIT_FAULT_TP)
FLOOR("perf_event", page_faults, HIT_FAULT_PERF)

/* ---- the stack walks ---- */

const volatile __u32 walk_tgid = 0;	/* the workload's threads */

struct walk_buf {
	__u64 ips[STACK_FRAMES];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct walk_buf);
} walk_scratch SEC(".maps");

static __always_inline struct walk_buf *walk_buf(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&walk_scratch, &zero);
}

/* A workload thread going off its CPU to wait: its user stack (the
 * block's, offcputime's); one coming back: the kernel stack it waited
 * in, read off the task as it is switched in (what offcputime and
 * hotcheck do on a kernel with BTF) */
SEC("tp_btf/sched_switch")
int BPF_PROG(walk_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	struct walk_buf *b;

	if (prev->tgid != walk_tgid && next->tgid != walk_tgid)
		return 0;
	hit(HIT_WALK_SWITCH);
	b = walk_buf();
	if (!b)
		return 0;
	if (prev->tgid == walk_tgid && !preempt && prev_state)
		ustack_walk(ctx, b->ips);
	if (next->tgid == walk_tgid)
		bpf_get_task_stack(next, b->ips, sizeof(b->ips), 0);
	return 0;
}

/* A workload thread woken: its waker's user stack (a task with user
 * memory) and kernel stack (wakers') */
SEC("tp_btf/sched_waking")
int BPF_PROG(walk_waking, struct task_struct *p)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct walk_buf *b;

	if (p->tgid != walk_tgid)
		return 0;
	hit(HIT_WALK_WAKING);
	b = walk_buf();
	if (!b)
		return 0;
	if (cur->mm && !(cur->flags & USTACK_PF_KTHREAD))
		ustack_walk(ctx, b->ips);
	bpf_get_stack(ctx, b->ips, sizeof(b->ips), 0);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
