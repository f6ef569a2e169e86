/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* "A process whose user stacks were recorded": sent once per process (and
 * again after exec) so that user space can capture what it needs to name
 * the frames (stacksym_cache_pid) while the process still lives.
 * BPF: bpf/announce.bpf.h; user space: tools/lib/stacksym.c. */
#ifndef SUITE_ANNOUNCE_H
#define SUITE_ANNOUNCE_H

#define ANNOUNCE_EV_NEW_PROCESS 0x414e	/* "AN" */

/* The image of a process (bpf/image.bpf.h): one number per process
 * instance and exec, ordered (a later process with the same pid, or a
 * later exec of the same one, has a greater number), 0 never.  Bits 63..16:
 * the start time of the process (CLOCK_BOOTTIME, in units of 1024 ns: the
 * same pid is not given twice within a microsecond; 2^58 ns, 9 years of
 * uptime), checked by user space against /proc/PID/stat before it reads
 * the process for this image; bits 15..0: the kernel's exec count
 * (task->self_exec_id), modulo 2^16.  The symbolizer reads the same
 * layout (BLAZE_IMAGE_* in blazesym-shim/blazesym.h). */
#define IMAGE_EXEC_BITS 16
#define IMAGE_START_SHIFT 10
#define IMAGE_ID(start_ns, exec_id)						\
	((((__u64)(start_ns) >> IMAGE_START_SHIFT) << IMAGE_EXEC_BITS) |	\
	 ((__u64)(exec_id) & ((1ull << IMAGE_EXEC_BITS) - 1)))

struct announce_event {
	__u32 type;	/* ANNOUNCE_EV_NEW_PROCESS */
	__u32 tgid;
	__u64 exec_id;	/* its image (IMAGE_ID above) */
};

#endif
