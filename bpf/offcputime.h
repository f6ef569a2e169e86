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
	__u64 exec_id;		/* the process's image (bpf/announce.h) the user
				 * stack was taken in; 0 without one */
	char comm[TASK_COMM_LEN];	/* at the time it left the CPU */
};

struct offcpu_val {
	__u64 total_ns;
	__u64 count;
};

/* A thread that went off-CPU and has not come back yet */
struct offcpu_start {
	__u64 ts;
	__u64 seq;		/* --dwarf: its user-stack sample, 0 if none */
	struct offcpu_key key;
};

/* --dwarf: an interval closed, sent after its sample on ustack_rb */
#define OFFCPU_EV_INTERVAL 0x4f49	/* "OI" */

struct offcpu_interval {
	__u32 type;		/* OFFCPU_EV_INTERVAL */
	__u32 in_range;		/* within -m/-M: count it */
	__u64 seq;
	__u64 delta_ns;
	struct offcpu_key key;
};

/* ustack marks: not taken is -1 (kernel thread, -k); these are lost */
#define OFFCPU_USTACK_DWARF	-1000	/* in a sample: see seq */
#define OFFCPU_USTACK_LOST	-1001	/* the sample could not be taken */

#endif
