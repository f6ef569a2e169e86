/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The processes pfwatch traces (those of -p, and those of the threads of
 * -t) and the memory locking of each, read at the start, polled while
 * tracing and read again at the end. */
#ifndef PFWATCH_TARGETS_H
#define PFWATCH_TARGETS_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include "memlock.h"
#include "pfwatch.h"

struct common_opts;

struct target {
	__u32 pid;
	char comm[TASK_COMM_LEN];
	struct memlock start, last;
	bool ended;		/* gone: last is what was seen last */
};

struct targets {
	struct target *t;
	size_t n;
	__u64 last_refresh_ns;
};

/* Each process of o's -p and -t once, with its memory locking now */
void targets_init(struct targets *ts, const struct common_opts *o);
/* The last state seen (every 250 ms at most, unless final) */
void targets_refresh(struct targets *ts, bool final);
void targets_free(struct targets *ts);

#endif
