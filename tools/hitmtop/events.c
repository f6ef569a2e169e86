// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "events.h"

#include <string.h>
#include <sys/ioctl.h>

#include "msg.h"
#include "bpfload.h"
#include "perfev.h"

static void base_attr(struct perf_event_attr *a, const struct hitm_pmu *p,
		      const struct hitm_sampling *how)
{
	memset(a, 0, sizeof(*a));
	a->type = p->type;
	a->sample_period = how->period;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR |
			 PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT;
	/* PEBS: the exact instruction and address; IBS is precise by itself */
	a->precise_ip = p->kind == HITM_PMU_PEBS ? 2 : 0;
	if (p->kind == HITM_PMU_SOFTWARE_TEST) {
		a->config = PERF_COUNT_SW_CPU_CLOCK;
		a->sample_period = 1000000;	/* every ms of CPU */
	}
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
}

static int pmu_fail(const char *err)
{
	msg_warn("%s: the PMU's sysfs description is not usable", err);
	return EXIT_UNSUPPORTED;
}

static int open_fail(const char *what, const struct hitm_pmu *p, int cpu, int err)
{
	msg_warn("opening %s on %s for CPU %d failed: %s; the PMU is listed but not usable "
		 "(a VM without PMU passthrough, or perf_event_paranoid)", what, p->name,
		 cpu, strerror(err));
	return EXIT_UNSUPPORTED;
}

static const struct hitm_pmu *pmu_of(const struct hitm_pmu *pmus, int npmu, int cpu)
{
	for (int k = 0; k < npmu; k++)
		if (!pmus[k].cpus.n || cpu_list_has(&pmus[k].cpus, cpu))
			return &pmus[k];
	return NULL;
}

int hitm_events_open(struct perfev_set *set, struct bpf_program *prog,
		     const struct hitm_pmu *pmus, int npmu, const struct cpu_list *cpus,
		     const struct hitm_sampling *how)
{
	char err[256];
	int fd, e;

	for (size_t i = 0; i < cpus->n; i++) {
		int cpu = (int)cpus->cpus[i];
		const struct hitm_pmu *p = pmu_of(pmus, npmu, cpu);
		static const char *const names[] = { "mem-loads", "mem-stores" };
		int leader = -1;

		if (!p) {
			msg_warn("CPU %d: no memory-sampling PMU covers it; not sampled", cpu);
			continue;
		}
		for (int k = 0; k < (p->kind == HITM_PMU_PEBS ? 2 : 1); k++) {
			struct perf_event_attr a;

			base_attr(&a, p, how);
			if (p->kind == HITM_PMU_PEBS) {
				if (k == 1 && !p->has_stores)
					continue;
				if (k == 0 && p->has_aux) {
					/* the auxiliary event leads the load-latency group */
					struct perf_event_attr aux;

					base_attr(&aux, p, how);
					aux.sample_period = 0;
					aux.sample_type = 0;
					if (hitm_pmu_event_attr(p->dir, "mem-loads-aux", how->ldlat,
								&aux, err, sizeof(err)))
						return pmu_fail(err);
					leader = perfev_open_fd(&aux, -1, cpu, -1);
					if (leader < 0)
						return open_fail("mem-loads-aux", p, cpu, -leader);
					perfev_add(set, leader, NULL, 0, 0);
				}
				if (hitm_pmu_event_attr(p->dir, names[k], how->ldlat, &a, err,
							sizeof(err)))
					return pmu_fail(err);
			}
			fd = perfev_open_fd(&a, -1, cpu, k == 0 ? leader : -1);
			if (fd < 0)
				return open_fail(p->kind == HITM_PMU_PEBS ? names[k] : p->name,
						 p, cpu, -fd);
			e = perfev_add(set, fd, prog, 0, 0);
			if (e)
				return bpf_fail("attaching to the sampling event", e);
		}
		if (leader >= 0)
			ioctl(leader, PERF_EVENT_IOC_ENABLE, 0);
	}
	if (!perfev_size(set)) {
		msg_warn("no CPU to sample: no memory-sampling PMU covers the CPUs asked for");
		return EXIT_UNSUPPORTED;
	}
	return 0;
}
