// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* syswatch: syscall latency per syscall (and per thread), from
 * raw_syscalls sys_enter/sys_exit.
 *
 * The hot path is short on purpose: the target filter first, the call in
 * progress kept in task storage (no hash lookup, no lock), and the
 * histogram of a syscall in a per-CPU array slot updated without atomics. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "syswatch.h"
#include "filter.bpf.h"
#include "losses.bpf.h"
#include "hist.bpf.h"
#include "tp.bpf.h"

#define BPF_LOCAL_STORAGE_GET_F_CREATE	1

const volatile __u32 self_tgid = 0;	/* not traced when every task is */
const volatile __u32 nr_slots = SW_MIN_SYSCALLS;	/* size of sys_stats */
const volatile bool per_thread = false;
const volatile bool errors_only = false;
const volatile __u64 slow_ns = 0;	/* 0: no streaming */
const volatile bool filter_syscalls = false;
const volatile long nr_exit = -1;		/* calls that never return */
const volatile long nr_exit_group = -1;
const volatile __u64 sys_mask[SW_MAX_SYSCALLS / 64] = {};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct sw_inflight);
} inflight SEC(".maps");

/* index: syscall number */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SW_MIN_SYSCALLS);	/* sized by user space */
	__type(key, __u32);
	__type(value, struct sw_val);
} sys_stats SEC(".maps");

/* --per-thread: allocated on first use, since a value is 4 KiB */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);			/* --max-entries */
	__type(key, struct sw_tkey);
	__type(value, struct sw_tval);
} thread_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);			/* --max-entries */
	__type(key, struct sw_errkey);
	__type(value, __u64);
} errnos SEC(".maps");

/* a zeroed value to create thread_stats entries from (too big for the
 * stack); never written */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sw_tval);
} zero_tval SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SW_MISC_KINDS);
	__type(key, __u32);
	__type(value, __u64);
} misc SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);	/* sized by user space */
} events SEC(".maps");

static __always_inline void misc_inc(__u32 kind)
{
	__u64 *v = bpf_map_lookup_elem(&misc, &kind);

	if (v)
		(*v)++;
}

/* The filter, first thing on both tracepoints */
static __always_inline bool traced(__u64 pid_tgid)
{
	__u32 tgid = pid_tgid >> 32;

	if (!target_current(tgid, (__u32)pid_tgid))
		return false;
	return !self_tgid || tgid != self_tgid;
}

/* --syscall */
static __always_inline bool syscall_wanted(long nr)
{
	if (!filter_syscalls)
		return true;
	if (nr < 0 || nr >= SW_MAX_SYSCALLS)
		return false;
	return sys_mask[(nr >> 6) & (SW_MAX_SYSCALLS / 64 - 1)] & (1ULL << (nr & 63));
}

/* The syscall number at the exit, from the registers, for calls whose
 * entry was not seen */
static __always_inline long regs_nr(struct pt_regs *regs)
{
#if defined(__TARGET_ARCH_x86)
	return BPF_CORE_READ(regs, orig_ax);
#elif defined(__TARGET_ARCH_arm64)
	return BPF_CORE_READ(regs, syscallno);
#else
	return -1;
#endif
}

static __always_inline struct sw_val *stats_of(__u32 tid, __u32 nr)
{
	struct sw_tkey key = { .tid = tid, .nr = nr };
	struct sw_tval *tv;
	__u32 zero = 0;

	if (!per_thread)
		return bpf_map_lookup_elem(&sys_stats, &nr);
	tv = bpf_map_lookup_elem(&thread_stats, &key);
	if (tv)
		return &tv->v;
	tv = bpf_map_lookup_elem(&zero_tval, &zero);
	if (!tv)
		return NULL;
	if (update_checked(bpf_map_update_elem(&thread_stats, &key, tv, BPF_NOEXIST),
			   LOSS_AGG_FULL)) {
		return NULL;
	}
	tv = bpf_map_lookup_elem(&thread_stats, &key);
	if (!tv)
		return NULL;
	tv->pid = bpf_get_current_pid_tgid() >> 32;
	bpf_get_current_comm(tv->comm, sizeof(tv->comm));
	return &tv->v;
}

