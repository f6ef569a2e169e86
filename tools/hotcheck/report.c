// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* hotcheck's verdict: the table of checks, and the JSON document. */
#include "collect.h"
#include "clock.h"
#include "report.h"
#include "escape.h"
#include "histogram.h"
#include "json.h"
#include "lifecycle.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[HC_KIND_N] = {
	[HC_SYSCALL] = "syscall",
	[HC_FAULT] = "fault",
	[HC_BLOCK] = "block",
	[HC_PREEMPT] = "preempt",
	[HC_MIGRATE] = "migrate",
	[HC_SIGNAL] = "signal",
	[HC_INTRUDER] = "intruder",
	[HC_STEAL] = "steal",
};

bool hc_all_silent(const struct hc_run *r)
{
	for (int c = 0; c < HCK_N; c++)
		if (!r->checks[c].silent)
			return false;
	return true;
}

bool hc_threads_silent(const struct hc_run *r)
{
	for (int c = 0; c < HCK_N; c++)
		if (hc_check_thread_level(c) && !r->checks[c].silent)
			return false;
	return true;
}

/* ---- the table ---- */

#define STACK_LINES 16		/* frames printed of a stack, leaf first */

#define FIX_WIDTH 100		/* a fix's lines in the table, its indent aside */

/* A fix, its words wrapped at FIX_WIDTH: "fix: ..." and the lines after
 * it under its first word */
static void fix_print(FILE *f, const char *fix)
{
	const char *p = fix;
	bool first = true;

	while (*p) {
		const char *end = p, *cut = NULL;

		while (*end && (size_t)(end - p) < FIX_WIDTH) {
			if (*end == ' ')
				cut = end;
			end++;
		}
		if (!*end)
			cut = end;
		else if (!cut)	/* one word longer than a line: whole */
			for (cut = end; *cut && *cut != ' '; cut++)
				;
		fprintf(f, "%-14s   %-5s%.*s\n", "", first ? "fix:" : "", (int)(cut - p), p);
		first = false;
		p = cut;
		while (*p == ' ')
			p++;
	}
}

/* A folded stack (its comm first, root to leaf) as lines, leaf first:
 *                  in FRAME
 *                     FRAME ... */
static void stack_print(FILE *f, const char *label, const char *stack)
{
	const char *p = stack ? strchr(stack, ';') : NULL;
	const char *fr[4096];
	size_t n = 0;

	if (!p)
		return;
	while (p && n < sizeof(fr) / sizeof(fr[0])) {
		fr[n++] = p + 1;
		p = strchr(p + 1, ';');
	}
	for (size_t i = 0; i < n && i < STACK_LINES; i++) {
		const char *s = fr[n - 1 - i], *end = strchr(s, ';');
		int len = (int)(end ? (size_t)(end - s) : strlen(s));
		bool k = len >= 4 && !memcmp(s + len - 4, "_[k]", 4);

		fprintf(f, "%-14s   %-9s %.*s%s\n", "", i ? "" : label, k ? len - 4 : len, s,
			k ? " [k]" : "");
	}
	if (n > STACK_LINES)
		fprintf(f, "%-14s   %-9s ... %zu more frames (-j or -o DIR: the whole stack)\n",
			"", "", n - STACK_LINES);
}

/* The CPUs' checks, whose causes come and go: how regularly each came */
static bool check_has_cadence(int c)
{
	return c >= HCK_INTRUDERS && c != HCK_ISOLATION;
}

/* The causes that came CADENCE_MIN times or more, with their period */
static void print_cadence(const struct hc_run *r, FILE *f)
{
	bool head = false;
	char text[96];

	for (int c = 0; c < HCK_N; c++) {
		for (size_t i = 0; check_has_cadence(c) && !r->checks[c].skipped &&
				   i < r->causes[c].n; i++) {
			const struct hc_cause *k = &r->causes[c].v[i];
			struct cadence_result p;
			size_t w;

			if (!cadence_get(&k->arrivals, &p))
				continue;
			if (!head)
				fprintf(f, "\ncadence (the median time between arrivals, and how far "
					"they stray from it):\n  %-14s %8s  %-22s %s\n", "CHECK",
					"ARRIVALS", "PERIOD", "CAUSE");
			head = true;
			cadence_fmt(&p, text, sizeof(text));
			w = esc_width(text);
			fprintf(f, "  %-14s %8zu  %s%*s %s\n", hc_check_names[c], p.intervals + 1,
				text, w < 22 ? (int)(22 - w) : 0, "", k->cause);
		}
	}
}

