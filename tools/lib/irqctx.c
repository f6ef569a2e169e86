// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "irqctx.h"
#include "msg.h"
#include "procfs.h"

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

/* Offset of a member of a struct or union, in bytes, looked for in its
 * anonymous members too (6.2 to 6.14 keep x86's preempt_count and
 * cpu_number in an anonymous struct of a union in pcpu_hot); -1 if
 * absent.  depth bounds the descent. */
long irqctx_member_offset(const struct btf *btf, __u32 type_id, const char *name, int depth)
{
	const struct btf_type *t;
	const struct btf_member *m;
	int id = btf__resolve_type(btf, type_id);

	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	if (!t || !btf_is_composite(t) || depth > 8)
		return -1;
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *mname = btf__name_by_offset(btf, m->name_off);
		long in;

		if (mname && *mname) {
			if (!strcmp(mname, name))
				return btf_member_bit_offset(t, i) / 8;
			continue;
		}
		in = irqctx_member_offset(btf, m->type, name, depth + 1);
		if (in >= 0)
			return btf_member_bit_offset(t, i) / 8 + in;
	}
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
				if ((m = irqctx_member_offset(btf, v->type, "preempt_count", 0)) >= 0)
					pc = vs->offset + m;
				if ((m = irqctx_member_offset(btf, v->type, "cpu_number", 0)) >= 0)
					cpu = vs->offset + m;
			}
		}
		break;
	}
	btf__free(btf);
	if (rq < 0 || pc < 0 || cpu < 0) {
		/* BTF without per-CPU variables (pahole before 1.18: Debian's
		 * 5.10): kallsyms lists them, at their offsets in the per-CPU
		 * section, where CONFIG_KALLSYMS_ALL is set (the BPF side
		 * still checks cpu_number before trusting the layout) */
		static const char *const names[3] = { "runqueues", "__preempt_count",
						       "cpu_number" };
		uint64_t at[3];

		if (kallsyms_addrs(names, at, 3) != 3 || !at[0] || !at[1] || !at[2] ||
		    at[0] == at[1] || at[0] == at[2] || at[1] == at[2])
			return false;
		rq = (long)at[0];
		pc = (long)at[1];
		cpu = (long)at[2];
	}
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