static __always_inline int on_enter(long nr)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct sw_inflight *s;
	struct sw_val *v;

	if (!traced(pid_tgid) || !syscall_wanted(nr))
		return 0;
	if (nr == nr_exit || nr == nr_exit_group) {
		if (!errors_only && (v = stats_of((__u32)pid_tgid, nr)))
			v->noreturn++;
		return 0;
	}
	s = bpf_task_storage_get(&inflight, bpf_get_current_task_btf(), 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!s) {
		loss_inc(LOSS_NOMEM);
		return 0;
	}
	s->nr = nr;
	s->ts = bpf_ktime_get_ns();
	return 0;
}

static __always_inline void count_errno(__u32 tid, __u32 nr, __u32 err)
{
	struct sw_errkey key = { .tid = per_thread ? tid : 0, .nr = nr, .err = err };
	__u64 one = 1, *v;
	long ret;

	v = bpf_map_lookup_elem(&errnos, &key);
	if (v) {
		__sync_fetch_and_add(v, 1);
		return;
	}
	ret = bpf_map_update_elem(&errnos, &key, &one, BPF_NOEXIST);
	if (!ret)
		return;
	v = bpf_map_lookup_elem(&errnos, &key);	/* another CPU made it */
	if (v)
		__sync_fetch_and_add(v, 1);
	else
		update_checked(ret, LOSS_AGG_FULL);
}

static __always_inline void stream_slow(void *ctx, __u64 pid_tgid, long nr,
					long ret, __u64 now, __u64 delta)
{
	struct sw_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		loss_inc(LOSS_RINGBUF);
		return;
	}
	e->type = SW_EV_SLOW;
	e->tid = (__u32)pid_tgid;
	e->pid = pid_tgid >> 32;
	e->nr = nr;
	e->ret = ret;
	e->ts = now;
	e->lat_ns = delta;
	e->exec_id = current_exec_id();
	e->pad = 0;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	e->ustack_bytes = bpf_get_stack(ctx, e->ustack, sizeof(e->ustack),
					BPF_F_USER_STACK);
	if (e->ustack_bytes < 0)
		loss_inc(LOSS_USTACK);
	bpf_ringbuf_submit(e, 0);
}

static __always_inline int on_exit(void *ctx, struct pt_regs *regs, long ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid;
	struct sw_inflight *s;
	struct sw_val *v;
	bool is_err = ret < 0 && ret >= -SW_MAX_ERRNO;
	__u64 now, delta = 0;
	long nr;

	if (!traced(pid_tgid))
		return 0;
	s = bpf_task_storage_get(&inflight, bpf_get_current_task_btf(), 0, 0);
	if (s && s->ts) {
		now = bpf_ktime_get_ns();
		nr = s->nr;
		delta = now - s->ts;
		s->ts = 0;
	} else {
		/* entered before tracing began (or filtered out then) */
		nr = regs_nr(regs);
		if (!syscall_wanted(nr))
			return 0;
		if (errors_only && !is_err)
			return 0;
		if (nr < 0 || nr >= nr_slots) {
			misc_inc(SW_MISC_NR_RANGE);
			return 0;
		}
		v = stats_of(tid, nr);
		if (v)
			v->early++;
		return 0;
	}
	if (errors_only && !is_err)
		return 0;
	if (nr < 0 || nr >= nr_slots) {
		misc_inc(SW_MISC_NR_RANGE);
		return 0;
	}
	v = stats_of(tid, nr);
	if (!v)
		return 0;
	hist_add_local(&v->h, delta);
	if (is_err) {
		v->errors++;
		count_errno(tid, nr, (__u32)-ret);
	}
	if (slow_ns && delta >= slow_ns)
		stream_slow(ctx, pid_tgid, nr, ret, now, delta);
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter_btf, struct pt_regs *regs, long id)
{
	return on_enter(id);
}

SEC("raw_tp/sys_enter")
int sys_enter_raw(struct bpf_raw_tracepoint_args *ctx)
{
	return on_enter((long)ctx->args[1]);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit_btf, struct pt_regs *regs, long ret)
{
	return on_exit(ctx, regs, ret);
}

SEC("raw_tp/sys_exit")
int sys_exit_raw(struct bpf_raw_tracepoint_args *ctx)
{
	return on_exit(ctx, (struct pt_regs *)ctx->args[0], (long)ctx->args[1]);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
