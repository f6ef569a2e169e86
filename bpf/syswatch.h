/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* syswatch: what crosses between bpf/syswatch.bpf.c and user space
 * (tools/syswatch/). */
#ifndef SYSWATCH_H
#define SYSWATCH_H

#include "hist.h"
#include "stackeng.h"

#define TASK_COMM_LEN 16
/* Room in the per-syscall array when the name table is smaller; numbers
 * at or above the array size are counted as SW_MISC_NR_RANGE */
#define SW_MIN_SYSCALLS 512
#define SW_MAX_SYSCALLS 4096
/* "is an error": the kernel returns -1 .. -MAX_ERRNO */
#define SW_MAX_ERRNO 4095

/* Per syscall (per CPU), or per (thread, syscall) with --per-thread */
struct sw_val {
	struct hist h;		/* latency in ns of the calls seen whole */
	__u64 errors;		/* of those, how many failed */
	__u64 early;		/* calls entered before tracing began that
				 * finished during it (latency unknown) */
	__u64 noreturn;		/* exit, exit_group: entered, never return */
};

struct sw_tkey {
	__u32 tid;
	__s32 nr;
};

struct sw_tval {
	struct sw_val v;
	__u32 pid;
	__u32 pad;
	char comm[TASK_COMM_LEN];
};

/* Failed calls by errno; tid is 0 unless --per-thread */
struct sw_errkey {
	__u32 tid;
	__s32 nr;
	__u32 err;		/* positive errno */
	__u32 pad;
};

/* A thread's call in progress (task storage); ts 0: none */
struct sw_inflight {
	__u64 ts;
	__s64 nr;
};

enum sw_misc {
	SW_MISC_NR_RANGE,	/* syscall numbers outside the array (-1, x32) */
	SW_MISC_KINDS,
};

/* Records on the ring buffer "events", or with --dwarf on ustack_rb
 * after the sample of their user stack (bpf/ustack.bpf.h) */
enum sw_event_type {
	SW_EV_SLOW = 1,		/* a call slower than --slower-than */
};

struct sw_event {
	__u32 type;
	__u32 tid;
	__u32 pid;
	__s32 nr;
	__s64 ret;
	__u64 ts;		/* bpf_ktime_get_ns() at the exit */
	__u64 lat_ns;
	__u64 exec_id;		/* the process's image (bpf/announce.h) */
	/* the user stack: an id of the stack engine (bpf/stackeng.h), whose
	 * frames went on stack_rb before this record; with --dwarf
	 * STACK_IN_SAMPLE, the sample seq on ustack_rb before it */
	__u64 ustack;
	__u64 seq;		/* --dwarf: the sample's seq, 0: none */
	char comm[TASK_COMM_LEN];
};

#endif
