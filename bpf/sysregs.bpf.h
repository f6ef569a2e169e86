/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The syscall in progress, and what the raw_syscalls tracepoints leave
 * to the registers (syswatch, hotcheck). */
#ifndef SUITE_SYSREGS_BPF_H
#define SUITE_SYSREGS_BPF_H

#include <bpf/bpf_core_read.h>
#include "losses.bpf.h"
#include "compat.bpf.h"

#ifndef BPF_LOCAL_STORAGE_GET_F_CREATE
#define BPF_LOCAL_STORAGE_GET_F_CREATE	1
#endif

/* The syscall in progress of a task, as a tool's inflight map keeps it:
 * its value begins with these two fields (ts 0: none) */
struct sys_inflight_head {
	__u64 ts;	/* bpf_ktime_get_ns() at the entry */
	__s64 nr;
};

/* The map of the calls in progress, values of type vtype: task storage
 * (freed with the task, no lock) where tracing programs may use it
 * (5.12, kernel BTF); elsewhere the loader makes it an LRU hash map by
 * thread id (tools/lib/kfeat.c), whose stale entries (threads gone)
 * make room for new ones */
#define INFLIGHT_MAP(name, vtype)					\
	struct {							\
		__uint(type, BPF_MAP_TYPE_TASK_STORAGE);		\
		__uint(map_flags, BPF_F_NO_PREALLOC);			\
		__type(key, int);					\
		__type(value, vtype);					\
	} name SEC(".maps")

/* The current task's value in inflight map, or NULL */
static __always_inline void *inflight_lookup(void *map)
{
	__u32 tid;

	if (kf_task_storage)
		return bpf_task_storage_get(map, bpf_get_current_task_btf(), 0, 0);
	tid = (__u32)bpf_get_current_pid_tgid();
	return bpf_map_lookup_elem(map, &tid);
}

/* The same, created from zero (a zeroed value of the map's size) if
 * there is none */
static __always_inline void *inflight_create(void *map, const void *zero)
{
	__u32 tid;
	void *v;

	if (kf_task_storage)
		return bpf_task_storage_get(map, bpf_get_current_task_btf(), 0,
					    BPF_LOCAL_STORAGE_GET_F_CREATE);
	tid = (__u32)bpf_get_current_pid_tgid();
	v = bpf_map_lookup_elem(map, &tid);
	if (v)
		return v;
	bpf_map_update_elem(map, &tid, zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(map, &tid);
}

/* At sys_enter: the current task's call nr begins now, in the inflight
 * map (a full or failed allocation is counted as LOSS_NOMEM); returns
 * the value, for a tool that keeps more in it, or NULL */
static __always_inline struct sys_inflight_head *inflight_begin(void *map, const void *zero,
								 long nr)
{
	struct sys_inflight_head *s = inflight_create(map, zero);

	if (!s) {
		loss_inc(LOSS_NOMEM);
		return NULL;
	}
	s->nr = nr;
	s->ts = bpf_ktime_get_ns();
	return s;
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

#endif
