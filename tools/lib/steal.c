// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "steal.h"
#include "clock.h"
#include "json.h"
#include "kfeat.h"
#include "procfs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

bool steal_available(void)
{
	return kfeat_has(KF_STEAL_TIME);
}

const char *steal_unavailable_why(void)
{
	const struct btf *b;

#if !defined(__x86_64__)
	return "it is read from x86 KVM guests' kvm_steal_time only";
#endif
	b = kernel_btf();
	if (!b)
		return "the kernel has no BTF of its own";
	if (btf__find_by_name_kind(b, "steal_time", BTF_KIND_VAR) <= 0)
		return "the kernel's BTF has no per-CPU variable steal_time: not a kernel "
		       "for x86 KVM guests (CONFIG_KVM_GUEST), or BTF without per-CPU "
		       "variables (pahole before 1.18)";
	if (!kfeat_steal_rq_delta())
		return "no way to steal_time from a task: the BTF lacks the per-CPU "
		       "runqueues or cfs_rq.rq (CONFIG_FAIR_GROUP_SCHED)";
	if (!kfeat_has(KF_STEAL_TIME))
		return "turned off (SUITE_KFEAT_OFF)";
	return "no event ran on the CPU to locate it";
}

void steal_open(struct steal_reader *r, struct bpf_object *obj)
{
	struct bpf_program *p = obj ? bpf_object__find_program_by_name(obj, "steal_snapshot")
				    : NULL;
	struct bpf_map *snap = obj ? bpf_object__find_map_by_name(obj, "steal_snap") : NULL;
	struct bpf_map *cpus = obj ? bpf_object__find_map_by_name(obj, "steal_cpus") : NULL;

	r->prog_fd = p ? bpf_program__fd(p) : -1;
	r->snap_fd = snap ? bpf_map__fd(snap) : -1;
	r->cpus_fd = cpus ? bpf_map__fd(cpus) : -1;
	r->available = steal_available() && r->prog_fd >= 0 && r->snap_fd >= 0 &&
		       r->cpus_fd >= 0;
}

int steal_snap(const struct steal_reader *r, uint32_t cpu, uint64_t window_start,
	       struct steal_sample *out)
{
	__u64 args[2] = { cpu, window_start };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args, .ctx_size_in = sizeof(args));
	__u32 zero = 0;

	memset(out, 0, sizeof(*out));
	if (!r->available)
		return -1;
	if (bpf_prog_test_run_opts(r->prog_fd, &opts) ||
	    bpf_map_lookup_elem(r->snap_fd, &zero, out)) {
		memset(out, 0, sizeof(*out));
		return -1;
	}
	return 0;
}

int steal_ticks(const struct steal_reader *r, uint32_t cpu, struct steal_cpu *out)
{
	memset(out, 0, sizeof(*out));
	if (!r->available || cpu >= STEAL_MAX_CPUS)
		return -1;
	return bpf_map_lookup_elem(r->cpus_fd, &cpu, out) ? -1 : 0;
}

void steal_decide(bool available, const struct steal_sample *start,
		  const struct steal_sample *end, const struct steal_cpu *ticks,
		  struct steal_result *res)
{
	struct steal_sample s0 = *start, s1 = *end;

	memset(res, 0, sizeof(*res));
	/* found by the run queue, a CPU is read only once an event has run
	 * on it: then the first and last readings of the window stand in */
	if (!s0.ok && ticks && ticks->first_ts)
		s0 = (struct steal_sample){ ticks->first, ticks->version, 1 };
	if (!s1.ok && ticks && ticks->samples)
		s1 = (struct steal_sample){ ticks->last, ticks->version, 1 };
	start = &s0;
	end = &s1;
	if (!available || !start->ok || !end->ok) {
		res->status = STEAL_UNAVAILABLE;
		return;
	}
	if (!start->version && !end->version && (!ticks || !ticks->samples)) {
		res->status = STEAL_NOT_REPORTED;
		return;
	}
	res->status = STEAL_REPORTED;
	/* the host began to report during the window (start version 0), or
	 * began again from 0 (the guest registered it anew): what it has
	 * counted since */
	if (!start->version || end->steal < start->steal)
		res->stolen_ns = end->steal;
	else
		res->stolen_ns = end->steal - start->steal;
	if (ticks) {
		res->samples = ticks->samples;
		res->steps = ticks->steps;
		/* a reading just after the window's end can see more than
		 * its end did: never more than the window's whole */
		res->max_ns = ticks->max_delta < res->stolen_ns ? ticks->max_delta
								: res->stolen_ns;
		res->max_ts = res->max_ns ? ticks->max_ts : 0;
	}
}

void steal_describe(const struct steal_result *res, char *buf, size_t size)
{
	char a[32], b[32];

	switch (res->status) {
	case STEAL_UNAVAILABLE:
		snprintf(buf, size, "steal time: not available on this kernel (%s)",
			 steal_unavailable_why());
		return;
	case STEAL_NOT_REPORTED:
		snprintf(buf, size, "the hypervisor does not report steal time on this "
			 "machine (kvm_steal_time never written): time it took is not known");
		return;
	case STEAL_REPORTED:
		break;
	}
	fmt_dur(a, sizeof(a), res->stolen_ns, DUR_TEXT);
	if (!res->stolen_ns) {
		snprintf(buf, size, "stolen by the hypervisor: 0 ns");
		return;
	}
	fmt_dur(b, sizeof(b), res->max_ns, DUR_TEXT);
	snprintf(buf, size, "stolen by the hypervisor: %s (at most %s between two "
		 "events on the CPU, %llu of %llu events found more)", a, b,
		 (unsigned long long)res->steps, (unsigned long long)res->samples);
}

const char *steal_status_name(enum steal_status s)
{
	switch (s) {
	case STEAL_REPORTED:
		return "reported";
	case STEAL_NOT_REPORTED:
		return "not_reported";
	case STEAL_UNAVAILABLE:
		break;
	}
	return "unavailable";
}

void steal_json(struct json *j, const struct steal_result *res, bool with_mono)
{
	char line[512];

	json_kv_str(j, "status", steal_status_name(res->status));
	if (res->status == STEAL_REPORTED) {
		json_kv_u64(j, "stolen_ns", res->stolen_ns);
		json_kv_u64(j, "max_between_events_ns", res->max_ns);
		if (with_mono)
			json_kv_u64(j, "max_mono_ns", res->max_ts);
		json_kv_u64(j, "events_with_steal", res->steps);
		json_kv_u64(j, "events_read", res->samples);
	}
	steal_describe(res, line, sizeof(line));
	json_kv_str(j, "text", line);
}

int steal_proc_stat(uint32_t cpu, uint64_t *ns)
{
	struct proc_lines pl;
	char *line, want[32];
	long hz = sysconf(_SC_CLK_TCK);
	int err = -1;

	*ns = 0;
	if (hz <= 0 || proc_lines_open(&pl, "/proc/stat"))
		return -1;
	snprintf(want, sizeof(want), "cpu%u ", cpu);
	while ((line = proc_lines_next(&pl))) {
		unsigned long long v[8];

		if (strncmp(line, want, strlen(want)))
			continue;
		/* user nice system idle iowait irq softirq steal */
		if (sscanf(line + strlen(want), "%llu %llu %llu %llu %llu %llu %llu %llu",
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8) {
			*ns = v[7] * (1000000000ull / (unsigned long long)hz);
			err = 0;
		}
		proc_lines_close(&pl);
		break;
	}
	return err;
}
