/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* pfwatch: what crosses between bpf/pfwatch.bpf.c and user space
 * (tools/pfwatch/). */
#ifndef PFWATCH_H
#define PFWATCH_H

#include "announce.h"
#include "stackeng.h"

#define TASK_COMM_LEN 16

/* Faults announce each new 2 MiB region of an address space, so that
 * user space reads /proc/PID/maps while the mapping there lives */
#define PF_REGION_SHIFT 21

/* One aggregation key: a thread, its stacks and the phase (the comm is in
 * the value: not hashed at every fault) */
struct pf_key {
	__u32 tgid;
	__u32 tid;
	__u64 ustack;		/* stack ids, or marks (bpf/stackeng.h) */
	__u64 kstack;		/* STACK_NONE: fault taken in user mode */
	__u8 warmup;		/* 1: fault in the warm-up */
	__u8 kernel_mode;	/* 1: fault taken in kernel mode (e.g. copy_to_user) */
	__u8 pad[6];
	__u64 exec_id;		/* the process's image (bpf/announce.h): its
				 * stacks, mappings and comm are its own */
};

/* One entry's value; user space combines those of its drains (counts
 * added, the lowest and highest address kept, the first comm seen) */
struct pf_val {
	__u64 major;
	__u64 minor;
	__u64 addr_min;		/* 0: no fault on this CPU */
	__u64 addr_max;
	char comm[TASK_COMM_LEN];	/* the thread's name at its first fault
					 * (of this key: in this image) */
};

/* Per CPU (map pending): the faults of one key not yet added to the
 * counts map.  A thread faulting again and again in one place (the usual
 * case) then costs no hash-map look-up per fault: its faults are summed
 * here, and added to the map when a fault of another key comes to this
 * CPU.  User space adds what is left after the programs stopped. */
struct pf_pending {
	struct pf_key key;
	struct pf_val val;
	__u64 n;		/* faults held; 0: none */
};

/* Counters kept per CPU (stats map) */
enum pf_stat {
	PF_STAT_MAJOR,		/* major faults of the targets the program saw */
	PF_STAT_MINOR,
	PF_STAT_DUP,		/* second event of ours for one fault, not counted */
	PF_STATS,
};

/* Records on the ring buffer announce_rb, besides the process
 * announcements of bpf/announce.h: they begin as one, with a type of
 * their own */
enum pf_event_type {
	PF_EV_NEW_REGION = 0x5646,	/* "VF": a fault in a region not seen before */
};

struct pf_event {
	struct announce_event a;	/* type PF_EV_NEW_REGION, the process
					 * and its image */
	__u64 addr;		/* the faulting address */
};

/* --dwarf: the user stack is a sample on ustack_rb (bpf/ustack.h),
 * followed there by its fault; user space unwinds and counts those.
 * Faults without a sample (key.ustack STACK_LOST) stay in the counts map
 * as usual. */
#define PF_EV_FAULT		0x4650	/* "PF" */

struct pf_fault {
	__u32 type;		/* PF_EV_FAULT */
	__u32 major;
	__u64 seq;		/* its sample */
	__u64 addr;
	struct pf_key key;	/* ustack: STACK_IN_SAMPLE */
	char comm[TASK_COMM_LEN];
};

#endif
