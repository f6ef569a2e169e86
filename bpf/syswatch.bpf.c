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
#include "image.bpf.h"
#include "losses.bpf.h"
#include "hist.bpf.h"
#include "ustack.bpf.h"
#include "tp.bpf.h"
#include "sysregs.bpf.h"


const volatile __u32 self_tgid = 0;	/* not traced when every task is */
const volatile __u32 nr_slots = SW_MIN_SYSCALLS;	/* size of sys_stats */
const volatile bool per_thread = false;
const volatile bool errors_only = false;
const volatile __u64 slow_ns = 0;	/* 0: no streaming */
const volatile bool filter_syscalls = false;
const volatile long nr_exit = -1;		/* calls that never return */
const volatile long nr_exit_group = -1;
const volatile __u64 sys_mask[SW_MAX_SYSCALLS / 64] = {};

INFLIGHT_MAP(inflight, struct sw_inflight);

/* index: syscall number; sized by user space */
PERCPU_ARRAY_MAP(sys_stats, struct sw_val, SW_MIN_SYSCALLS);

/* --per-thread: allocated on first use, since a value is 4 KiB */
HASH_MAP_NO_PREALLOC(thread_stats, struct sw_tkey, struct sw_tval, 1);	/* --max-entries */

HASH_MAP(errnos, struct sw_errkey, __u64, 1);	/* --max-entries */

/* a zeroed value to create thread_stats entries from (too big for the
 * stack); never written */
ARRAY_MAP(zero_tval, struct sw_tval, 1);

COUNTER_MAP(misc, SW_MISC_KINDS, misc_inc)

RINGBUF_MAP(events, 256 * 1024);	/* sized by user space */

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
	struct sw_val *v;

	if (!traced(pid_tgid) || !syscall_wanted(nr))
		return 0;
	if (nr == nr_exit || nr == nr_exit_group) {
		if (!errors_only && (v = stats_of((__u32)pid_tgid, nr)))
			v->noreturn++;
		return 0;
	}
	struct sw_inflight zero = {};

	inflight_begin(&inflight, &zero, nr);
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

/* The stack first: its frames (or its --dwarf sample) are on their ring
 * before the record that names it is reserved, so that user space, reading
 * that ring before each record, finds them (tools/syswatch/stream.c) */
static __always_inline void stream_slow(void *ctx, __u64 pid_tgid, long nr,
					long ret, __u64 now, __u64 delta)
{
	__u64 seq = 0, ustack = ustack_id(ctx, pid_tgid >> 32, (__u32)pid_tgid, &seq);
	struct sw_event *e;

	/* --dwarf: on ustack_rb after the sample; if that is full, on
	 * events without the stack (counted) */
	e = ustack_record_reserve(seq, sizeof(*e), &ustack);
	if (!e)
		e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
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
	e->exec_id = current_image();
	e->ustack = ustack;
	e->seq = seq;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	bpf_ringbuf_submit(e, 0);
}

static __always_inline int on_exit(void *ctx, struct pt_regs *regs, long ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid;
	struct sw_inflight *s;
	struct sw_val *v;
	bool is_err = ret < 0 && ret >= -SW_MAX_ERRNO;
	__u64 now = 0, delta = 0;
	bool early = false;
	long nr;

	if (!traced(pid_tgid))
		return 0;
	s = inflight_lookup(&inflight);
	if (s && s->ts) {
		now = bpf_ktime_get_ns();
		nr = s->nr;
		delta = now - s->ts;
		s->ts = 0;
	} else {
		/* entered before tracing began (or filtered out then): only
		 * counted, its latency is unknown */
		nr = regs_nr(regs);
		if (!syscall_wanted(nr))
			return 0;
		early = true;
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
	if (early) {
		v->early++;
		return 0;
	}
	hist_add_local(&v->h, delta);
	if (is_err) {
		v->errors++;
		count_errno(tid, nr, (__u32)-ret);
	}
	if (slow_ns && delta >= slow_ns)
		stream_slow(ctx, pid_tgid, nr, ret, now, delta);
	return 0;
}

/* sys_enter(regs, id), sys_exit(regs, ret) */
TP_PROGRAMS(sys_enter, on_enter(TP_ARG(1, long)))
TP_PROGRAMS(sys_exit, on_exit(ctx, TP_ARG(0, struct pt_regs *), TP_ARG(1, long)))

char LICENSE[] SEC("license") = "Dual BSD/GPL";
