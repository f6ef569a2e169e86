/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The image of a process: which process instance, and which of its execs,
 * a user stack was taken in (the layout: IMAGE_ID in bpf/announce.h).
 * User space keys its mappings and names by (pid, image), so a new
 * process that got an old pid, or a process after exec, is never named
 * with the mappings of the one before. */
#ifndef SUITE_IMAGE_BPF_H
#define SUITE_IMAGE_BPF_H

#include "announce.h"
#include "compat.bpf.h"

/* The image of task's process: the start time of its thread group leader
 * (kept by an exec from another thread: the kernel copies it over) and
 * task->self_exec_id (the exec count, copied to the threads it creates) */
static __always_inline __u64 task_image(bool btf, struct task_struct *task)
{
	struct task_struct *leader = KREAD(btf, task, group_leader);

	return IMAGE_ID(KREAD(btf, leader, start_boottime), KREAD(btf, task, self_exec_id));
}

/* The image of the current process */
static __always_inline __u64 current_image(void)
{
	return task_image(CUR_BTF(true), CURRENT_TASK(true));
}

#endif
