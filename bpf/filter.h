/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Which tasks a tool traces (-p, -t, -C), shared by BPF and user space. */
#ifndef SUITE_FILTER_H
#define SUITE_FILTER_H

struct target_filter {
	__u8 by_pid;	/* tgid must be in target_tgids (or == one_tgid) */
	__u8 by_tid;	/* tid must be in target_tids (or == one_tid) */
	__u8 by_cpu;	/* CPU must be set in target_cpus */
	__u8 pad;
	__u32 one_tgid;	/* the only -p target, compared without a lookup */
	__u32 one_tid;	/* the only -t target */
};

#endif
