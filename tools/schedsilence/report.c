// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* schedsilence's report: the verdict of each watched CPU, the intruders
 * and their fixes, the IPI senders, what /proc says over the same window,
 * the configuration and the timeline, as text or as JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "msg.h"
#include "irqctx.h"
#include "lifecycle.h"
#include "json.h"
#include "addrname.h"
#include "escape.h"
#include "report.h"

#define MAX_FIXES_SHOWN 20	/* plain output; JSON has one per intruder */

/* ---- symbols of work functions, hrtimer callbacks and IPI call sites ---- */

void report_name_all(struct silence *s)
{
	struct addrname *sym = addrname_new();

	for (size_t i = 0; i < s->nrows; i++)
		if (s->rows[i].kind == SK_WORKQUEUE || s->rows[i].kind == SK_HRTIMER)
			addrname_kernel(sym, s->rows[i].addr, s->rows[i].name, sizeof(s->rows[i].name));
	for (size_t i = 0; i < s->nsenders; i++) {
		addrname_kernel(sym, s->senders[i].callsite, s->senders[i].site_name,
				sizeof(s->senders[i].site_name));
		addrname_kernel(sym, s->senders[i].callback, s->senders[i].callback_name,
				sizeof(s->senders[i].callback_name));
	}
	addrname_free(sym);
}


/* ---- output ---- */

struct dur_unit report_unit_for(uint64_t max_ns)
{
	if (max_ns < 10000)
		return (struct dur_unit){ "ns", 1, 0 };
	if (max_ns < 10000000)
		return (struct dur_unit){ "us", 1000, 1 };
	if (max_ns < 10000000000ull)
		return (struct dur_unit){ "ms", 1000000, 3 };
	return (struct dur_unit){ "s", 1000000000, 3 };
}

void report_fmt_in(uint64_t ns, struct dur_unit u, char *buf, size_t size)
{
	if (u.ns == 1)
		snprintf(buf, size, "%llu", (unsigned long long)ns);
	else
		snprintf(buf, size, "%.*f", u.decimals, (double)ns / (double)u.ns);
}

static void fmt_wall(uint64_t ns, char *buf, size_t size)
{
	time_t sec = (time_t)(ns / 1000000000ull);
	struct tm tm;
	char t[32];

	gmtime_r(&sec, &tm);
	strftime(t, sizeof(t), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, size, "%s.%06lluZ", t, (unsigned long long)(ns % 1000000000ull) / 1000);
}

static const char *row_id(const struct intruder *r, char *buf, size_t size)
{
	if (r->id == SILENCE_NO_ID || r->kind == SK_TIMER_TICK || r->kind == SK_IPI)
		return "-";
	snprintf(buf, size, "%u", r->id);
	return buf;
}

static void print_verdicts(const struct report *rp)
{
	const struct silence *s = rp->s;

	for (size_t i = 0; i < s->ncpus; i++) {
		uint32_t cpu = s->cpus[i].cpu;
		size_t k;
		uint64_t n = silence_cpu_events(s, cpu, &k);

		if (silence_cpu_silent(s, cpu, rp->total_losses))
			printf("cpu %u: SILENT for %.1f s\n", cpu, rp->duration_s);
		else if (!n)
			printf("cpu %u: NOT PROVEN SILENT: %llu events were lost in %.1f s\n",
			       cpu, (unsigned long long)rp->total_losses, rp->duration_s);
		else
			printf("cpu %u: NOT SILENT: %llu events from %zu intruder%s in %.1f s\n",
			       cpu, (unsigned long long)n, k, k == 1 ? "" : "s",
			       rp->duration_s);
	}
}

/* The stolen-time row of watched CPU i, if the hypervisor reports it */
static const struct steal_result *steal_row(const struct report *rp, size_t i)
{
	return rp->stolen[i].status == STEAL_REPORTED ? &rp->stolen[i] : NULL;
}

