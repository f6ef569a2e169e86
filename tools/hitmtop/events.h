/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* hitmtop's sampling events: one perf event per CPU and kind (loads,
 * stores; with PEBS the auxiliary event that leads the load-latency
 * group), each running the BPF program, kept in a perfev set */
#ifndef SUITE_HITM_EVENTS_H
#define SUITE_HITM_EVENTS_H

#include <stddef.h>
#include <stdint.h>
#include "pmu.h"

struct bpf_program;
struct perfev_set;

/* How the events sample */
struct hitm_sampling {
	uint64_t period;	/* --period */
	uint64_t ldlat;		/* --ldlat */
};

/* Open the events of the CPUs (each on the first PMU that covers it) into
 * set, each running prog; 0 or an exit code, with the reason said.
 * perfev_disable() stops them, perfev_free() closes them. */
int hitm_events_open(struct perfev_set *set, struct bpf_program *prog,
		     const struct hitm_pmu *pmus, int npmu, const struct cpu_list *cpus,
		     const struct hitm_sampling *how);

#endif
