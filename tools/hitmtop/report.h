/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* hitmtop's report of an aggregation: the top lines (-n) with their
 * offsets, the code that touched them and the verdict, as text (redrawn
 * on a terminal) or as JSON in the suite's envelope */
#ifndef SUITE_HITM_REPORT_H
#define SUITE_HITM_REPORT_H

#include <linux/types.h>
#include <stdbool.h>
#include <stdint.h>
#include "losses.h"
#include "model.h"
#include "sym.h"

struct hitm_report_opts {
	const char *replay;	/* the file replayed; NULL: live sampling */
	uint64_t max_lines;	/* --max-lines */
	uint64_t top;		/* -n */
	bool json;
};

/* The counts around the lines: samples, and what was not counted */
struct hitm_totals {
	uint64_t samples, kept, hitm, lines;
	struct hitm_other other;	/* folded to stay within --max-lines */
	uint64_t skips[HITM_SKIP_KINDS];
	__u64 losses[LOSS_KINDS];
	uint64_t malformed;
	double seconds;
};

/* Report the top lines of a (the kernel's skips are in t->skips) */
void hitm_report(const struct hitm_report_opts *ro, struct hitm_symcache *s,
		 const struct hitm_agg *a, struct hitm_totals *t, bool redraw);

#endif
