/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The faults pfwatch recorded: the entries drained from the counts maps
 * (each drain's values combined), and with --dwarf those that came with a user-stack sample,
 * counted here as they arrive. */
#ifndef PFWATCH_COLLECT_H
#define PFWATCH_COLLECT_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include "pfwatch.h"

struct aggmap;
struct dwunw;
struct hashmap;

struct entry {
	struct pf_key key;
	struct pf_val val;
	bool dwarf;		/* key.ustack is STACK_ID_MIN + a dwunw stack id */
};

/* What a run collected: the page faults, by thread and stack */
struct faults {
	struct entry *e;
	size_t n, cap;
	/* totals: [0] after warm-up, [1] warm-up */
	__u64 major[2], minor[2];
	/* entries: as printed (those that print the same merged), and
	 * the stacks seen before that merge */
	size_t stacks[2], stacks_seen[2];
	/* --dwarf only: the unwinder and the faults counted by key
	 * (key.ustack: STACK_ID_MIN + the unwound stack's id, or STACK_LOST) */
	struct dwunw *dw;
	struct hashmap *dw_recs;
};

/* --dwarf: the unwinder and the table of its faults */
void collected_dwarf(struct faults *c);
/* The ring-buffer callback of ustack_rb (ctx: the collected) */
int collected_on_sample(void *ctx, void *data, size_t size);
/* How two values of one key join (agg_combine_fn): one drain's into
 * what the key had */
void pf_val_combine(void *dst, const void *src);
/* What the drains of the counts maps gathered and the --dwarf faults,
 * into c->e */
void collected_read(struct faults *c, struct aggmap *counts);
/* warm-up last, then most faults first */
void collected_sort(struct faults *c);
void collected_free(struct faults *c);

#endif
