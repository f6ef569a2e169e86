/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Draining the double-buffered aggregation maps of bpf/agg.bpf.h while
 * tracing, so that they never fill up: every entry moves into a table of
 * user space, by key, its value combined with what the key had.
 *
 * A drain flips agg_slot, waits for an RCU grace period (no program that
 * may still write the old slot is left running: the kernel waits for one
 * when an element of a map of maps is replaced), then reads and empties
 * the old slot's maps.  It runs from the tracing loop every second when
 * keys were created, or at once when the maps are half full (agg_tick),
 * and at the end (agg_finish). */
#ifndef SUITE_AGG_H
#define SUITE_AGG_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bpf_map;
struct hashmap;
struct agg;
struct aggmap;

/* How a drained value joins the table's: dst += src (NULL: every field is
 * a __u64 added) */
typedef void (*agg_combine_fn)(void *dst, const void *src);

/* The object's set: its agg_slot (&skel->bss->agg_slot) and agg_new
 * counter map; NULL on failure (errno set) */
struct agg *agg_new(volatile __u32 *slot, struct bpf_map *new_keys);
void agg_free(struct agg *a);
/* One aggregation map (NAME_a, NAME_b of AGG_MAP) into a table of keys
 * of key_size and values of val_size; per-CPU maps have their CPUs'
 * values combined */
struct aggmap *agg_add(struct agg *a, struct bpf_map *ma, struct bpf_map *mb,
		       agg_combine_fn combine);
/* From the loop: drains when due.  0 or a negative errno */
int agg_tick(struct agg *a);
/* After detaching: both slots drained (the programs ran their last) */
int agg_finish(struct agg *a);
/* One value that never was in the maps (a program's per-CPU remainder,
 * read after detaching) into m's table, combined with key's */
void agg_merge(struct aggmap *m, const void *key, const void *val);
/* The table: key -> value, every entry drained so far */
struct hashmap *agg_table(const struct aggmap *m);
/* Drains done, for the verbose line */
uint64_t agg_drains(const struct agg *a);

#endif
