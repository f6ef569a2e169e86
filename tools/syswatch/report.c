// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "report.h"
#include "clock.h"
#include "escape.h"
#include "folddiff.h"
#include "histogram.h"
#include "json.h"
#include "lifecycle.h"
#include "stacks.h"
#include "syscalls.h"
#include "table.h"

#include <stdio.h>
#include <string.h>

/* ---- plain text ---- */

#define TOP_ERRNOS 3

static void print_table(const struct row *rows, size_t n, const char *indent)
{
	static const char *const hdr[] = { "SYSCALL", "COUNT", "ERRORS", "TOTAL", "AVG",
		"MIN", "P50", "P99", "P99.9", "MAX", "TOP ERRNOS" };
	struct table *t = table_new(11, hdr, "lrrrrrrrrrl");
	const double pct[] = { 0.50, 0.99, 0.999 };
	char b[40], errs[200];
	bool any = false;

	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		const struct hist *h = &r->v.h;
		size_t off = 0;

		if (!h->count)
			continue;
		any = true;
		table_cell(t, "%s", syscall_name_fmt(r->nr, b, sizeof(b)));
		table_cell(t, "%llu", (unsigned long long)h->count);
		table_cell(t, "%llu", (unsigned long long)r->v.errors);
		table_cell(t, "%s", (fmt_dur(b, sizeof(b), h->sum, DUR_CELL), b));
		table_cell(t, "%s", (fmt_dur(b, sizeof(b), h->sum / h->count, DUR_CELL), b));
		table_cell(t, "%s", (fmt_dur(b, sizeof(b), hist_min(h), DUR_CELL), b));
		for (int k = 0; k < 3; k++)
			table_cell(t, "%s", (fmt_dur(b, sizeof(b), hist_percentile(h, pct[k]), DUR_CELL), b));
		table_cell(t, "%s", (fmt_dur(b, sizeof(b), h->max, DUR_CELL), b));
		errs[0] = 0;
		for (size_t k = 0; k < r->nerr && k < TOP_ERRNOS && off < sizeof(errs); k++)
			off += snprintf(errs + off, sizeof(errs) - off, "%s%s:%llu", k ? " " : "",
					errno_name(r->errs[k].err, b, sizeof(b)),
					(unsigned long long)r->errs[k].count);
		if (r->nerr > TOP_ERRNOS && off < sizeof(errs))
			snprintf(errs + off, sizeof(errs) - off, " +%zu more",
				 r->nerr - TOP_ERRNOS);
		table_cell(t, "%s", errs);
	}
	if (any)
		table_print(t, stdout, indent);
	table_free(t);
}

/* Calls with no latency: "what: name:count ..." for a field of sw_val */
static void print_uncounted(const struct row *rows, size_t n, const char *indent,
			    size_t off, const char *what)
{
	bool any = false;
	char nb[40];

	for (size_t i = 0; i < n; i++) {
		__u64 v = *(const __u64 *)((const char *)&rows[i].v + off);

		if (!v)
			continue;
		if (!any)
			printf("%s%s:", indent, what);
		any = true;
		printf(" %s:%llu", syscall_name_fmt(rows[i].nr, nb, sizeof(nb)),
		       (unsigned long long)v);
	}
	if (any)
		printf("\n");
}

static void print_hists(const struct row *rows, size_t n, const char *indent)
{
	char nb[40], ind[32];

	snprintf(ind, sizeof(ind), "%s    ", indent);
	for (size_t i = 0; i < n; i++) {
		if (!rows[i].v.h.count)
			continue;
		printf("\n%s%s (nr %ld)\n", indent,
		       syscall_name_fmt(rows[i].nr, nb, sizeof(nb)), rows[i].nr);
		hist_print(stdout, &rows[i].v.h, ind);
	}
}