static void print_table(const struct report *rp)
{
	const struct silence *s = rp->s;
	uint64_t t0 = s->cfg.start_ts, max_tot = 0, max_max = 0;
	char id[16], tot[24], max[24], h_tot[16], h_max[16];
	struct dur_unit u_tot, u_max;
	size_t shown = 0;

	for (size_t i = 0; i < s->nrows; i++) {
		const struct intruder *r = &s->rows[i];

		if (!r->count)
			continue;
		shown++;
		max_tot = r->total_ns > max_tot ? r->total_ns : max_tot;
		max_max = r->max_ns > max_max ? r->max_ns : max_max;
	}
	for (size_t i = 0; i < s->ncpus; i++) {
		const struct steal_result *st = steal_row(rp, i);

		if (!st)
			continue;
		shown++;
		max_tot = st->stolen_ns > max_tot ? st->stolen_ns : max_tot;
		max_max = st->max_ns > max_max ? st->max_ns : max_max;
	}
	if (!shown)
		return;
	/* one unit per column, from its largest value */
	u_tot = report_unit_for(max_tot);
	u_max = report_unit_for(max_max);
	snprintf(h_tot, sizeof(h_tot), "TOTAL(%s)", u_tot.name);
	snprintf(h_max, sizeof(h_max), "MAX(%s)", u_max.name);
	printf("\n%-4s %-10s %-24s %8s %8s %12s %12s %11s %11s\n", "CPU", "KIND", "NAME",
	       "ID", "COUNT", h_tot, h_max, "FIRST(s)", "LAST(s)");
	for (size_t i = 0; i < s->nrows; i++) {
		const struct intruder *r = &s->rows[i];

		if (!r->count)
			continue;
		report_fmt_in(r->total_ns, u_tot, tot, sizeof(tot));
		report_fmt_in(r->max_ns, u_max, max, sizeof(max));
		printf("%-4u %-10s %s %8s %8llu %12s %12s %11.6f %11.6f%s\n", r->cpu,
		       silence_kind_name(r->kind), ESC_COL(r->name, 24), row_id(r, id, sizeof(id)),
		       (unsigned long long)r->count, tot, max,
		       r->first_ts > t0 ? (r->first_ts - t0) / 1e9 : 0.0,
		       r->last_ts > t0 ? (r->last_ts - t0) / 1e9 : 0.0,
		       r->running_at_end ? "  (running at the end)" :
		       r->running_at_start ? "  (running at the start)" : "");
	}
	/* the hypervisor's share: COUNT is the events on the CPU that found
	 * more stolen since the last one, MAX the most between two of them */
	for (size_t i = 0; i < s->ncpus; i++) {
		const struct steal_result *st = steal_row(rp, i);

		if (!st)
			continue;
		report_fmt_in(st->stolen_ns, u_tot, tot, sizeof(tot));
		report_fmt_in(st->max_ns, u_max, max, sizeof(max));
		printf("%-4u %-10s %-24s %8s %8llu %12s %12s %11s %11s\n", s->cpus[i].cpu,
		       "steal", "(hypervisor)", "-", (unsigned long long)st->steps, tot, max,
		       "-", "-");
	}
}

/* The intruders that came CADENCE_MIN times or more: how regularly */
static void print_cadence(const struct report *rp)
{
	const struct silence *s = rp->s;
	bool head = false;
	char id[16], text[96];

	for (size_t i = 0; i < s->nrows; i++) {
		const struct intruder *r = &s->rows[i];
		struct cadence_result c;

		if (!r->count || !cadence_get(&r->arrivals, &c))
			continue;
		if (!head)
			printf("\nCadence (the median time between arrivals, and how far they "
			       "stray from it):\n  %-4s %-10s %-24s %8s %8s  %s\n", "CPU", "KIND",
			       "NAME", "ID", "ARRIVALS", "PERIOD");
		head = true;
		cadence_fmt(&c, text, sizeof(text));
		printf("  %-4u %-10s %s %8s %8zu  %s\n", r->cpu, silence_kind_name(r->kind),
		       ESC_COL(r->name, 24), row_id(r, id, sizeof(id)), c.intervals + 1, text);
	}
}

