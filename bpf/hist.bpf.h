/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Recording into the shared log-linear histogram from BPF. */
#ifndef SUITE_HIST_BPF_H
#define SUITE_HIST_BPF_H

#include "hist.h"

static __always_inline void hist_add(struct hist *h, __u64 v)
{
	__u32 slot = hist_slot(v);

	if (slot >= HIST_SLOTS)
		slot = HIST_SLOTS - 1;
	__sync_fetch_and_add(&h->slots[slot], 1);
	__sync_fetch_and_add(&h->count, 1);
	__sync_fetch_and_add(&h->sum, v);
	/* compare-and-swap, so concurrent CPUs never lose the maximum */
	__u64 old = h->max;
	for (int i = 0; i < 8 && v > old; i++) {
		__u64 prev = __sync_val_compare_and_swap(&h->max, old, v);

		if (prev == old)
			break;
		old = prev;
	}
	old = h->nmin;
	for (int i = 0; i < 8 && ~v > old; i++) {
		__u64 prev = __sync_val_compare_and_swap(&h->nmin, old, ~v);

		if (prev == old)
			break;
		old = prev;
	}
}

/* The same without atomic instructions, for a histogram that only one
 * writer updates at a time: a per-CPU map value, or a value keyed by
 * thread that only that thread's events update.  Several times cheaper
 * than hist_add() on a hot path. */
static __always_inline void hist_add_local(struct hist *h, __u64 v)
{
	__u32 slot = hist_slot(v);

	if (slot >= HIST_SLOTS)
		slot = HIST_SLOTS - 1;
	h->slots[slot]++;
	h->count++;
	h->sum += v;
	if (v > h->max)
		h->max = v;
	if (~v > h->nmin)
		h->nmin = ~v;
}

#endif
