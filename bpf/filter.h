/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Which tasks a tool traces (-p, -t, -C), shared by BPF and user space.
 * BPF: bpf/filter.bpf.h; user space: tools/lib/bpfmaps.c. */
#ifndef SUITE_FILTER_H
#define SUITE_FILTER_H

/* Who a -p or -t target was when tracing began: ids are reused, so a task
 * with the number is traced only while it is that task.  The value of
 * target_tgids and target_tids. */
struct target_ident {
	__u32 tgid;	/* -t: the process of the thread */
	__u32 pad;
	/* start time (task->start_boottime; -p: of the group leader), in
	 * [start_lo, start_hi): /proc gives it to a clock tick */
	__u64 start_lo;
	__u64 start_hi;
};

struct target_filter {
	__u8 by_pid;	/* tgid must be in target_tgids (or == one_tgid) */
	__u8 by_tid;	/* tid must be in target_tids (or == one_tid) */
	__u8 by_cpu;	/* CPU must be set in target_cpus */
	__u8 pad;
	__u32 one_tgid;	/* the only -p target, compared without a lookup */
	__u32 one_tid;	/* the only -t target */
	__u32 pad2;
	struct target_ident one_pid_ident;	/* who one_tgid is */
	struct target_ident one_tid_ident;	/* who one_tid is */
};

#endif