/* Stolen time of each watched CPU, in words, with /proc/stat's column */
static void print_steal(const struct report *rp)
{
	const struct silence *s = rp->s;
	char line[512];

	printf("\nStolen time (the hypervisor's, from the kernel's kvm_steal_time):\n");
	for (size_t i = 0; i < s->ncpus; i++) {
		steal_describe(&rp->stolen[i], line, sizeof(line));
		printf("  cpu %u: %s", s->cpus[i].cpu, line);
		if (rp->have_proc_steal)
			printf("; /proc/stat steal +%llu ms",
			       (unsigned long long)((rp->proc_steal1[i] - rp->proc_steal0[i]) /
						    1000000));
		printf("\n");
	}
}

static void print_fixes(const struct report *rp)
{
	const struct silence *s = rp->s;
	char fix[1024], prev[1024] = "", id[16];
	size_t shown = 0, more = 0;

	for (size_t i = 0; i < s->nrows; i++) {
		const struct intruder *r = &s->rows[i];

		if (!r->count)
			continue;
		if (shown == MAX_FIXES_SHOWN) {
			more++;
			continue;
		}
		silence_fix(r, &rp->cfg, s->cfg.cpus, fix, sizeof(fix));
		if (!strcmp(fix, prev))
			continue;
		if (!shown++)
			printf("\nFixes:\n");
		printf("  cpu %u %s %s", r->cpu, silence_kind_name(r->kind), ESC(r->name));
		if (strcmp(row_id(r, id, sizeof(id)), "-"))
			printf(" (%s %s)", r->kind == SK_IRQ ? "irq" : r->kind == SK_SOFTIRQ ?
			       "vector" : "pid", id);
		printf(": %llu time%s", (unsigned long long)r->count, r->count == 1 ? "" : "s");
		if (r->kind == SK_TASK && r->preempted)
			printf(", preempted %llu", (unsigned long long)r->preempted);
		if (r->kind == SK_TASK && r->wakeups && r->waker_ctx != IRQCTX_TASK)
			printf(", woken %llu time%s, last by %s",
			       (unsigned long long)r->wakeups, r->wakeups == 1 ? "" : "s",
			       irqctx_label(r->waker_ctx));
		else if (r->kind == SK_TASK && r->wakeups)
			printf(", woken %llu time%s, last by %s (%u)",
			       (unsigned long long)r->wakeups, r->wakeups == 1 ? "" : "s",
			       ESC(r->waker), r->waker_pid);
		printf("; ");
		esc_fputs(fix, stdout);
		printf("\n");
		snprintf(prev, sizeof(prev), "%s", fix);
	}
	if (more)
		printf("  ... and %zu more intruders (-j gives the fix of each)\n", more);
}

static void print_senders(const struct report *rp)
{
	const struct silence *s = rp->s;

	if (!s->nsenders)
		return;
	printf("\nIPIs sent to the watched CPUs:\n  %-4s %8s %-16s %8s  %s\n", "CPU",
	       "COUNT", "SENDER", "PID", "CALL SITE / CALLBACK");
	for (size_t i = 0; i < s->nsenders; i++) {
		const struct ipi_sender *p = &s->senders[i];

		printf("  %-4u %8llu %s %8u  %s / %s\n", p->cpu,
		       (unsigned long long)p->count, ESC_COL(p->comm, 16), p->pid,
		       ESC(p->site_name), ESC(p->callback_name));
	}
}

/* How much the /proc/interrupts line id moved for watched CPU widx */
static uint64_t proc_delta(const struct report *rp, size_t widx, const char *id)
{
	struct irq_moved *m;
	size_t n = irq_snap_delta(&rp->before, &rp->after, widx, &m);
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(m[i].id, id))
			v = m[i].delta;
	free(m);
	return v;
}

/* The vectors whose /proc/interrupts line counts the same thing */
static const struct {
	const char *proc;
	enum ss_vector vec;
} proc_vectors[] = {
	{ "LOC", SS_VEC_LOCAL_TIMER },
	{ "RES", SS_VEC_RESCHEDULE },
	{ "IWI", SS_VEC_IRQ_WORK },
	{ "PLT", SS_VEC_X86_PLATFORM_IPI },
};

