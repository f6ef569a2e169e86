/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Stolen time: how long the hypervisor kept each CPU from running, as
 * the kernel of an x86 KVM guest keeps it (the per-CPU variable
 * steal_time, struct kvm_steal_time, written by the host at each entry
 * into the guest; /proc/stat's steal column is its tick-granular sum).
 * BPF: bpf/steal.bpf.h; user space: tools/lib/steal.c. */
#ifndef SUITE_STEALTIME_H
#define SUITE_STEALTIME_H

#define STEAL_MAX_CPUS 1024	/* CPUs a steal_cpus array holds */

/* One reading of a CPU's kvm_steal_time */
struct steal_sample {
	__u64 steal;		/* ns stolen since the host began to report */
	__u32 version;		/* 0: the host never wrote it (steal time not
				 * reported); odd: being written (read again) */
	__u32 ok;		/* 1: read; 0: not available on this kernel */
};

/* Per CPU, from the events that run on it (the tick, IRQ entry): what
 * was stolen between two such events, at the resolution of those events */
struct steal_cpu {
	__u64 samples;		/* readings with a version (host reports) */
	__u64 last;		/* the last reading's steal */
	__u64 last_ts;		/* CLOCK_MONOTONIC ns of that reading */
	__u64 max_delta;	/* most stolen between two readings in the window */
	__u64 max_ts;		/* the later reading of that pair */
	__u64 steps;		/* readings in the window that found more stolen */
	__u32 version;		/* the last reading's version */
	__u32 pad;
	__u64 first;		/* the first reading in the window's steal */
	__u64 first_ts;		/* and when (0: none yet) */
	__u64 addr;		/* where the CPU's kvm_steal_time is, found
				 * by its run queue (0: by the ksym, or not yet) */
};

#endif
