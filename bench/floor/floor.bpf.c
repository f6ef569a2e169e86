// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The floor of make bench: the least a BPF program on a hook can cost.
 * Each program does one per-CPU array lookup and one add, nothing else;
 * bench/floor/floor.c attaches the ones asked for. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

enum { HIT_SWITCH, HIT_SYS_ENTER, HIT_SYS_EXIT, HIT_FAULT_TP, HIT_FAULT_PERF, HIT_MAX };

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, HIT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} hits SEC(".maps");

static __always_inline int hit(__u32 i)
{
	__u64 *n = bpf_map_lookup_elem(&hits, &i);

	if (n)
		*n += 1;
	return 0;
}

/* One program per hook: floor_NAME, in section SECTION, counting in slot I */
#define FLOOR(section, name, i)						\
	SEC(section)							\
	int floor_##name(void *ctx)					\
	{								\
		return hit(i);						\
	}

FLOOR("tp_btf/sched_switch", sched_switch, HIT_SWITCH)
FLOOR("raw_tp/sys_enter", sys_enter, HIT_SYS_ENTER)
FLOOR("raw_tp/sys_exit", sys_exit, HIT_SYS_EXIT)
FLOOR("tp_btf/page_fault_user", page_fault_user, HIT_FAULT_TP)
FLOOR("perf_event", page_faults, HIT_FAULT_PERF)

char LICENSE[] SEC("license") = "Dual BSD/GPL";