static uint64_t vec_count(const struct silence *s, uint32_t cpu, enum ss_vector v)
{
	const char *name = silence_vector_name(v);

	for (size_t i = 0; i < s->nrows; i++)
		if (s->rows[i].cpu == cpu &&
		    (s->rows[i].kind == SK_TIMER_TICK || s->rows[i].kind == SK_IPI) &&
		    !strcmp(s->rows[i].name, name))
			return s->rows[i].count;
	return 0;
}

static uint64_t tick_count(const struct silence *s, uint32_t cpu)
{
	for (size_t i = 0; i < s->nrows; i++)
		if (s->rows[i].cpu == cpu && s->rows[i].kind == SK_TIMER_TICK)
			return s->rows[i].count;
	return 0;
}

static void print_corroboration(const struct report *rp)
{
	const struct silence *s = rp->s;

	for (size_t w = 0; rp->have_irqs && w < s->ncpus; w++) {
		struct irq_moved *m;
		size_t n = irq_snap_delta(&rp->before, &rp->after, w, &m);

		printf("\n/proc/interrupts, CPU %u: %s\n", s->cpus[w].cpu,
		       n ? "lines that moved" : "nothing moved");
		for (size_t i = 0; i < n; i++)
			printf("  %s %+10lld  %s\n", ESC_COL(m[i].id, 6), (long long)m[i].delta,
			       ESC(m[i].desc));
		if (n)
			printf("  (local timer: LOC moved %llu; the tracepoints saw %llu "
			       "between the readings, %llu from before the first to after "
			       "the last)\n", (unsigned long long)proc_delta(rp, w, "LOC"),
			       (unsigned long long)s->cpus[w].vec_inner[SS_VEC_LOCAL_TIMER],
			       (unsigned long long)tick_count(s, s->cpus[w].cpu));
		free(m);
	}
	if (rp->allowed.n)
		printf("\nAllowed threads (context switches over the same window, from "
		       "/proc/TID/status):\n");
	for (size_t i = 0; i < rp->allowed.n; i++) {
		const struct allowed_thread *t = &rp->allowed.t[i];

		if (t->gone)
			printf("  %s tid %-8u exited during the window\n", ESC_COL(t->comm, 16),
			       t->tid);
		else
			printf("  %s tid %-8u +%llu voluntary, +%llu nonvoluntary\n",
			       ESC_COL(t->comm, 16),
			       t->tid, (unsigned long long)(t->vol1 - t->vol0),
			       (unsigned long long)(t->nonvol1 - t->nonvol0));
	}
	for (size_t i = 0; i < s->ncpus; i++) {
		char deps[128];

		if (!s->cpus[i].tick_stop_fail)
			continue;
		silence_tick_deps_str(s->cpus[i].tick_deps, deps, sizeof(deps));
		printf("\ncpu %u: the tick could not stop %llu times; dependencies: %s\n",
		       s->cpus[i].cpu, (unsigned long long)s->cpus[i].tick_stop_fail, deps);
	}
}

static void print_config(const struct report *rp)
{
	const struct sys_config *c = &rp->cfg;

	printf("\nConfiguration: isolated=%s nohz_full=%s rcu_nocbs=%s "
	       "workqueue_cpumask=%s CONFIG_NO_HZ_FULL=%s\n",
	       c->isolated[0] ? c->isolated : "none",
	       c->has_nohz_full_file ? (c->nohz_full[0] ? c->nohz_full : "none") : "n/a",
	       c->cmd[CMD_RCU_NOCBS].has ? c->cmd[CMD_RCU_NOCBS].val : "unset",
	       c->wq_cpumask[0] ? c->wq_cpumask : "?",
	       c->kconfig_no_hz_full == 1 ? "y" : c->kconfig_no_hz_full == 0 ? "n" : "?");
	if (rp->missing_tps[0])
		printf("Not traced (this kernel lacks the tracepoints): %s\n", rp->missing_tps);
}

/* The timeline printed: the first --timeline N of the events kept (more
 * are kept for --trace) */
static size_t timeline_shown(const struct silence *s)
{
	return s->ntimeline < s->cfg.timeline_max ? s->ntimeline : s->cfg.timeline_max;
}

static uint64_t timeline_not_shown(const struct silence *s)
{
	return s->timeline_dropped + (s->ntimeline - timeline_shown(s));
}

