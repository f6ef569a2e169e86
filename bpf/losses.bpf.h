/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef SUITE_LOSSES_BPF_H
#define SUITE_LOSSES_BPF_H

#include "losses.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LOSS_KINDS);
	__type(key, __u32);
	__type(value, __u64);
} losses SEC(".maps");

static __always_inline void loss_inc(__u32 kind)
{
	__u64 *v = bpf_map_lookup_elem(&losses, &kind);

	if (v)
		(*v)++;
}

/* The result of a map update or creation: a failure is counted by its
 * cause, a full map (-E2BIG) as kind_full, no kernel memory for a new
 * element (-ENOMEM) as LOSS_NOMEM, anything else as LOSS_OTHER */
static __always_inline long update_checked(long err, __u32 kind_full)
{
	if (!err)
		return 0;
	if (err == -7 /* E2BIG */)
		loss_inc(kind_full);
	else if (err == -12 /* ENOMEM */)
		loss_inc(LOSS_NOMEM);
	else
		loss_inc(LOSS_OTHER);
	return err;
}

/* A stack id from bpf_get_stackid(), with its failure counted */
static __always_inline int stackid_checked(int id, bool user)
{
	if (id >= 0)
		return id;
	if (id == -17 /* EEXIST */)
		loss_inc(LOSS_STACK_COLLISION);
	else if (id == -12 /* ENOMEM */)
		loss_inc(LOSS_STACK_FULL);
	else
		loss_inc(user ? LOSS_USTACK : LOSS_KSTACK);
	return id;
}

#endif
