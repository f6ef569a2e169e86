/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The target filter: the first thing every program does, so tasks that
 * are not traced pay one or two compares.  User space fills it through
 * tools/lib/filter.h. */
#ifndef SUITE_FILTER_BPF_H
#define SUITE_FILTER_BPF_H

#include "filter.h"

const volatile struct target_filter tfilter = {};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);		/* sized by user space */
	__type(key, __u32);
	__type(value, __u8);
} target_tgids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u8);
} target_tids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* number of possible CPUs */
	__type(key, __u32);
	__type(value, __u8);
} target_cpus SEC(".maps");

/* Is (tgid, tid) traced? -p and -t add up: a task matches either. */
static __always_inline bool target_task(__u32 tgid, __u32 tid)
{
	if (!tfilter.by_pid && !tfilter.by_tid)
		return true;
	if (tfilter.by_pid) {
		if (tfilter.one_tgid) {
			if (tgid == tfilter.one_tgid)
				return true;
		} else if (bpf_map_lookup_elem(&target_tgids, &tgid)) {
			return true;
		}
	}
	if (tfilter.by_tid) {
		if (tfilter.one_tid) {
			if (tid == tfilter.one_tid)
				return true;
		} else if (bpf_map_lookup_elem(&target_tids, &tid)) {
			return true;
		}
	}
	return false;
}

static __always_inline bool target_cpu(__u32 cpu)
{
	__u8 *on;

	if (!tfilter.by_cpu)
		return true;
	on = bpf_map_lookup_elem(&target_cpus, &cpu);
	return on && *on;
}

#endif