static void print_timeline(const struct report *rp)
{
	const struct silence *s = rp->s;
	char wall[64], dur[24], h_dur[24];
	uint64_t longest = 0;
	struct dur_unit u;

	if (!s->cfg.timeline_max)
		return;
	for (size_t i = 0; i < timeline_shown(s); i++)
		longest = s->timeline[i].dur > longest ? s->timeline[i].dur : longest;
	u = report_unit_for(longest);
	snprintf(h_dur, sizeof(h_dur), "DURATION(%s)", u.name);
	printf("\nTimeline (first %llu intruding events%s):\n  %-20s %-27s %-4s %-10s %-24s %12s\n",
	       (unsigned long long)s->cfg.timeline_max,
	       timeline_not_shown(s) ? ", more not kept" : "", "MONOTONIC(s)",
	       "WALL CLOCK (UTC)", "CPU", "KIND", "NAME", h_dur);
	for (size_t i = 0; i < timeline_shown(s); i++) {
		const struct timeline_ev *t = &s->timeline[i];
		const struct intruder *r = &s->rows[t->row];

		fmt_wall(t->ts + rp->wall_offset, wall, sizeof(wall));
		report_fmt_in(t->dur, u, dur, sizeof(dur));
		printf("  %-20.9f %-27s %-4u %-10s %s %12s\n", t->ts / 1e9, wall, r->cpu,
		       silence_kind_name(r->kind), ESC_COL(r->name, 24), dur);
	}
}

void report_json_identity(struct json *j, const struct intruder *r)
{
	json_kv_u64(j, "cpu", r->cpu);
	json_kv_str(j, "kind", silence_kind_name(r->kind));
	json_kv_str(j, "name", r->name);
	if (r->kind == SK_TASK || r->kind == SK_MIGRATION) {
		json_kv_u64(j, "pid", r->id);
		json_kv_bool(j, "kernel_thread", r->kthread);
	} else if (r->kind == SK_IRQ && r->id != SILENCE_NO_ID) {
		json_kv_u64(j, "irq", r->id);
	} else if (r->kind == SK_SOFTIRQ) {
		json_kv_u64(j, "vector", r->id);
	} else if (r->kind == SK_WORKQUEUE || r->kind == SK_HRTIMER) {
		json_kv_hex(j, "function_addr", r->addr);
	}
}

void report_json_intruder(struct json *j, const struct report *rp, const struct intruder *r)
{
	char fix[1024];

	json_obj_begin(j);
	report_json_identity(j, r);
	json_kv_u64(j, "count", r->count);
	json_kv_u64(j, "total_ns", r->total_ns);
	json_kv_u64(j, "max_ns", r->max_ns);
	json_kv_u64(j, "first_mono_ns", r->first_ts);
	json_kv_u64(j, "last_mono_ns", r->last_ts);
	if (r->kind == SK_TASK) {
		json_kv_bool(j, "running_at_start", r->running_at_start);
		json_kv_bool(j, "running_at_end", r->running_at_end);
		json_kv_u64(j, "preempted", r->preempted);
		json_kv_u64(j, "wakeups", r->wakeups);
		if (r->wakeups) {
			json_kv_str(j, "last_waker", r->waker);
			json_kv_u64(j, "last_waker_pid", r->waker_pid);
			json_kv_str(j, "last_waker_context", irqctx_name(r->waker_ctx));
		}
	}
	if (r->kind == SK_MIGRATION)
		json_kv_u64(j, "from_cpu", r->from_cpu);
	cadence_json(j, &r->arrivals);
	silence_fix(r, &rp->cfg, rp->s->cfg.cpus, fix, sizeof(fix));
	json_kv_str(j, "fix", fix);
	json_obj_end(j);
}

