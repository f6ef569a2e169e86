// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "irqctx.h"
#include "msg.h"

#include <string.h>
#include <bpf/btf.h>

static const char *const sources[] = {
	[IRQCTX_SRC_NONE] = "none",
	[IRQCTX_SRC_PERCPU] = "per-CPU preempt count",
	[IRQCTX_SRC_THREAD_INFO] = "thread_info.preempt_count",
	[IRQCTX_SRC_IRQ_EVENTS] = "irq/softirq tracepoints",
};

static const char *const names[] = {
	[IRQCTX_TASK] = "task",
	[IRQCTX_HARDIRQ] = "hardirq",
	[IRQCTX_SOFTIRQ] = "softirq",
	[IRQCTX_NMI] = "nmi",
};

static const char *const labels[] = {
	[IRQCTX_TASK] = "[task]",
	[IRQCTX_HARDIRQ] = "[hardirq]",
	[IRQCTX_SOFTIRQ] = "[softirq]",
	[IRQCTX_NMI] = "[nmi]",
};

const char *irqctx_name(__u32 ctx)
{
	return ctx < ARRAY_SIZE(names) ? names[ctx] : "unknown";
}

const char *irqctx_label(__u32 ctx)
{
	return ctx < ARRAY_SIZE(labels) ? labels[ctx] : "[unknown]";
}

const char *irqctx_source_name(__u32 src)
{
	return src < ARRAY_SIZE(sources) ? sources[src] : "unknown";
}

/* Offset of a member of a struct, in bytes; -1 if absent */
static long member_offset(const struct btf *btf, __u32 type_id, const char *name)
{
	const struct btf_type *t = btf__type_by_id(btf, type_id);
	const struct btf_member *m;

	if (!t || !btf_is_struct(t))
		return -1;
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), name))
			return btf_member_bit_offset(t, i) / 8;
	return -1;
}

bool irqctx_percpu_layout(__s64 *pc_from_rq, __s64 *cpu_from_rq)
{
	struct btf *btf = btf__load_vmlinux_btf();
	long rq = -1, pc = -1, cpu = -1;
	__u32 n;

	if (!btf)
		return false;
	n = btf__type_cnt(btf);
	for (__u32 id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_var_secinfo *vs;

		if (!btf_is_datasec(t) ||
		    strcmp(btf__name_by_offset(btf, t->name_off), ".data..percpu"))
			continue;
		vs = btf_var_secinfos(t);
		for (int i = 0; i < btf_vlen(t); i++, vs++) {
			const struct btf_type *v = btf__type_by_id(btf, vs->type);
			const char *name = btf__name_by_offset(btf, v->name_off);
			long m;

			if (!strcmp(name, "runqueues")) {
				rq = vs->offset;
			} else if (!strcmp(name, "__preempt_count")) {
				pc = vs->offset;
			} else if (!strcmp(name, "cpu_number")) {
				cpu = vs->offset;
			} else if (!strcmp(name, "pcpu_hot")) {
				if ((m = member_offset(btf, v->type, "preempt_count")) >= 0)
					pc = vs->offset + m;
				if ((m = member_offset(btf, v->type, "cpu_number")) >= 0)
					cpu = vs->offset + m;
			}
		}
		break;
	}
	btf__free(btf);
	if (rq < 0 || pc < 0 || cpu < 0)
		return false;
	*pc_from_rq = pc - rq;
	*cpu_from_rq = cpu - rq;
	return true;
}

static const char *const softirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET",
	"SCHED", "HRTIMER", "RCU",
};

const char *irqctx_softirq_name(__u32 vec)
{
	static char buf[32];

	if (vec < ARRAY_SIZE(softirq_names))
		return softirq_names[vec];
	snprintf(buf, sizeof(buf), "softirq %u", vec);
	return buf;
}
