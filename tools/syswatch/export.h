/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* syswatch --metrics: the maps read while tracing, as Prometheus metrics
 * (the names and labels: docs/CLI.md, "Metrics") */
#ifndef SYSWATCH_EXPORT_H
#define SYSWATCH_EXPORT_H

#include <linux/types.h>
#include "exporter.h"
#include "options.h"

struct bpf_map;

struct sw_export {
	const struct sw_opts *o;
	struct exporter *e;
	struct bpf_map *sys_stats, *thread_stats, *errnos, *misc, *losses;
	__u64 read_failed;	/* snapshots whose maps could not be read */
};

/* An exporter_render_fn (ctx: struct sw_export) */
void sw_export_render(struct mtext *t, void *ctx);

#endif
