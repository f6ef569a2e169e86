/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Aggregation maps that never fill up over a long run: each is two hash
 * maps, NAME_a and NAME_b, of which the programs write the one agg_slot
 * names.  User space (tools/lib/agg.c) flips agg_slot while tracing,
 * waits until no program can still be writing the other one (an RCU
 * grace period: every program that started before the flip has ended),
 * moves that one's entries into its own table and empties it.  So a map
 * holds only the keys of one drain interval, and the run's keys are
 * bounded by user-space memory alone. */
#ifndef SUITE_AGG_BPF_H
#define SUITE_AGG_BPF_H

#include "losses.bpf.h"
#include "maps.bpf.h"

/* which of the two maps the programs write: flipped by user space */
volatile __u32 agg_slot = 0;

/* Keys created since the last drain, summed over CPUs by user space:
 * it drains early when a map gets half full */
COUNTER_MAP(agg_new, 1, agg_new_inc)

#define AGG_MAP(name, key, value, entries)				\
	HASH_MAP(name##_a, key, value, entries);			\
	HASH_MAP(name##_b, key, value, entries)

/* The value of key in map, created as *zero if new; NULL if it could not
 * be (the n events it was for counted: LOSS_AGG_FULL when the map is
 * full) */
static __always_inline void *agg_value_in(void *map, const void *key, const void *zero,
					  __u64 n)
{
	void *v = bpf_map_lookup_elem(map, key);
	long err;

	if (v)
		return v;
	err = bpf_map_update_elem(map, key, zero, BPF_NOEXIST);
	if (err && err != -17 /* EEXIST: another CPU made it */) {
		update_checked_n(err, LOSS_AGG_FULL, n);
		return NULL;
	}
	if (!err)
		agg_new_inc(0);
	return bpf_map_lookup_elem(map, key);
}

/* The value of key in aggregation map name, in the slot being written,
 * for n events (lost if it cannot be made) */
#define AGG_VALUE_N(name, key, zero, n)					\
	(agg_slot & 1 ? agg_value_in(&name##_b, key, zero, n)		\
		      : agg_value_in(&name##_a, key, zero, n))

/* The same for one event */
#define AGG_VALUE(name, key, zero) AGG_VALUE_N(name, key, zero, 1)

#endif
