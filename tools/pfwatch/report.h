/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* pfwatch's report on stdout (and the memory locking on stderr with -f) */
#ifndef PFWATCH_REPORT_H
#define PFWATCH_REPORT_H

#include <linux/types.h>
#include <stdbool.h>
#include <stdio.h>
#include "losses.h"
#include "pfwatch.h"

struct common_opts;
struct faults;
struct stacksym;
struct stackstore;
struct targets;
struct vmas;

struct folddiff;

struct report_in {
	struct stackstore *stacks;	/* the stacks, by id */
	struct stacksym *sym;
	struct vmas *vmas;
	struct targets *targets;
	struct faults *c;
	const __u64 *losses;		/* [LOSS_KINDS] */
	__u64 stats[PF_STATS];
	__u64 kernel_count;	/* the events' own count */
	bool kernel_count_valid;	/* ... comparable with what BPF saw */
	__u64 missed;
	bool task_mode;
	double warmup;			/* --warmup */
	bool folded, json;		/* -f, -j */
	FILE *pprof;			/* --pprof: where the profile goes, or NULL */
	FILE *svg;			/* --svg: where the flame graph goes, or NULL */
	struct folddiff *diff;		/* --diff: the earlier run's stacks (freed by
					 * report_faults), or NULL */
	const char *diff_path;
	const struct common_opts *opts;	/* the target, for --svg's title */
};

/* Sorts r->c, names the mappings made late, prints the report */
void report_faults(const struct report_in *r);

#endif