int hc_report_table(const struct hc_run *r, FILE *f)
{
	char cpus[256], t[32];

	cpu_list_str(r->cpus, cpus, sizeof(cpus));
	fprintf(f, "%-14s %-10s %-10s %s\n", "CHECK", "RESULT", "TIME", "TOP CAUSE");
	for (int c = 0; c < HCK_N; c++) {
		const struct hc_check *k = &r->checks[c];
		char count[32];

		if (k->skipped) {
			fprintf(f, "%-14s %-10s %-10s %s\n", k->name, "-", "-", k->skipped);
			continue;
		}
		if (k->silent) {
			fprintf(f, "%-14s %-10s\n", k->name, "SILENT");
			continue;
		}
		snprintf(count, sizeof(count), "%llu", (unsigned long long)k->count);
		if (k->time_ns)
			fmt_dur(t, sizeof(t), k->time_ns, DUR_CELL);
		else
			snprintf(t, sizeof(t), "-");
		fprintf(f, "%-14s %-10s %-10s %s\n", k->name, count, t, k->top_cause);
		if (k->fix[0])
			fix_print(f, k->fix);
		if (r->causes[c].n && (c == HCK_SYSCALLS || c == HCK_FAULTS || c == HCK_BLOCKS)) {
			stack_print(f, "stack:", r->causes[c].v[0].stack);
			if (c == HCK_BLOCKS)
				stack_print(f, "waker:", r->causes[c].v[0].waker_stack);
		}
	}
	if (r->not_kept)
		fprintf(f, "\ntimeline: the first %zu events of %llu kept (-j, -o, --correlate); "
			"%llu more counted, not kept (--max-events)\n", r->kept.n,
			(unsigned long long)r->events, (unsigned long long)r->not_kept);
	print_cadence(r, f);
	if (r->sys.n) {
		fprintf(f, "\nsyscall latency (calls seen whole):\n");
		for (size_t i = 0; i < r->sys.n; i++) {
			const struct hc_syscall_hist *s = &r->sys.v[i];
			char p50[32], p99[32], max[32];

			fmt_dur(p50, sizeof(p50), hist_percentile(&s->h, 0.5), DUR_CELL);
			fmt_dur(p99, sizeof(p99), hist_percentile(&s->h, 0.99), DUR_CELL);
			fmt_dur(max, sizeof(max), s->h.max, DUR_CELL);
			fprintf(f, "  %-20s %8llu calls  p50 %-8s p99 %-8s max %s\n", s->name,
				(unsigned long long)s->count, p50, p99, max);
		}
	}
	if (r->have_irqs) {
		for (size_t w = 0; w < r->cpus->n && w < ISOL_MAX_CPUS; w++) {
			struct irq_moved *m = NULL;
			size_t n = irq_snap_delta(&r->irq_before, &r->irq_after, w, &m);

			fprintf(f, "\n/proc/interrupts on CPU %u over the window:%s\n",
				r->cpus->cpus[w], n ? "" : " none");
			for (size_t i = 0; i < n; i++)
				fprintf(f, "  %-6s %8llu  %s\n", m[i].id,
					(unsigned long long)m[i].delta, m[i].desc);
			free(m);
		}
	}
	if (r->stolen) {
		fprintf(f, "\nstolen time (the hypervisor's, from the kernel's kvm_steal_time):\n");
		for (size_t i = 0; i < r->cpus->n; i++) {
			char line[256];

			steal_describe(&r->stolen[i], line, sizeof(line));
			fprintf(f, "  CPU %u: %s\n", r->cpus->cpus[i], line);
		}
	}
	if (r->stats[HCS_WARMUP_FAULTS])
		fprintf(f, "\n%llu page faults in the %g s warm-up, not counted\n",
			(unsigned long long)r->stats[HCS_WARMUP_FAULTS], r->warmup);
	fflush(f);
	return ferror(f) ? -1 : 0;
}

/* ---- JSON ---- */