static void json_config(struct json *j, const struct report *rp)
{
	const struct sys_config *c = &rp->cfg;

	json_key(j, "config");
	json_obj_begin(j);
	json_kv_str(j, "online", c->online);
	json_kv_str(j, "isolated", c->isolated);
	if (c->has_nohz_full_file)
		json_kv_str(j, "nohz_full", c->nohz_full);
	else
		json_kv_str(j, "nohz_full", "n/a");
	json_key(j, "cmdline");
	json_obj_begin(j);
	for (int i = 0; i < CMD_PARAMS; i++)
		if (c->cmd[i].has)
			json_kv_str(j, cmd_param_names[i], c->cmd[i].val);
	json_obj_end(j);
	json_kv_str(j, "workqueue_cpumask", c->wq_cpumask);
	json_kv_str(j, "workqueue_cpulist", c->wq_cpulist);
	json_kv_str(j, "irq_default_affinity", c->default_affinity);
	json_kv_i64(j, "config_no_hz_full", c->kconfig_no_hz_full);
	json_kv_i64(j, "config_rcu_nocb_cpu", c->kconfig_rcu_nocb);
	json_kv_i64(j, "timer_migration", c->timer_migration);
	json_kv_str(j, "tracepoints_missing", rp->missing_tps);
	json_obj_end(j);
}

static void json_corroboration(struct json *j, const struct report *rp)
{
	const struct silence *s = rp->s;
	char key[16];

	json_key(j, "interrupts_delta");
	json_obj_begin(j);
	for (size_t w = 0; rp->have_irqs && w < s->ncpus; w++) {
		struct irq_moved *m;
		size_t n = irq_snap_delta(&rp->before, &rp->after, w, &m);

		snprintf(key, sizeof(key), "%u", s->cpus[w].cpu);
		json_key(j, key);
		json_arr_begin(j);
		irq_moved_json(j, m, n, -1);
		json_arr_end(j);
		free(m);
	}
	json_obj_end(j);
	json_key(j, "allowed");
	json_arr_begin(j);
	for (size_t i = 0; i < rp->allowed.n; i++) {
		const struct allowed_thread *t = &rp->allowed.t[i];

		json_obj_begin(j);
		json_kv_u64(j, "tid", t->tid);
		json_kv_str(j, "comm", t->comm);
		json_kv_bool(j, "exited", t->gone);
		if (!t->gone) {
			json_kv_u64(j, "voluntary_ctxt_switches", t->vol1 - t->vol0);
			json_kv_u64(j, "nonvoluntary_ctxt_switches", t->nonvol1 - t->nonvol0);
		}
		json_obj_end(j);
	}
	json_arr_end(j);
}

bool report_all_silent(const struct report *rp)
{
	for (size_t i = 0; i < rp->s->ncpus; i++)
		if (!silence_cpu_silent(rp->s, rp->s->cpus[i].cpu, rp->total_losses))
			return false;
	return true;
}

/* Stolen time of watched CPU number i: "steal": { "status": "reported",
 * "stolen_ns", ..., "text", "proc_stat_steal_ns" } (or "not_reported",
 * "unavailable": no numbers of the hypervisor's) */
static void json_steal(struct json *j, const struct report *rp, size_t i)
{
	json_key(j, "steal");
	json_obj_begin(j);
	steal_json(j, &rp->stolen[i], true);
	if (rp->have_proc_steal)
		json_kv_u64(j, "proc_stat_steal_ns", rp->proc_steal1[i] - rp->proc_steal0[i]);
	json_obj_end(j);
}

/* The verdict of watched CPU number i, with what corroborates it */
static void json_verdict(struct json *j, const struct report *rp, size_t i)
{
	const struct silence *s = rp->s;
	const struct silence_cpu *c = &s->cpus[i];
	size_t k;
	uint64_t n = silence_cpu_events(s, c->cpu, &k);
	char deps[128];

	json_obj_begin(j);
	json_kv_u64(j, "cpu", c->cpu);
	json_kv_bool(j, "silent", silence_cpu_silent(s, c->cpu, rp->total_losses));
	json_kv_u64(j, "events", n);
	json_kv_u64(j, "intruders", k);
	json_kv_u64(j, "allowed_switch_ins", c->allowed_switch_ins);
	json_kv_u64(j, "idle_switch_ins", c->idle_switch_ins);
	json_kv_u64(j, "timer_ticks", tick_count(s, c->cpu));
	json_key(j, "proc_interrupts_check");
	json_obj_begin(j);
	for (size_t v = 0; rp->have_irqs && v < ARRAY_SIZE(proc_vectors); v++) {
		json_key(j, proc_vectors[v].proc);
		json_obj_begin(j);
		json_kv_u64(j, "proc_delta", proc_delta(rp, i, proc_vectors[v].proc));
		json_kv_u64(j, "traced_inner", c->vec_inner[proc_vectors[v].vec]);
		json_kv_u64(j, "traced_outer", vec_count(s, c->cpu, proc_vectors[v].vec));
		json_obj_end(j);
	}
	json_obj_end(j);
	json_kv_u64(j, "tick_stop_failed", c->tick_stop_fail);
	silence_tick_deps_str(c->tick_deps, deps, sizeof(deps));
	json_kv_str(j, "tick_stop_dependencies", deps);
	json_steal(j, rp, i);
	json_obj_end(j);
}

