/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef PFWATCH_H
#define PFWATCH_H

#define TASK_COMM_LEN 16
#define MAX_STACK_DEPTH 127

/* Faults announce each new 2 MiB region of an address space, so that
 * user space reads /proc/PID/maps while the mapping there lives */
#define PF_REGION_SHIFT 21

/* One aggregation key: a thread, its stacks and the phase (the comm is in
 * the value: not hashed at every fault) */
struct pf_key {
	__u32 tgid;
	__u32 tid;
	__s32 ustack;		/* stack id, or < 0: none or lost */
	__s32 kstack;		/* -1: fault taken in user mode (no kernel stack) */
	__u8 warmup;		/* 1: fault in the warm-up */
	__u8 kernel_mode;	/* 1: fault taken in kernel mode (e.g. copy_to_user) */
	__u8 pad[6];
	__u64 exec_id;		/* the process's image (bpf/announce.h): its
				 * stacks, mappings and comm are its own */
};

/* per CPU in the map; user space adds them up */
struct pf_val {
	__u64 major;
	__u64 minor;
	__u64 addr_min;		/* 0: no fault on this CPU */
	__u64 addr_max;
	char comm[TASK_COMM_LEN];	/* the thread's name at its first fault
					 * (of this key: in this image) */
};

/* Counters kept per CPU (stats map) */
enum pf_stat {
	PF_STAT_MAJOR,		/* major faults of the targets the program saw */
	PF_STAT_MINOR,
	PF_STAT_DUP,		/* second event of ours for one fault, not counted */
	PF_STATS,
};

/* Records on the ring buffer (announce_rb, shared with the process
 * announcements of bpf/announce.h, whose type differs) */
enum pf_event_type {
	PF_EV_NEW_REGION = 0x5646,	/* "VF": a fault in a region not seen before */
};

struct pf_event {
	__u32 type;		/* PF_EV_NEW_REGION */
	__u32 tgid;
	__u64 addr;		/* the faulting address */
	__u64 exec_id;		/* the image of the process */
};

/* --dwarf: the user stack is a sample on ustack_rb (bpf/ustack.h),
 * followed there by its fault; user space unwinds and counts those.
 * Faults without a sample stay in the counts map as usual. */
#define PF_USTACK_DWARF		-1000	/* key.ustack: in a sample, see seq */
#define PF_USTACK_LOST		-1001	/* the sample could not be taken */
#define PF_EV_FAULT		0x4650	/* "PF" */

struct pf_fault {
	__u32 type;		/* PF_EV_FAULT */
	__u32 major;
	__u64 seq;		/* its sample */
	__u64 addr;
	struct pf_key key;	/* ustack: PF_USTACK_DWARF */
	char comm[TASK_COMM_LEN];
};

#endif
