/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* schedsilence --trace FILE: the intruding events kept by the model
 * (model.h, the timeline: the first SILENCE_TRACE_KEEP) as a timeline in
 * the Trace Event Format (tools/lib/tracefmt.h): a track per watched CPU,
 * a slice per task run, interrupt, softirq, tick, IPI, work item and
 * hrtimer, an instant per migration; the intruders, their fixes and what
 * was not kept in the metadata. */
#ifndef SUITE_SILENCE_TRACE_H
#define SUITE_SILENCE_TRACE_H

#include "report.h"
#include "tracefmt.h"

/* Writes rp's timeline to t (opened) and closes it; path names it on
 * stderr when events were not kept */
void trace_write(const struct report *rp, struct tracefmt *t, const char *path);

#endif
