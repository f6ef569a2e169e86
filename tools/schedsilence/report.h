/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* schedsilence's report of one run, on stdout (report.c) */
#ifndef SUITE_SILENCE_REPORT_H
#define SUITE_SILENCE_REPORT_H

#include <linux/types.h>
#include <stdbool.h>
#include <stdint.h>
#include "losses.h"
#include "model.h"
#include "sysenv.h"

/* What a run found, and what the machine said over the same window */
struct report {
	struct silence *s;
	struct sys_config cfg;
	struct irq_snap before, after;	/* /proc/interrupts at its ends */
	bool have_irqs;
	struct allowed allowed;
	__u64 losses[LOSS_KINDS];
	__u64 total_losses;
	double duration_s;
	uint64_t wall_offset;	/* realtime - monotonic, ns */
	char missing_tps[1024];
	bool self_on_watched;
};

/* The names of the work functions, hrtimer callbacks and IPI call sites
 * of s, from the kernel's symbols */
void report_name_all(struct silence *s);
/* Every watched CPU silent, nothing lost */
bool report_all_silent(const struct report *rp);
/* The report as text, or with json as one JSON object */
void report_print(const struct report *rp, bool json);

#endif