static void json_ids(struct json *j, const char *key, const struct id_list *l)
{
	json_key(j, key);
	json_arr_begin(j);
	for (size_t i = 0; i < l->n; i++)
		json_u64(j, l->ids[i]);
	json_arr_end(j);
}

static void json_checks(struct json *j, const struct hc_run *r)
{
	json_key(j, "checks");
	json_arr_begin(j);
	for (int c = 0; c < HCK_N; c++) {
		const struct hc_check *k = &r->checks[c];

		json_obj_begin(j);
		json_kv_str(j, "check", k->name);
		json_kv_bool(j, "silent", k->silent);
		json_kv_u64(j, "count", k->count);
		json_kv_u64(j, "time_ns", k->time_ns);
		json_kv_str(j, "top_cause", k->top_cause);
		json_kv_str(j, "fix", k->fix);
		if (k->skipped)
			json_kv_str(j, "skipped", k->skipped);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void json_causes(struct json *j, const struct hc_run *r)
{
	json_key(j, "causes");
	json_obj_begin(j);
	for (int c = 0; c < HCK_N; c++) {
		json_key(j, hc_check_names[c]);
		json_arr_begin(j);
		for (size_t i = 0; i < r->causes[c].n; i++) {
			const struct hc_cause *k = &r->causes[c].v[i];

			json_obj_begin(j);
			json_kv_str(j, "cause", k->cause);
			json_kv_u64(j, "count", k->count);
			json_kv_u64(j, "time_ns", k->time_ns);
			json_kv_str(j, "stack", k->stack);
			if (c == HCK_BLOCKS)
				json_kv_str(j, "waker_stack", k->waker_stack);
			if (check_has_cadence(c))
				cadence_json(j, &k->arrivals);
			json_obj_end(j);
		}
		json_arr_end(j);
	}
	json_obj_end(j);
}

static void json_syscalls(struct json *j, const struct hc_run *r)
{
	json_key(j, "syscall_latency");
	json_arr_begin(j);
	for (size_t i = 0; i < r->sys.n; i++) {
		json_obj_begin(j);
		json_kv_str(j, "syscall", r->sys.v[i].name);
		json_kv_u64(j, "calls", r->sys.v[i].count);
		json_key(j, "latency");
		hist_json(j, &r->sys.v[i].h);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void json_machine(struct json *j, const struct hc_run *r)
{
	json_key(j, "memlock");
	json_obj_begin(j);
	json_kv_u64(j, "pid", r->memlock_pid);
	json_kv_bool(j, "known", r->memlock.valid);
	if (r->memlock.valid) {
		json_kv_u64(j, "vmlck_kb", r->memlock.vmlck_kb);
		json_kv_u64(j, "vmrss_kb", r->memlock.vmrss_kb);
		json_kv_bool(j, "mlockall", memlock_all(&r->memlock));
		json_kv_str(j, "verdict", memlock_verdict(&r->memlock));
	}
	json_obj_end(j);
	json_key(j, "config");
	json_obj_begin(j);
	json_kv_str(j, "isolated", r->cfg.isolated);
	json_kv_str(j, "nohz_full", r->cfg.nohz_full);
	json_kv_str(j, "rcu_nocbs", r->cfg.cmd[CMD_RCU_NOCBS].has ?
		    r->cfg.cmd[CMD_RCU_NOCBS].val : "");
	json_kv_str(j, "online", r->cfg.online);
	json_obj_end(j);
	json_key(j, "interrupts");
	json_arr_begin(j);
	for (size_t w = 0; r->have_irqs && w < r->cpus->n && w < ISOL_MAX_CPUS; w++) {
		struct irq_moved *m = NULL;
		size_t n = irq_snap_delta(&r->irq_before, &r->irq_after, w, &m);

		irq_moved_json(j, m, n, r->cpus->cpus[w]);
		free(m);
	}
	json_arr_end(j);
}

/* "steal": one object per hot CPU (docs/hotcheck.md) */
static void json_steal(struct json *j, const struct hc_run *r)
{
	json_key(j, "steal");
	json_arr_begin(j);
	for (size_t i = 0; r->stolen && i < r->cpus->n; i++) {
		json_obj_begin(j);
		json_kv_u64(j, "cpu", r->cpus->cpus[i]);
		steal_json(j, &r->stolen[i], false);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void json_events(struct json *j, const struct hc_run *r)
{
	const struct hc_timeline *tl = &r->tl;

	json_key(j, "events");
	json_arr_begin(j);
	for (size_t i = 0; i < tl->n; i++) {
		const struct hc_event *e = &tl->ev[i];

		json_obj_begin(j);
		json_kv_str(j, "kind", kind_names[e->kind]);
		json_kv_u64(j, "tid", e->tid);
		json_kv_i64(j, "cpu", e->cpu);
		json_kv_u64(j, "start_ns", e->start_ns);
		json_kv_i64(j, "realtime_ns", (int64_t)e->start_ns + tl->realtime_offset_ns);
		json_kv_u64(j, "dur_ns", e->dur_ns);
		json_kv_str(j, "what", e->what);
		json_kv_str(j, "actor", e->actor);
		json_kv_u64(j, "actor_tid", e->actor_tid);
		json_kv_str(j, "stack", e->stack);
		json_kv_str(j, "waker_stack", e->waker_stack);
		json_obj_end(j);
	}
	json_arr_end(j);
}

int hc_report_json(const struct hc_run *r, FILE *f)
{
	return hc_report_json_with(r, f, NULL, NULL);
}

int hc_report_json_with(const struct hc_run *r, FILE *f,
			void (*more)(struct json *j, void *arg), void *arg)
{
	struct json j;
	char cpus[256];

	cpu_list_str(r->cpus, cpus, sizeof(cpus));
	envelope_begin_to(&j, f);
	envelope_duration(&j);
	json_key(&j, "targets");
	json_obj_begin(&j);
	json_ids(&j, "pids", &r->opts->pids);
	json_ids(&j, "tids", &r->opts->tids);
	json_kv_str(&j, "cpus", cpus);
	json_kv_bool(&j, "pinned", !r->unpinned);
	json_obj_end(&j);
	json_kv_double(&j, "warmup_s", r->warmup);
	json_kv_bool(&j, "silent", hc_all_silent(r));
	json_kv_bool(&j, "threads_silent", hc_threads_silent(r));
	json_checks(&j, r);
	json_causes(&j, r);
	json_syscalls(&j, r);
	json_machine(&j, r);
	json_steal(&j, r);
	json_kv_u64(&j, "warmup_faults", r->stats[HCS_WARMUP_FAULTS]);
	json_kv_u64(&j, "fault_events", r->fault_events);
	json_kv_u64(&j, "switch_ins_unreported", r->switch_ins_unreported);
	json_key(&j, "window");
	json_obj_begin(&j);
	json_kv_u64(&j, "start_ns", r->tl.window_start_ns);
	json_kv_u64(&j, "end_ns", r->tl.window_end_ns);
	json_kv_i64(&j, "realtime_offset_ns", r->tl.realtime_offset_ns);
	json_kv_u64(&j, "events_outside", r->outside_window);
	json_obj_end(&j);
	json_events(&j, r);
	json_kv_u64(&j, "events_dropped", r->tl.events_dropped);
	json_key(&j, "timeline");
	json_obj_begin(&j);
	json_kv_u64(&j, "events", r->events);
	json_kv_u64(&j, "kept", r->kept.n);
	json_kv_u64(&j, "not_kept", r->not_kept);
	json_kv_u64(&j, "max", r->timeline_max ? r->timeline_max : HC_TIMELINE_DEFAULT);
	json_kv_u64(&j, "complete_until_ns", r->tl.complete_until_ns);
	json_kv_u64(&j, "records", r->records);
	json_kv_u64(&j, "counted_in_kernel", r->kernel_counted);
	json_kv_u64(&j, "counted_in_kernel_not_sent", r->stats[HCS_SYS_UNSENT]);
	json_obj_end(&j);
	if (more)
		more(&j, arg);
	envelope_losses_begin(&j, r->losses);
	json_kv_u64(&j, "bad_records", r->bad_records);
	json_kv_u64(&j, "syscalls_beyond_histograms", r->stats[HCS_SYSCALL_RANGE]);
	json_obj_end(&j);
	envelope_end(&j);
	return ferror(f) ? -1 : 0;
}
