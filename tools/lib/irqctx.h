/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* User-space half of bpf/irqctx.bpf.h: where this CPU's preempt count
 * lies, for the BPF programs that tell interrupt context from a task. */
#ifndef SUITE_LIB_IRQCTX_H
#define SUITE_LIB_IRQCTX_H

#include <stdbool.h>
#include <linux/types.h>
#include "../../bpf/irqctx.h"	/* the BPF half's enum irqctx (the same name, in bpf/) */

/* Where this CPU's preempt count and cpu_number are, relative to its
 * runqueue: offsets in the kernel's per-CPU section, from its BTF.  The
 * preempt count is the per-CPU variable __preempt_count (x86, up to 6.1
 * and from 6.15), or a member of pcpu_hot (6.2 to 6.14).  From /proc/
 * kallsyms where the BTF has no per-CPU variables (5.10's).  False if the
 * layout is not found (other architectures). */
bool irqctx_percpu_layout(__s64 *pc_from_rq, __s64 *cpu_from_rq);

struct btf;
/* Offset in bytes of member name of struct or union type_id (through
 * typedefs and qualifiers), looked for in its anonymous members too, as
 * pcpu_hot keeps preempt_count; -1 if absent.  depth: 0. */
long irqctx_member_offset(const struct btf *btf, __u32 type_id, const char *name, int depth);

/* "task", "hardirq", "softirq", "nmi" (enum irqctx) */
const char *irqctx_name(__u32 ctx);
/* "[task]", "[hardirq]", ...: in place of a waker's comm */
const char *irqctx_label(__u32 ctx);
/* "per-CPU preempt count", ... for enum irqctx_source */
const char *irqctx_source_name(__u32 src);
/* "TIMER", "NET_RX", ... for a softirq vector ("softirq N" beyond the
 * kernel's table) */
const char *irqctx_softirq_name(__u32 vec);

#endif