/* The table, the calls of unknown latency, the histograms */
static void print_rows(const struct row *rows, size_t n, const char *indent)
{
	print_table(rows, n, indent);
	print_uncounted(rows, n, indent, offsetof(struct sw_val, early),
			"entered before tracing began, finished during it "
			"(latency unknown)");
	print_uncounted(rows, n, indent, offsetof(struct sw_val, noreturn),
			"entered, never return (thread or process exit)");
	print_hists(rows, n, indent);
}

static void print_in_progress(const struct calls *c)
{
	static const char *const hdr[] = { "TID", "PID", "COMM", "SYSCALL", "ELAPSED" };
	struct table *t;
	bool before = false;
	char b[40];

	if (!c->ipn)
		return;
	t = table_new(5, hdr, "rrlll");
	for (size_t i = 0; i < c->ipn; i++) {
		const struct inprog *ip = &c->ip[i];

		table_cell(t, "%u", ip->tid);
		table_cell(t, "%u", ip->pid);
		table_cell(t, "%s", ip->comm);
		table_cell(t, "%s", syscall_name_fmt(ip->nr, b, sizeof(b)));
		fmt_dur(b, sizeof(b), ip->elapsed_ns, DUR_CELL);
		table_cell(t, "%s%s", ip->before_start ? ">= " : "", b);
		before |= ip->before_start;
	}
	printf("\nIn progress when tracing stopped:\n");
	table_print(t, stdout, "");
	table_free(t);
	if (before)
		printf("(\">=\": in the call since before tracing began)\n");
}

void report_plain(const struct calls *c, const struct sw_opts *o)
{
	if (!c->n) {
		printf("No syscalls recorded.\n");
	} else if (!o->per_thread) {
		print_rows(c->rows, c->n, "");
	} else {
		for (size_t i = 0; i < c->tn; ) {
			size_t j = i;

			while (j < c->tn && c->trows[j].tid == c->trows[i].tid)
				j++;
			printf("%stid %u (%s), pid %u\n", i ? "\n" : "", c->trows[i].tid,
			       ESC(c->trows[i].comm), c->trows[i].pid);
			print_rows(c->trows + i, j - i, "  ");
			i = j;
		}
	}
	print_in_progress(c);
}

/* ---- JSON ---- */

static void json_syscall(struct json *j, long nr)
{
	char nb[40];

	json_kv_str(j, "name", syscall_name_fmt(nr, nb, sizeof(nb)));
	json_kv_i64(j, "nr", nr);
}

/* "tid", "pid", "comm", then the syscall's "name" and "nr" */
static void json_call(struct json *j, __u32 tid, __u32 pid, const char *comm, long nr)
{
	json_kv_u64(j, "tid", tid);
	json_kv_u64(j, "pid", pid);
	json_kv_str(j, "comm", comm);
	json_syscall(j, nr);
}

static void json_row(struct json *j, const struct row *r)
{
	char eb[24];

	json_obj_begin(j);
	if (r->tid)
		json_call(j, r->tid, r->pid, r->comm, r->nr);
	else
		json_syscall(j, r->nr);
	json_kv_u64(j, "count", r->v.h.count);
	json_kv_u64(j, "errors", r->v.errors);
	json_kv_u64(j, "total_ns", r->v.h.sum);
	json_kv_u64(j, "min_ns", hist_min(&r->v.h));
	json_kv_u64(j, "max_ns", r->v.h.max);
	hist_json_percentiles(j, &r->v.h);
	json_kv_u64(j, "entered_before_start", r->v.early);
	json_kv_u64(j, "no_return", r->v.noreturn);
	json_key(j, "errnos");
	json_arr_begin(j);
	for (size_t k = 0; k < r->nerr; k++) {
		json_obj_begin(j);
		json_kv_u64(j, "errno", r->errs[k].err);
		json_kv_str(j, "name", errno_name(r->errs[k].err, eb, sizeof(eb)));
		json_kv_u64(j, "count", r->errs[k].count);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "histogram");
	hist_json(j, &r->v.h);
	json_obj_end(j);
}

