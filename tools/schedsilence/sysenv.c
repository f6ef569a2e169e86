// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* schedsilence's view of the machine: configuration, /proc/interrupts,
 * context switches, and the fix named for each intruder. */
#include "sysenv.h"
#include "isolation.h"
#include "msg.h"
#include "procfs.h"
#include "vec.h"
#include "xalloc.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a snapshot of /proc/interrupts keeps a column for every watched CPU */
_Static_assert(SS_MAX_WATCH <= ISOL_MAX_CPUS, "SS_MAX_WATCH > ISOL_MAX_CPUS");

int thread_ctxt_switches(uint32_t tid, uint64_t *vol, uint64_t *nonvol)
{
	char buf[4096];

	if (proc_read(buf, sizeof(buf), "/proc/%u/status", tid) <= 0)
		return -1;
	*vol = status_u64(buf, "voluntary_ctxt_switches");
	*nonvol = status_u64(buf, "nonvoluntary_ctxt_switches");
	return 0;
}

void threads_by_comm(const char (*comms)[SILENCE_COMM_LEN], size_t n, struct id_list *out)
{
	struct id_list pids = { 0 }, tids = { 0 };
	char comm[64];

	if (!n)
		return;
	id_list_add_pids(&pids);
	for (size_t p = 0; p < pids.n; p++) {
		tids.n = 0;
		id_list_add_threads(pids.ids[p], NULL, &tids);
		for (size_t k = 0; k < tids.n; k++) {
			task_comm(tids.ids[k], comm, sizeof(comm));
			for (size_t i = 0; i < n; i++)
				if (!strncmp(comm, comms[i], SILENCE_COMM_LEN) &&
				    !id_list_has(out, tids.ids[k]))
					id_list_add(out, tids.ids[k]);
		}
	}
	id_list_free(&pids);
	id_list_free(&tids);
}

/* ---- corroboration: context switches of the allowed threads ---- */

void allowed_begin(struct allowed *a, const struct silence_cfg *cfg)
{
	struct id_list tids = { 0 };

	for (size_t i = 0; i < cfg->allow_tids->n; i++)
		id_list_add(&tids, cfg->allow_tids->ids[i]);
	threads_by_comm(cfg->allow_comms, cfg->n_allow_comms, &tids);
	a->t = xcalloc(tids.n, sizeof(*a->t));
	for (size_t i = 0; i < tids.n; i++) {
		struct allowed_thread *t = &a->t[a->n];

		t->tid = tids.ids[i];
		task_comm(t->tid, t->comm, sizeof(t->comm));
		if (!thread_ctxt_switches(t->tid, &t->vol0, &t->nonvol0))
			a->n++;
	}
	id_list_free(&tids);
}

void allowed_end(struct allowed *a)
{
	for (size_t i = 0; i < a->n; i++)
		a->t[i].gone = thread_ctxt_switches(a->t[i].tid, &a->t[i].vol1,
						    &a->t[i].nonvol1) != 0;
}

void allowed_free(struct allowed *a)
{
	free(a->t);
	memset(a, 0, sizeof(*a));
}

/* ---- fixes ---- */

