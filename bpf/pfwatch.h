/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef PFWATCH_H
#define PFWATCH_H

#define TASK_COMM_LEN 16
#define MAX_STACK_DEPTH 127
#define PF_NAME_LEN 64

/* What kind of mapping a faulting address fell in (seen from BPF) */
enum pf_map_kind {
	PF_MAP_UNKNOWN = 0,	/* the VMA could not be looked up */
	PF_MAP_ANON,
	PF_MAP_HEAP,		/* between start_brk and brk */
	PF_MAP_STACK,		/* holds the process's start_stack */
	PF_MAP_FILE,
};

/* One aggregation key: a thread, its stacks, the mapping and the phase */
struct pf_key {
	__u32 tgid;
	__u32 tid;
	__s32 ustack;		/* stack id, or < 0: none or lost */
	__s32 kstack;		/* -1: fault taken in user mode (no kernel stack) */
	__u64 map_start;	/* start of the VMA, 0: unknown */
	__u8 warmup;		/* 1: fault in the warm-up */
	__u8 kernel_mode;	/* 1: fault taken in kernel mode (e.g. copy_to_user) */
	__u8 map_kind;		/* enum pf_map_kind */
	__u8 pad[5];
	char comm[TASK_COMM_LEN];
};

struct pf_val {
	__u64 major;
	__u64 minor;
	__u64 addr_min;
	__u64 addr_max;
	__u64 map_end;		/* end of the VMA (exclusive), 0: unknown */
};

/* Counters kept per CPU (stats map) */
enum pf_stat {
	PF_STAT_MAJOR,		/* major faults of the targets the program saw */
	PF_STAT_MINOR,
	PF_STAT_DUP,		/* second event of ours for one fault, not counted */
	PF_STAT_NO_VMA,		/* VMA not looked up (mmap lock busy, ...) */
	PF_STATS,
};

/* Records on the ring buffer (announce_rb, shared with the process
 * announcements of bpf/announce.h, whose type differs) */
enum pf_event_type {
	PF_EV_NEW_VMA = 0x5646,	/* "VF": a (tgid, VMA start) seen for the first time */
};

struct pf_event {
	__u32 type;		/* PF_EV_NEW_VMA */
	__u32 tgid;
	__u64 start;		/* PF_EV_NEW_VMA: the VMA */
	__u64 end;
	__u32 kind;		/* enum pf_map_kind */
	__u32 pad;
	char name[PF_NAME_LEN];	/* file mappings: the file's base name */
};

#endif
