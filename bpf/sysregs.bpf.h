/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The syscall in progress, and what the raw_syscalls tracepoints leave
 * to the registers (syswatch, hotcheck). */
#ifndef SUITE_SYSREGS_BPF_H
#define SUITE_SYSREGS_BPF_H

#include <bpf/bpf_core_read.h>
#include "losses.bpf.h"

#ifndef BPF_LOCAL_STORAGE_GET_F_CREATE
#define BPF_LOCAL_STORAGE_GET_F_CREATE	1
#endif

/* The syscall in progress of a task, as a tool's task-storage map keeps
 * it: its value begins with these two fields (ts 0: none) */
struct sys_inflight_head {
	__u64 ts;	/* bpf_ktime_get_ns() at the entry */
	__s64 nr;
};

/* At sys_enter: the current task's call nr begins now, in the task
 * storage map (a full or failed allocation is counted as LOSS_NOMEM);
 * returns the value, for a tool that keeps more in it, or NULL */
static __always_inline struct sys_inflight_head *inflight_begin(void *map, long nr)
{
	struct sys_inflight_head *s;

	s = bpf_task_storage_get(map, bpf_get_current_task_btf(), 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
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
