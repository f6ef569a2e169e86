/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* syswatch's report: the tables, histograms and calls in progress in
 * plain text, or the same as one JSON document, and the --check verdict. */
#ifndef SYSWATCH_REPORT_H
#define SYSWATCH_REPORT_H

#include <linux/types.h>
#include <stddef.h>
#include "collect.h"
#include "losses.h"
#include "options.h"
#include "run.h"
#include "stream.h"

/* What the report says besides the rows */
struct sw_summary {
	char who[256];		/* the targets, "pid 42" */
	__u64 total;		/* calls seen, whole or not */
	__u64 in_progress;	/* of those, in progress at the stop */
	char verdict[400];	/* "12 syscalls by tid 4242 in 60 s" */
};

/* The verdict of s: the -d duration when it ran out, else the time traced */
void report_verdict(struct sw_summary *s, const struct sw_opts *o, enum run_end end);
void report_plain(const struct calls *c, const struct sw_opts *o);
void report_json(const struct calls *c, const struct slow_calls *slow,
		 const struct sw_opts *o, const __u64 losses[LOSS_KINDS],
		 const struct sw_summary *s);

#endif
