/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* schedsilence --metrics: the intrusions per CPU, kind and name, the
 * time they held the CPU, the /proc/interrupts deltas per CPU and IRQ
 * since the start, and a silent gauge per CPU, as Prometheus metrics
 * (docs/CLI.md, "Metrics").
 *
 * Names are bounded: at each snapshot, the top names (--metrics-top,
 * default SS_METRIC_NAMES) with the most events on a CPU and kind count in
 * a series of their own, the others in name="other".  What a name did goes where it stood when the
 * snapshot saw it: a name's series counts what it did while in the top
 * (it stops while the name is out of it), and "other" what the rest did,
 * so that every event is counted once and no counter goes down. */
#ifndef SILENCE_EXPORT_H
#define SILENCE_EXPORT_H

#include <linux/types.h>
#include "exporter.h"
#include "schedsilence.h"

#define SS_METRIC_NAMES 10

struct bpf_map;
struct cpu_list;
struct hashmap;
struct report;

struct ss_export {
	struct exporter *e;
	struct report *rp;
	const struct cpu_list *cpus;
	unsigned top;			/* names with series of their own */
	struct bpf_map *losses;
	struct hashmap *names;		/* (cpu, kind, name) -> its state */
	struct hashmap *other;		/* (cpu, kind) -> what "other" counted */
	__u64 prev_events[SS_MAX_WATCH], prev_losses;
	bool primed;
};

/* An exporter_render_fn (ctx: struct ss_export) */
void ss_export_render(struct mtext *t, void *ctx);
void ss_export_free(struct ss_export *x);

#endif
