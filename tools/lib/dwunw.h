/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* DWARF unwinding of user-stack samples taken in BPF (bpf/ustack.bpf.h),
 * for binaries built without frame pointers (--dwarf). */
#ifndef SUITE_DWUNW_H
#define SUITE_DWUNW_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "ustack.h"

enum dwunw_end {
	DWUNW_COMPLETE,		/* reached the outermost frame */
	DWUNW_COPY_SHORT,	/* needed stack beyond the copy */
	DWUNW_NO_CFI,		/* a frame without unwind info (JIT, stripped .eh_frame) */
	DWUNW_TOO_DEEP,		/* more frames than room */
	DWUNW_NO_PROCESS,	/* the process's maps could not be read */
	DWUNW_PAGE_ABSENT,	/* a frame on a page of the copy not in memory */
};

struct dwunw_stats {
	__u64 samples, complete, truncated, absent, no_cfi, no_process;
};

struct dwunw;

struct dwunw *dwunw_new(void);
void dwunw_free(struct dwunw *u);
/* ips: leaf first (return addresses as they are); returns the count */
int dwunw_unwind(struct dwunw *u, const struct ustack_sample *s, __u64 *ips,
		 int max, enum dwunw_end *end);
/* Unwinds a sample and keeps its stack under its seq until the tool's
 * matching record arrives; returns the stack id (see dwunw_stack) */
int dwunw_add_sample(struct dwunw *u, const struct ustack_sample *s);
/* A record read from a tool's ustack_rb: a user-stack sample is unwound
 * and kept (dwunw_add_sample).  Returns the record's type, for the
 * tool's own records (USTACK_EV_SAMPLE: taken here; 0: too short) */
__u32 dwunw_on_record(struct dwunw *u, const void *data, size_t size);
/* The stack id of sample seq, removed from the pending samples; -1 if
 * that sample never arrived (dropped) */
int dwunw_take(struct dwunw *u, __u64 seq);
/* Like dwunw_take, but the sample stays pending */
int dwunw_peek(struct dwunw *u, __u64 seq);
/* An unwound stack by id: ips leaf first, and how it ended */
const __u64 *dwunw_stack(const struct dwunw *u, int id, int *n, enum dwunw_end *end);
/* Reads the modules of process pid now, while it lives (a process that
 * exits before its samples are unwound keeps its stacks); false if not */
bool dwunw_cache_pid(struct dwunw *u, __u32 pid);
/* The same for every -p/-t target of the tool */
struct common_opts;
void dwunw_cache_targets(struct dwunw *u, const struct common_opts *o);
/* The process exec'd: its modules must be read again */
void dwunw_forget(struct dwunw *u, __u32 pid);
/* The marked frame that ends a stack that stopped early, NULL if complete */
const char *dwunw_end_frame(enum dwunw_end end);
void dwunw_stats(const struct dwunw *u, struct dwunw_stats *st);
/* One stderr line when some stacks could not be unwound to the end */
void dwunw_report(const struct dwunw *u);

#endif
