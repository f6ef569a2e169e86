/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* pfwatch --metrics: faults after the warm-up by thread and kind, the
 * warm-up's by kind, and the targets' memory locking, as Prometheus
 * metrics (docs/CLI.md, "Metrics").
 *
 * A snapshot adds what the drains gathered (agg_table), what each CPU
 * still holds (struct pf_pending) and the --dwarf faults; what sits in
 * the aggregation map being written (at most a second of faults) comes
 * with the next drain.  A fault moves from a CPU's pending sum into that
 * map while the snapshot is taken, so a snapshot can count less than the
 * one before: every series is published as the highest value it had, and
 * a counter never goes down.  The faults the program did not see
 * (losses_total{kind="faults_not_seen"}) read the kernel's count first,
 * then the program's, so that a fault in flight never counts as lost. */
#ifndef PFWATCH_EXPORT_H
#define PFWATCH_EXPORT_H

#include <linux/types.h>
#include "exporter.h"

struct aggmap;
struct bpf_map;
struct faults;
struct fault_events;
struct hashmap;
struct targets;

struct pf_export {
	struct exporter *e;
	struct aggmap *counts;
	struct bpf_map *pending, *losses;
	const struct faults *c;	/* --dwarf's faults */
	const struct targets *targets;
	struct hashmap *series;		/* (tgid, tid) -> the last published */
	__u64 warm[2];			/* warm-up: minor, major */
	__u64 read_failed;
	/* faults the kernel counted on our events that the program did not
	 * record (count_missed: where every event of ours is the targets') */
	const struct fault_events *ev;
	struct bpf_map *stats;
	bool count_missed;
	__u64 not_seen;			/* the highest seen so far */
};

/* An exporter_render_fn (ctx: struct pf_export) */
void pf_export_render(struct mtext *t, void *ctx);
void pf_export_free(struct pf_export *x);

#endif
