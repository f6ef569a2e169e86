/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What the raw_syscalls tracepoints leave to the registers (syswatch,
 * hotcheck). */
#ifndef SUITE_SYSREGS_BPF_H
#define SUITE_SYSREGS_BPF_H

#include <bpf/bpf_core_read.h>

/* The syscall number at the exit, from the registers, for calls whose
 * entry was not seen */
static __always_inline long regs_nr(struct pt_regs *regs)
{
#if defined(__TARGET_ARCH_x86)
	return BPF_CORE_READ(regs, orig_ax);
#elif defined(__TARGET_ARCH_arm64)
	return BPF_CORE_READ(regs, syscallno);
#else
	return -1;
#endif
}

#endif
