/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Stolen time read in BPF (the structs: bpf/stealtime.h).  steal_read(cpu)
 * reads a CPU's kvm_steal_time (once an event ran on it); steal_tick() keeps, per CPU, what was
 * stolen between two events that run on it; STEAL_SNAP_PROGRAM() defines
 * the program user space test-runs to read every watched CPU at the
 * window's ends (tools/lib/steal.c).
 *
 * Where the kernel's BTF lacks steal_time (not an x86 KVM guest kernel,
 * or BTF without per-CPU variables) kfeat sets kf_steal_time false
 * (bpf/compat.bpf.h): the object loads and every read says "not
 * available". */
#ifndef SUITE_STEAL_BPF_H
#define SUITE_STEAL_BPF_H

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "compat.bpf.h"
#include "stealtime.h"

/* The window's start (CLOCK_MONOTONIC ns), set by user space: readings
 * before it do not count for first, max_delta and steps */
volatile __u64 steal_window_start = 0;

#if defined(__TARGET_ARCH_x86)
#define STEAL_ARCH 1
#else
#define STEAL_ARCH 0
#endif

/* The kernel gives BPF the address of a per-CPU variable named as a ksym
 * from kallsyms, which lists them only with CONFIG_KALLSYMS_ALL (this
 * suite's test machine has not), and a program naming an unresolvable
 * one does not load even as dead code.  So steal_time is found from the
 * CPU's run queue, another per-CPU variable, whose address the current
 * task gives (task->se.cfs_rq->rq): steal_rq_delta is &steal_time -
 * &runqueues in a CPU's per-CPU area, from the offsets of the kernel
 * BTF's per-CPU section (tools/lib/steal.c, which sets it where
 * kfeat_has(KF_STEAL_TIME)). */
const volatile __s64 steal_rq_delta = 0;

/* Readings per CPU (the struct: bpf/stealtime.h), each written only on
 * its own CPU */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, STEAL_MAX_CPUS);
	__type(key, __u32);
	__type(value, struct steal_cpu);
} steal_cpus SEC(".maps");

/* The kvm_steal_time at addr into *out, version-checked: the host bumps
 * version before and after it writes steal, so an odd version, or one
 * that changed under the read, is read again (twice at most) */
static __always_inline bool steal_read_addr(__u64 addr, struct steal_sample *out)
{
	for (int i = 0; i < 3; i++) {
		__u32 v1 = 0, v2 = 0;

		if (bpf_probe_read_kernel(&v1, sizeof(v1), (void *)(addr + 8)) ||
		    bpf_probe_read_kernel(&out->steal, sizeof(out->steal), (void *)addr) ||
		    bpf_probe_read_kernel(&v2, sizeof(v2), (void *)(addr + 8)))
			return false;
		out->version = v2;
		if (v1 == v2 && !(v1 & 1))
			break;
	}
	out->ok = 1;
	return true;
}

/* The address of this CPU's kvm_steal_time by its run queue, or 0 */
static __always_inline __u64 steal_addr_here(void)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	struct cfs_rq *cfs = NULL;

	if (!kf_steal_time || !steal_rq_delta || !bpf_core_field_exists(cfs->rq))
		return 0;
	cfs = BPF_CORE_READ(t, se.cfs_rq);
	if (!cfs)
		return 0;
	return (__u64)BPF_CORE_READ(cfs, rq) + steal_rq_delta;
}

/* cpu's stolen time now into *out: false (out->ok 0) where it cannot be
 * read (no steal time in this kernel, or no event has run on cpu yet to
 * locate it) */
static __always_inline bool steal_read(__u32 cpu, struct steal_sample *out)
{
	struct steal_cpu *c;

	out->steal = 0;
	out->version = 0;
	out->ok = 0;
	if (!STEAL_ARCH || !kf_steal_time)
		return false;
	c = bpf_map_lookup_elem(&steal_cpus, &cpu);
	if (c && c->addr)
		return steal_read_addr(c->addr, out);
	return false;
}

/* At an event on this CPU (cpu: bpf_get_smp_processor_id()): one more
 * reading.  Readings of version 0 (the host does not report) are not
 * counted. */
static __always_inline void steal_tick(__u32 cpu, __u64 now)
{
	struct steal_sample r;
	struct steal_cpu *c;

	if (!STEAL_ARCH || !kf_steal_time)
		return;
	c = bpf_map_lookup_elem(&steal_cpus, &cpu);
	if (!c)
		return;
	if (!c->addr)
		c->addr = steal_addr_here();
	if (!steal_read(cpu, &r) || !r.version)
		return;
	if (now >= steal_window_start && !c->first_ts) {
		c->first = r.steal;
		c->first_ts = now;
	}
	if (c->samples && now >= steal_window_start && c->last_ts >= steal_window_start &&
	    r.steal > c->last) {
		__u64 d = r.steal - c->last;

		c->steps++;
		if (d > c->max_delta) {
			c->max_delta = d;
			c->max_ts = now;
		}
	}
	c->samples++;
	c->last = r.steal;
	c->last_ts = now;
	c->version = r.version;
}

/* One CPU read from user space, at any time: a test run of
 * steal_snapshot with ctx = { cpu, window start or 0 } (raw_tp test runs:
 * 5.10) leaves the reading in steal_snap[0] (tools/lib/steal.c) and, if
 * given, sets the window's start for steal_tick() */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct steal_sample);
} steal_snap SEC(".maps");

#define STEAL_SNAP_PROGRAM()						\
	SEC("raw_tp")							\
	int steal_snapshot(__u64 *ctx)					\
	{								\
		struct steal_sample *s;					\
		__u32 zero = 0;						\
									\
		if (ctx[1])						\
			steal_window_start = ctx[1];			\
		s = bpf_map_lookup_elem(&steal_snap, &zero);		\
		if (s)							\
			steal_read((__u32)ctx[0], s);			\
		return 0;						\
	}

#endif
