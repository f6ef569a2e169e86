/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* offcputime: what crosses between bpf/offcputime.bpf.c and user space
 * (tools/offcputime/). */
#ifndef OFFCPUTIME_H
#define OFFCPUTIME_H

#define TASK_COMM_LEN 16

/* One aggregation key: a thread and the stacks it blocked in */
struct offcpu_key {
	__u32 tgid;
	__u32 tid;
	__u64 ustack;		/* stack ids, or marks (bpf/stackeng.h) */
	__u64 kstack;		/* STACK_DEFERRED until switch-in */
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
	__u64 ts;		/* bpf_ktime_get_ns() at switch-out; 0: closed */
	__u64 seq;		/* --dwarf: its user-stack sample, 0 if none */
	/* For a switch-in the kernel did not report (bpf/offcputime.bpf.c,
	 * came_back()): the scheduler's clock at switch-out, and how many
	 * times the thread had been switched in then */
	__u64 rq_ts;
	__u64 arrivals;
	__u64 end_delta;	/* set by the walk at the end: the interval
				 * ended unreported, after end_delta ns */
	__u64 seeded;		/* 1: opened as tracing began, for a thread
				 * off-CPU since before (bpf/offcputime.bpf.c,
				 * seed_sleepers) */
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

#endif
