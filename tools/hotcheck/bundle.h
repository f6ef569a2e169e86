/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* -o DIR: the evidence bundle of a run, for a postmortem.
 *
 * DIR is made with mode 0700 (it holds the names and stacks of the traced
 * process), or an existing empty directory is taken as it is; a DIR that
 * exists and is not empty, is not a directory, or is a symbolic link is
 * refused.  In it, each file created with O_EXCL | O_NOFOLLOW, mode 0644:
 *
 *   report.json        the -j document (the caller's write_json)
 *   syscalls.folded    hot threads' stacks at their syscalls: microseconds in them
 *   faults.folded      at their page faults: number of faults
 *   blocks.folded      at their voluntary waits: microseconds off CPU
 *   wakers.folded      the wakers' stacks: number of wakeups
 *   preemptions.folded at their preemptions: microseconds preempted
 *   NAME.svg           beside each NAME.folded: its lines as a flame graph
 *                      (tools/lib/flamesvg.h), the same values in the same
 *                      unit, titled "hotcheck: KIND: WHAT of TARGET, WINDOW"
 *   timeline.tsv       every event, one a line (columns in HC_TSV_HEADER)
 *   summary.txt        the window, the verdict's rows, the correlation's
 *                      summary and the baseline's table when given
 *
 * Folded lines are the suite's (docs/CLI.md "Folded stacks"), the
 * timeline's stacks as they are, one line per unique stack in byte order;
 * an event without a stack counts under "[no stack]" (wakers.folded: the
 * waker's comm alone when only that is known, "[waker unknown]" else).
 *
 * Every write is checked (tools/lib/output.c): a failure is said once,
 * "-o: cannot write DIR/FILE: REASON", the bundle stops there (the files
 * already written stay) and the exit status becomes 2.
 *
 * Calls, from hotcheck.c: hc_bundle_open() when the options are read (a
 * failure is exit 2: "-o: " and the message); after the report,
 * hc_bundle_write(); then hc_bundle_close(). */
#ifndef HOTCHECK_BUNDLE_H
#define HOTCHECK_BUNDLE_H

#include <stdio.h>

#include "timeline.h"

struct hc_correlation;
struct hc_compare;

#define HC_TSV_HEADER                                                          \
	"# mono_ns\trealtime_ns\tkind\ttid\tcpu\tdur_ns\twhat\tactor\tactor_tid\t" \
	"stack\twaker_stack\n"

struct hc_bundle {
	int dirfd;
	char *path;
};

struct hc_bundle_src {
	const struct hc_timeline *tl;
	void (*write_json)(FILE *f, void *arg);	/* report.json */
	void *arg;
	const struct hc_correlation *corr;	/* NULL without --correlate */
	const struct hc_compare *cmp;		/* NULL without --baseline */
	const char *target;	/* the flame graphs' "hot threads of tid 42" (NULL: "hot threads") */
};

/* Makes (or takes, when empty) dir: 0, or -1 with why in err */
int hc_bundle_open(struct hc_bundle *b, const char *dir, char *err, size_t errlen);
/* Every file of the bundle: 0, or -1 (said on stderr) */
int hc_bundle_write(struct hc_bundle *b, const struct hc_bundle_src *src);
void hc_bundle_close(struct hc_bundle *b);

/* summary.txt's text: the window, the verdict's rows, corr's summary and
 * cmp's table (each NULL when absent) */
void hc_summary_write(FILE *f, const struct hc_timeline *tl, const struct hc_correlation *corr,
		      const struct hc_compare *cmp);

#endif
