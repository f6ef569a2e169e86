/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef SUITE_LOSSES_BPF_H
#define SUITE_LOSSES_BPF_H

#include "losses.h"
#include "maps.bpf.h"

/* losses: what could not be recorded, by enum loss_kind */
COUNTER_MAP(losses, LOSS_KINDS, loss_inc)

/* The result of a map update or creation that, failing, loses n events:
 * they are counted by the cause, a full map (-E2BIG) as kind_full, no
 * kernel memory for a new element (-ENOMEM) as LOSS_NOMEM, anything else
 * as LOSS_OTHER */
static __always_inline long update_checked_n(long err, __u32 kind_full, __u64 n)
{
	__u32 kind;
	__u64 *v;

	if (!err)
		return 0;
	if (err == -7 /* E2BIG */)
		kind = kind_full;
	else if (err == -12 /* ENOMEM */)
		kind = LOSS_NOMEM;
	else
		kind = LOSS_OTHER;
	v = bpf_map_lookup_elem(&losses, &kind);
	if (v)
		*v += n;
	return err;
}

/* The same for a failure that loses one event */
static __always_inline long update_checked(long err, __u32 kind_full)
{
	return update_checked_n(err, kind_full, 1);
}

#endif