static void fix_task(const struct intruder *r, const struct sys_config *c,
		     const struct cpu_list *watched, char *buf, size_t size)
{
	char status[4096], aff[SYSCONF_STR];
	const char *p;
	const char *n = r->name;
	uint32_t cpu = r->cpu;
	char pre[32];

	snprintf(pre, sizeof(pre), "kworker/%u:", cpu);
	if (r->kthread && !strncmp(n, pre, strlen(pre))) {
		snprintf(buf, size, "per-CPU kworker: runs work queued on CPU %u (see the "
			 "workqueue rows for what); isolcpus=domain,%u and nohz_full=%u "
			 "keep most per-CPU work away", cpu, cpu, cpu);
		return;
	}
	if (r->kthread && !strncmp(n, "kworker/u", 9)) {
		snprintf(buf, size, "unbound kworker: /sys/devices/virtual/workqueue/cpumask "
			 "= %s (CPUs %s)%s", isol_or_none(c->wq_cpumask), isol_or_none(c->wq_cpulist),
			 isol_in_list(c->wq_cpulist, cpu) ? "; write a mask without this CPU "
			 "to it" : "; this CPU is already outside it");
		return;
	}
	if (r->kthread && !strncmp(n, "ksoftirqd/", 10)) {
		snprintf(buf, size, "softirqs deferred to a thread (see the softirq rows "
			 "for which ones)");
		return;
	}
	if (r->kthread && (!strncmp(n, "rcu", 3))) {
		snprintf(buf, size, "RCU callback processing: boot with rcu_nocbs=%u "
			 "(now rcu_nocbs=%s, CONFIG_RCU_NOCB_CPU %s) and nohz_full=%u", cpu,
			 isol_rcu_nocbs(c),
			 c->kconfig_rcu_nocb == 1 ? "y" : c->kconfig_rcu_nocb == 0 ? "n" : "?",
			 cpu);
		return;
	}
	if (r->kthread && !strncmp(n, "migration/", 10)) {
		snprintf(buf, size, "the stopper thread: active load balancing or "
			 "stop_machine; isolcpus=domain,%u removes the CPU from load "
			 "balancing (now isolated = %s)", cpu, isol_or_none(c->isolated));
		return;
	}
	if (proc_read(status, sizeof(status), "/proc/%u/status", r->id) > 0 &&
	    (p = status_field(status, "Cpus_allowed_list"))) {
		snprintf(aff, sizeof(aff), "%.*s", (int)strcspn(p, "\n"), p);
	} else {
		snprintf(buf, size, "%s %u has exited; while it lived its affinity "
			 "included CPU %u: isolcpus=%u or a cpuset (now isolated = %s) "
			 "keeps such tasks off", r->kthread ? "kernel thread" : "task",
			 r->id, cpu, cpu, isol_or_none(c->isolated));
		return;
	}
	if (r->kthread) {
		snprintf(buf, size, "kernel thread allowed on CPU %u (Cpus_allowed_list = "
			 "%s); isolcpus=domain,%u (now isolated = %s) keeps unbound kernel "
			 "threads away", cpu, aff, cpu, isol_or_none(c->isolated));
		return;
	}
	{
		struct cpu_list al = { 0 }, on = { 0 }, rest = { 0 };
		char err[128], to[SYSCONF_STR] = "";

		if (!parse_cpu_list(aff, MAX_CPUS_SUPPORTED, &al, err, sizeof(err)))
			cpu_list_minus(&al, watched, &rest);
		if (!rest.n && !parse_cpu_list(c->online, MAX_CPUS_SUPPORTED, &on, err,
					       sizeof(err)))
			cpu_list_minus(&on, watched, &rest);
		cpu_list_str(&rest, to, sizeof(to));
		if (rest.n)
			snprintf(buf, size, "its affinity (Cpus_allowed_list = %s) includes "
				 "CPU %u: move the thread with taskset -pc %s %u (-apc: its whole "
				 "process, unless that is the pinned application), and keep "
				 "every other task off with isolcpus=%u or a cpuset (now "
				 "isolated = %s)", aff, cpu, to, r->id, cpu, isol_or_none(c->isolated));
		else
			snprintf(buf, size, "its affinity (Cpus_allowed_list = %s) includes "
				 "CPU %u, and no CPU outside the watched ones is online to move "
				 "it to", aff, cpu);
		cpu_list_free(&al);
		cpu_list_free(&on);
		cpu_list_free(&rest);
	}
}

void silence_fix(const struct intruder *r, const struct sys_config *c,
		 const struct cpu_list *watched, char *buf, size_t size)
{
	char path[64], aff[SYSCONF_STR], eff[SYSCONF_STR];

	switch (r->kind) {
	case SK_TASK:
		fix_task(r, c, watched, buf, size);
		break;
	case SK_IRQ:
		if (r->id == SILENCE_NO_ID) {
			snprintf(buf, size, "an APIC-internal interrupt: it cannot be moved");
			break;
		}
		snprintf(path, sizeof(path), "/proc/irq/%u/smp_affinity_list", r->id);
		isol_read_trimmed(path, aff, sizeof(aff));
		snprintf(path, sizeof(path), "/proc/irq/%u/effective_affinity_list", r->id);
		isol_read_trimmed(path, eff, sizeof(eff));
		isol_fix_irq(r->id, aff[0] ? aff : NULL, eff, r->cpu, watched,
				c->online, buf, size);
		break;
	case SK_SOFTIRQ:
		isol_fix_softirq(r->name, r->cpu, c, buf, size);
		break;
	case SK_TIMER_TICK:
		isol_fix_tick(c, r->cpu, buf, size);
		break;
	case SK_IPI:
		isol_fix_ipi(r->name, r->cpu, buf, size);
		break;
	case SK_WORKQUEUE:
		snprintf(buf, size, "work queued on CPU %u; unbound work honours "
			 "/sys/devices/virtual/workqueue/cpumask = %s (CPUs %s%s), per-CPU "
			 "work follows the CPU that queued it", r->cpu, isol_or_none(c->wq_cpumask),
			 isol_or_none(c->wq_cpulist),
			 isol_in_list(c->wq_cpulist, r->cpu) ? ", this one included" : "");
		break;
	case SK_HRTIMER:
		isol_fix_hrtimer(r->name, r->cpu, buf, size);
		break;
	case SK_MIGRATION:
		snprintf(buf, size, "moved here from CPU %u: its affinity includes CPU %u; "
			 "isolcpus=domain,%u keeps the load balancer from moving tasks in "
			 "(now isolated = %s)", r->from_cpu, r->cpu, r->cpu, isol_or_none(c->isolated));
		break;
	default:
		snprintf(buf, size, "-");
	}
}
