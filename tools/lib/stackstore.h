/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The stack engine's user-space half (bpf/stackeng.h says how it works):
 * the frames of every stack the BPF side saw, by id, read off stack_rb
 * while tracing and kept for the whole run. */
#ifndef SUITE_STACKSTORE_H
#define SUITE_STACKSTORE_H

#include <linux/types.h>
#include <stddef.h>
#include <stdint.h>

struct stackstore;

struct stackstore_stats {
	uint64_t stacks;	/* distinct stacks kept */
	uint64_t frames;	/* their frames */
	uint64_t resent;	/* records of a stack already kept (the kernel's
				 * set of seen ids forgot it) */
	uint64_t collisions;	/* two different stacks with one id (a 64-bit
				 * hash): the first one is kept */
	uint64_t missing;	/* look-ups of an id whose frames never came */
};

struct stackstore *stackstore_new(void);
void stackstore_free(struct stackstore *st);
/* ring_buffer__new() callback for stack_rb; ctx is the stackstore */
int stackstore_on_event(void *ctx, void *data, size_t size);
/* The frames of stack id, leaf first, *n of them; NULL (counted as
 * missing) if it never arrived */
const __u64 *stackstore_get(struct stackstore *st, __u64 id, int *n);
void stackstore_stats(const struct stackstore *st, struct stackstore_stats *s);
/* One stderr line if stacks collided or went missing */
void stackstore_report(const struct stackstore *st);

#endif
