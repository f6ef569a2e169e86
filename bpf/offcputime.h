/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef OFFCPUTIME_H
#define OFFCPUTIME_H

#define TASK_COMM_LEN 16
#define MAX_STACK_DEPTH 127

/* One aggregation key: a thread and the stacks it blocked in */
struct offcpu_key {
	__u32 tgid;
	__u32 tid;
	__s32 ustack;		/* stack id, or < 0: none or lost */
	__s32 kstack;
	char comm[TASK_COMM_LEN];
};

struct offcpu_val {
	__u64 total_ns;
	__u64 count;
};

/* A thread that went off-CPU and has not come back yet */
struct offcpu_start {
	__u64 ts;
	struct offcpu_key key;
};

#endif