static void json_sender(struct json *j, const struct ipi_sender *p)
{
	json_obj_begin(j);
	json_kv_u64(j, "cpu", p->cpu);
	json_kv_str(j, "sender_comm", p->comm);
	json_kv_u64(j, "sender_pid", p->pid);
	json_kv_str(j, "callsite", p->site_name);
	json_kv_str(j, "callback", p->callback_name);
	json_kv_u64(j, "count", p->count);
	json_obj_end(j);
}

static void json_timeline_ev(struct json *j, const struct report *rp,
			     const struct timeline_ev *t)
{
	const struct intruder *r = &rp->s->rows[t->row];
	char wall[64];

	fmt_wall(t->ts + rp->wall_offset, wall, sizeof(wall));
	json_obj_begin(j);
	json_kv_u64(j, "mono_ns", t->ts);
	json_kv_str(j, "wall", wall);
	json_kv_u64(j, "cpu", r->cpu);
	json_kv_str(j, "kind", silence_kind_name(r->kind));
	json_kv_str(j, "name", r->name);
	json_kv_u64(j, "dur_ns", t->dur);
	json_obj_end(j);
}

static void print_json(const struct report *rp)
{
	const struct silence *s = rp->s;
	struct json j;

	envelope_begin(&j);
	json_key(&j, "cpus");
	json_arr_begin(&j);
	for (size_t i = 0; i < s->ncpus; i++)
		json_u64(&j, s->cpus[i].cpu);
	json_arr_end(&j);
	json_kv_double(&j, "duration_s", rp->duration_s);
	json_kv_u64(&j, "start_mono_ns", s->cfg.start_ts);
	json_kv_bool(&j, "silent", report_all_silent(rp));
	json_kv_bool(&j, "self_on_watched_cpus", rp->self_on_watched);
	json_key(&j, "verdicts");
	json_arr_begin(&j);
	for (size_t i = 0; i < s->ncpus; i++)
		json_verdict(&j, rp, i);
	json_arr_end(&j);
	json_key(&j, "intruders");
	json_arr_begin(&j);
	for (size_t i = 0; i < s->nrows; i++)
		if (s->rows[i].count)
			report_json_intruder(&j, rp, &s->rows[i]);
	json_arr_end(&j);
	json_key(&j, "ipi_senders");
	json_arr_begin(&j);
	for (size_t i = 0; i < s->nsenders; i++)
		json_sender(&j, &s->senders[i]);
	json_arr_end(&j);
	json_key(&j, "timeline");
	json_arr_begin(&j);
	for (size_t i = 0; i < timeline_shown(s); i++)
		json_timeline_ev(&j, rp, &s->timeline[i]);
	json_arr_end(&j);
	json_kv_u64(&j, "timeline_not_kept", timeline_not_shown(s));
	json_corroboration(&j, rp);
	json_config(&j, rp);
	envelope_losses(&j, rp->losses);
	envelope_end(&j);
}

void report_print(const struct report *rp, bool json)
{
	if (json) {
		print_json(rp);
		return;
	}
	print_verdicts(rp);
	print_table(rp);
	print_cadence(rp);
	print_fixes(rp);
	print_senders(rp);
	print_steal(rp);
	print_corroboration(rp);
	print_config(rp);
	print_timeline(rp);
}
