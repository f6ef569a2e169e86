/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The memory-sampling PMUs hitmtop uses, found in sysfs:
 *   Intel PEBS: cpu/ (or cpu_core/ and cpu_atom/ on hybrid parts) with
 *     events/mem-loads (load latency, ldlat threshold) and events/mem-stores;
 *     events/mem-loads-aux, where it exists, must lead mem-loads' group;
 *   AMD IBS: ibs_op/.
 * Event strings ("event=0xcd,umask=0x1,ldlat=3") are turned into
 * perf_event_attr config words through the PMU's format/ files
 * ("config:0-7", "config1:0-15"). */
#ifndef SUITE_HITM_PMU_H
#define SUITE_HITM_PMU_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "opts.h"

#define HITM_PMU_ROOT "/sys/bus/event_source/devices"
#define HITM_PMU_MAX 4

enum hitm_pmu_kind {
	HITM_PMU_PEBS,
	HITM_PMU_IBS,
	/* tests only: cpu-clock, samples without an address, to run the
	 * sampling path (attach, loop, reports) on machines without a PMU */
	HITM_PMU_SOFTWARE_TEST,
};

struct hitm_pmu {
	char name[32];			/* "cpu", "cpu_core", "cpu_atom", "ibs_op" */
	char dir[512];
	enum hitm_pmu_kind kind;
	uint32_t type;			/* perf_event_attr.type */
	struct cpu_list cpus;		/* CPUs it covers (empty: every CPU) */
	bool has_stores;		/* events/mem-stores */
	bool has_aux;			/* events/mem-loads-aux */
};

/* The memory-sampling PMUs under root (HITMTOP_PMU_ROOT overrides the
 * default for tests).  Returns how many; with none, why says what is
 * missing (and what the directory holds instead). */
int hitm_pmu_detect(const char *root, struct hitm_pmu *out, int max, char *why,
		    size_t whylen);
void hitm_pmu_free(struct hitm_pmu *p, int n);

/* Set the bits of value in attr as the format spec says:
 * "config:0-7", "config1:0-15", "config:0-7,32-35", "config2:3".
 * Returns 0, or -1 with err set. */
int hitm_pmu_apply_format(const char *spec, uint64_t value, struct perf_event_attr *attr,
			  char *err, size_t errlen);
/* Fill attr->config* from PMU dir's events/NAME through its format/
 * files; a term "ldlat" takes the value ldlat instead of the file's. */
int hitm_pmu_event_attr(const char *dir, const char *name, uint64_t ldlat,
			struct perf_event_attr *attr, char *err, size_t errlen);

#endif
