/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* schedsilence's report of one run, on stdout (report.c) */
#ifndef SUITE_SILENCE_REPORT_H
#define SUITE_SILENCE_REPORT_H

#include <linux/types.h>
#include <stdbool.h>
#include <stdint.h>
#include "json.h"
#include "losses.h"
#include "model.h"
#include "sysenv.h"
#include "steal.h"

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
	/* stolen time of each watched CPU (by its index in s->cpus): the
	 * readings at the window's ends, the verdict, /proc/stat's column */
	struct steal_reader steal;
	struct steal_sample steal0[SS_MAX_WATCH], steal1[SS_MAX_WATCH];
	struct steal_result stolen[SS_MAX_WATCH];
	uint64_t proc_steal0[SS_MAX_WATCH], proc_steal1[SS_MAX_WATCH];
	bool have_proc_steal;
};

/* One unit for a column of durations, chosen from its largest value
 * (the values print as numbers, the unit in the header) */
struct dur_unit {
	const char *name;	/* "ns", "us", "ms", "s" */
	uint64_t ns;		/* ns in one of it */
	int decimals;
};
struct dur_unit report_unit_for(uint64_t max_ns);
/* ns in unit u, with its decimals: "9170.100" */
void report_fmt_in(uint64_t ns, struct dur_unit u, char *buf, size_t size);

/* The names of the work functions, hrtimer callbacks and IPI call sites
 * of s, from the kernel's symbols */
void report_name_all(struct silence *s);
/* Every watched CPU silent, nothing lost */
bool report_all_silent(const struct report *rp);
/* An intruder's identity, keys of the caller's object: cpu, kind, name,
 * and by kind pid and kernel_thread, irq, vector or function_addr */
void report_json_identity(struct json *j, const struct intruder *r);
/* One entry of "intruders": its identity, counts, cadence and fix */
void report_json_intruder(struct json *j, const struct report *rp, const struct intruder *r);
/* The report as text, or with json as one JSON object */
void report_print(const struct report *rp, bool json);

#endif
