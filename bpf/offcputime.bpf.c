// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* offcputime: off-CPU time by thread, user stack and kernel stack, from
 * sched_switch.  A thread's stacks are taken when it leaves the CPU; the
 * interval is closed when it comes back. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "offcputime.h"
#include "filter.bpf.h"
#include "losses.bpf.h"
#define ANNOUNCE_EXEC_PROGRAMS
#include "announce.bpf.h"
#include "ustack.bpf.h"
#include "tp.bpf.h"

#define PF_KTHREAD	0x00200000
#define TASK_DEAD	0x00000080

const volatile bool user_threads_only = false;
const volatile bool kernel_threads_only = false;
const volatile bool all_states = true;
const volatile __u32 state_mask = 0;		/* kernel task state bits */
const volatile bool runnable_state = false;	/* 'R': preempted */
const volatile __u64 min_ns = 1000;
const volatile __u64 max_ns = ~0ULL;
const volatile bool want_ustack = true;
const volatile bool want_kstack = true;
const volatile bool dwarf_mode = false;

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, MAX_STACK_DEPTH * sizeof(__u64));
	__uint(max_entries, 1);		/* --stack-storage-size */
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);		/* --max-entries */
	__type(key, __u32);
	__type(value, struct offcpu_start);
} start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);		/* --max-entries */
	__type(key, struct offcpu_key);
	__type(value, struct offcpu_val);
} counts SEC(".maps");

static __always_inline bool state_match(bool preempt, __u32 state)
{
	if (state & TASK_DEAD)
		return false;	/* its last switch: it never comes back */
	if (all_states)
		return true;
	if (preempt || state == 0)
		return runnable_state;
	return state & state_mask;
}

static __always_inline void switch_out(void *ctx, bool btf, bool preempt,
				       struct task_struct *prev)
{
	struct offcpu_start s;
	__u32 tid = KREAD(btf, prev, pid);
	__u32 tgid = KREAD(btf, prev, tgid);
	__u32 flags, state;
	bool kthread;

	if (!tid || !target_task(btf ? TARGET_BTF : TARGET_RAW, prev, tgid, tid))
		return;
	flags = KREAD(btf, prev, flags);
	kthread = flags & PF_KTHREAD;
	if ((user_threads_only && kthread) || (kernel_threads_only && !kthread))
		return;
	state = KREAD(btf, prev, __state);
	if (!state_match(preempt, state))
		return;
	if (!target_cpu(bpf_get_smp_processor_id()))
		return;

	/* zeroed here, not where declared: untraced tasks never pay for it */
	__builtin_memset(&s, 0, sizeof(s));
	s.ts = bpf_ktime_get_ns();
	s.key.tgid = tgid;
	s.key.tid = tid;
	bpf_get_current_comm(&s.key.comm, sizeof(s.key.comm));
	s.key.kstack = -1;
	s.key.ustack = -1;
	if (want_kstack)
		s.key.kstack = stackid_checked(bpf_get_stackid(ctx, &stacks, 0), false);
	if (want_ustack && !kthread) {
		s.key.exec_id = KREAD(btf, prev, self_exec_id);
		if (dwarf_mode) {
			s.seq = ustack_take(tgid, tid);
			s.key.ustack = s.seq ? OFFCPU_USTACK_DWARF : OFFCPU_USTACK_LOST;
		} else {
			s.key.ustack = stackid_checked(
				bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK), true);
		}
		announce_tgid(tgid, s.key.exec_id);
	}
	update_checked(bpf_map_update_elem(&start, &tid, &s, BPF_ANY), LOSS_START_FULL);
}

static __always_inline void switch_in(bool btf, struct task_struct *next)
{
	__u32 tid = KREAD(btf, next, pid);
	__u32 tgid = KREAD(btf, next, tgid);
	struct offcpu_start *sp;
	struct offcpu_key key;
	struct offcpu_val *val, zero = {};
	__u64 delta, seq;

	if (!tid || !target_task(btf ? TARGET_BTF : TARGET_RAW, next, tgid, tid))
		return;
	sp = bpf_map_lookup_elem(&start, &tid);
	if (!sp)
		return;
	delta = bpf_ktime_get_ns() - sp->ts;
	key = sp->key;
	seq = sp->seq;
	bpf_map_delete_elem(&start, &tid);
	if (seq) {
		/* user space holds the sample: close it there, in range or not */
		struct offcpu_interval ev = {
			.type = OFFCPU_EV_INTERVAL,
			.in_range = delta >= min_ns && delta <= max_ns,
			.seq = seq,
			.delta_ns = delta,
			.key = key,
		};

		if (!bpf_ringbuf_output(&ustack_rb, &ev, sizeof(ev), 0))
			return;
		loss_inc(LOSS_RINGBUF);
		key.ustack = OFFCPU_USTACK_LOST;	/* keep the time, not the stack */
	}
	if (delta < min_ns || delta > max_ns)
		return;
	val = bpf_map_lookup_elem(&counts, &key);
	if (!val) {
		long err = bpf_map_update_elem(&counts, &key, &zero, BPF_NOEXIST);

		if (err && !bpf_map_lookup_elem(&counts, &key)) {
			update_checked(err, LOSS_AGG_FULL);
			return;
		}
		val = bpf_map_lookup_elem(&counts, &key);
		if (!val)
			return;
	}
	__sync_fetch_and_add(&val->total_ns, delta);
	__sync_fetch_and_add(&val->count, 1);
}

static __always_inline int handle_switch(void *ctx, bool btf, bool preempt,
					 struct task_struct *prev,
					 struct task_struct *next)
{
	switch_out(ctx, btf, preempt, prev);
	switch_in(btf, next);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(sched_switch_btf, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	return handle_switch(ctx, true, preempt, prev, next);
}

SEC("raw_tp/sched_switch")
int sched_switch_raw(struct bpf_raw_tracepoint_args *ctx)
{
	return handle_switch(ctx, false, (bool)ctx->args[0],
			     (struct task_struct *)ctx->args[1],
			     (struct task_struct *)ctx->args[2]);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