static void json_rows(struct json *j, const char *key, const struct row *rows, size_t n)
{
	json_key(j, key);
	json_arr_begin(j);
	for (size_t i = 0; i < n; i++)
		json_row(j, &rows[i]);
	json_arr_end(j);
}

static void json_in_progress(struct json *j, const struct calls *c)
{
	json_key(j, "in_progress");
	json_arr_begin(j);
	for (size_t i = 0; i < c->ipn; i++) {
		const struct inprog *ip = &c->ip[i];

		json_obj_begin(j);
		json_call(j, ip->tid, ip->pid, ip->comm, ip->nr);
		json_kv_u64(j, "elapsed_ns", ip->elapsed_ns);
		json_kv_bool(j, "entered_before_start", ip->before_start);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void json_slow_calls(struct json *j, const struct slow_calls *s)
{
	json_key(j, "slow_calls");
	json_arr_begin(j);
	for (size_t i = 0; i < s->nslow; i++) {
		const struct sw_event *e = &s->slow[i].e;
		struct stack_frames f;

		json_obj_begin(j);
		json_kv_u64(j, "time_ns", s->slow[i].wall_ns);
		json_call(j, e->tid, e->pid, e->comm, e->nr);
		json_kv_u64(j, "latency_ns", e->lat_ns);
		json_kv_i64(j, "ret", e->ret);
		slow_call_frames(s, e, s->slow[i].dwarf_id, &f);
		/* a stack not taken is an empty list here, FRAME_USER_LOST in plain */
		stack_frames_json_user(j, &f, f.ulost ? 0 : f.un);
		json_obj_end(j);
	}
	json_arr_end(j);
}

void report_json(const struct calls *c, const struct slow_calls *slow,
		 const struct sw_opts *o, const __u64 losses[LOSS_KINDS],
		 const struct sw_summary *s)
{
	struct json j;

	envelope_begin(&j);
	json_kv_str(&j, "arch", syscall_table_arch());
	json_kv_str(&j, "target", s->who);
	envelope_duration(&j);
	json_kv_bool(&j, "errors_only", o->errors_only);
	json_kv_u64(&j, "total_calls", c->calls);
	json_rows(&j, "syscalls", c->rows, c->n);
	if (o->per_thread)
		json_rows(&j, "per_thread", c->trows, c->tn);
	json_in_progress(&j, c);
	if (o->slower_us) {
		json_kv_u64(&j, "slower_than_us", o->slower_us);
		json_slow_calls(&j, slow);
		json_kv_u64(&j, "slow_calls_not_kept", slow->nslow_all - slow->nslow);
		if (slow->diff)
			folddiff_json(slow->diff, &j, o->s.diff, FOLDDIFF_TOP);
	}
	envelope_losses_begin(&j, losses);
	json_kv_u64(&j, "syscall_number_out_of_range", c->misc_range);
	json_obj_end(&j);
	if (o->c.check) {
		json_key(&j, "check");
		json_obj_begin(&j);
		json_kv_u64(&j, "syscalls", s->total);
		json_kv_bool(&j, "found", s->total > 0);
		json_kv_str(&j, "verdict", s->verdict);
		json_obj_end(&j);
	}
	envelope_end(&j);
}

/* ---- the --check verdict ---- */

void report_verdict(struct sw_summary *s, const struct sw_opts *o, enum run_end end)
{
	char what[64];
	size_t n;

	snprintf(what, sizeof(what), "%llu %s%s", (unsigned long long)s->total,
		 o->errors_only ? "failed syscall" : "syscall", s->total == 1 ? "" : "s");
	run_verdict(s->verdict, sizeof(s->verdict), what, s->who, end, o->c.duration);
	n = strlen(s->verdict);
	if (s->in_progress)
		snprintf(s->verdict + n, sizeof(s->verdict) - n, " (%llu still in progress)",
			 (unsigned long long)s->in_progress);
}
