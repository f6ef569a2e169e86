/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The target filter: the first thing every program does, so tasks that
 * are not traced pay one or two compares.  A task whose number matches is
 * then checked to be the target itself (bpf/filter.h: struct
 * target_ident), not a later task given the same number.  User space
 * fills it through tools/lib/bpfmaps.h. */
#ifndef SUITE_FILTER_BPF_H
#define SUITE_FILTER_BPF_H

#include <bpf/bpf_core_read.h>
#include "filter.h"
#include "maps.bpf.h"
#include "compat.bpf.h"

const volatile struct target_filter tfilter = {};

/* all sized by user space: the -p and -t targets, the possible CPUs */
HASH_MAP(target_tgids, __u32, struct target_ident, 1);
HASH_MAP(target_tids, __u32, struct target_ident, 1);
ARRAY_MAP(target_cpus, __u8, 1);

/* Where the task comes from: a BTF-typed tracepoint argument (tp_btf:
 * direct loads), an untyped one (raw_tp: CO-RE reads), or the current
 * task (taken only once its number matched) */
enum target_src { TARGET_BTF, TARGET_RAW, TARGET_CURRENT };

/* The source of a tracepoint argument, from the program's flavour */
#define TARGET_ARG(btf) ((btf) ? TARGET_BTF : TARGET_RAW)

/* The start time of the task (leader: of its process) */
static __always_inline __u64 target_start(enum target_src src,
					  struct task_struct *task, bool leader)
{
	if (src == TARGET_CURRENT) {
		task = CURRENT_TASK(true);
		src = CUR_BTF(true) ? TARGET_BTF : TARGET_RAW;
	}
	if (src == TARGET_BTF)
		return leader ? task->group_leader->start_boottime : task->start_boottime;
	return leader ? BPF_CORE_READ(task, group_leader, start_boottime)
		      : BPF_CORE_READ(task, start_boottime);
}

static __always_inline bool target_is(__u64 lo, __u64 hi, __u64 start)
{
	return start >= lo && start < hi;
}

/* Is task (tgid, tid) traced?  -p and -t add up: a task matches either.
 * src is a constant, task is read only when a number matches. */
static __always_inline bool target_task(enum target_src src, struct task_struct *task,
					__u32 tgid, __u32 tid)
{
	const struct target_ident *id;

	if (!tfilter.by_pid && !tfilter.by_tid)
		return true;
	if (tfilter.by_pid) {
		if (tfilter.one_tgid) {
			if (tgid == tfilter.one_tgid &&
			    target_is(tfilter.one_pid_ident.start_lo,
				      tfilter.one_pid_ident.start_hi,
				      target_start(src, task, true)))
				return true;
		} else if ((id = bpf_map_lookup_elem(&target_tgids, &tgid)) &&
			   target_is(id->start_lo, id->start_hi,
				     target_start(src, task, true))) {
			return true;
		}
	}
	if (tfilter.by_tid) {
		if (tfilter.one_tid) {
			if (tid == tfilter.one_tid && tgid == tfilter.one_tid_ident.tgid &&
			    target_is(tfilter.one_tid_ident.start_lo,
				      tfilter.one_tid_ident.start_hi,
				      target_start(src, task, false)))
				return true;
		} else if ((id = bpf_map_lookup_elem(&target_tids, &tid)) &&
			   id->tgid == tgid &&
			   target_is(id->start_lo, id->start_hi,
				     target_start(src, task, false))) {
			return true;
		}
	}
	return false;
}

/* The same for the current task (its ids from bpf_get_current_pid_tgid) */
static __always_inline bool target_current(__u32 tgid, __u32 tid)
{
	return target_task(TARGET_CURRENT, NULL, tgid, tid);
}


static __always_inline bool target_cpu(__u32 cpu)
{
	__u8 *on;

	if (!tfilter.by_cpu)
		return true;
	on = bpf_map_lookup_elem(&target_cpus, &cpu);
	return on && *on;
}

#endif
