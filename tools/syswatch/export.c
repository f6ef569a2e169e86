// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "export.h"
#include "bpfmaps.h"
#include "collect.h"
#include "syscalls.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>

#define HIST_NAME "syswatch_syscall_duration_seconds"
#define THIST_NAME "syswatch_thread_syscall_duration_seconds"
#define ERR_NAME "syswatch_syscall_errors_total"
#define TERR_NAME "syswatch_thread_syscall_errors_total"
#define TOTAL_NAME "syswatch_syscalls_total"
#define UNTIMED_NAME "syswatch_syscalls_untimed_total"

/* A row's labels: syscall, and for a thread's row tid, pid and comm;
 * then room for one more (errno, reason) */
struct row_labels {
	struct mlabel l[5];
	size_t n;
	char sys[32], tid[16], pid[16];
};

static void row_labels(struct row_labels *rl, const struct row *r)
{
	rl->n = 0;
	rl->l[rl->n++] = (struct mlabel){ "syscall",
		syscall_name_fmt(r->nr, rl->sys, sizeof(rl->sys)) };
	if (!r->tid)
		return;
	snprintf(rl->tid, sizeof(rl->tid), "%u", r->tid);
	snprintf(rl->pid, sizeof(rl->pid), "%u", r->pid);
	rl->l[rl->n++] = (struct mlabel){ "tid", rl->tid };
	rl->l[rl->n++] = (struct mlabel){ "pid", rl->pid };
	rl->l[rl->n++] = (struct mlabel){ "comm", r->comm };
}

static void hists(struct mtext *t, const char *name, const struct row *rows, size_t n)
{
	struct row_labels rl;

	for (size_t i = 0; i < n; i++) {
		row_labels(&rl, &rows[i]);
		mtext_hist(t, name, rl.l, rl.n, &rows[i].v.h, &mbounds_ns_pow4);
	}
}

static void errors(struct mtext *t, const char *name, const struct row *rows, size_t n)
{
	struct row_labels rl;
	char eb[32];

	for (size_t i = 0; i < n; i++) {
		row_labels(&rl, &rows[i]);
		for (size_t k = 0; k < rows[i].nerr; k++) {
			rl.l[rl.n] = (struct mlabel){ "errno",
				errno_name((int)rows[i].errs[k].err, eb, sizeof(eb)) };
			mtext_u64(t, name, rl.l, rl.n + 1, rows[i].errs[k].count);
		}
	}
}

static void untimed(struct mtext *t, const struct row *rows, size_t n)
{
	struct row_labels rl;

	for (size_t i = 0; i < n; i++) {
		if (!rows[i].v.early && !rows[i].v.noreturn)
			continue;
		row_labels(&rl, &rows[i]);
		rl.l[rl.n] = (struct mlabel){ "reason", "entered_before_start" };
		mtext_u64(t, UNTIMED_NAME, rl.l, rl.n + 1, rows[i].v.early);
		rl.l[rl.n] = (struct mlabel){ "reason", "never_returns" };
		mtext_u64(t, UNTIMED_NAME, rl.l, rl.n + 1, rows[i].v.noreturn);
	}
}

void sw_export_render(struct mtext *t, void *ctx)
{
	struct sw_export *x = ctx;
	struct calls *c = xcalloc(1, sizeof(*c));
	static const char *const names[] = { "syscall_nr_out_of_range", "snapshot_read_failed" };
	__u64 l[LOSS_KINDS], counts[2];

	if (collect_rows(c, x->o, x->sys_stats, x->thread_stats, x->errnos))
		x->read_failed++;
	collected_sort(c);
	mtext_family(t, HIST_NAME, "histogram", "Latency of the system calls seen whole, "
		     "by syscall (le: 2^10, 2^12 .. 2^34 ns)");
	hists(t, HIST_NAME, c->rows, c->n);
	mtext_family(t, TOTAL_NAME, "counter", "System calls of the targets, timed or not "
		     "(there from the start: increase() sees the first ones)");
	mtext_u64(t, TOTAL_NAME, NULL, 0, c->calls + c->early + c->noreturn);
	mtext_family(t, ERR_NAME, "counter", "Failed system calls, by syscall and errno");
	errors(t, ERR_NAME, c->rows, c->n);
	mtext_family(t, UNTIMED_NAME, "counter", "System calls not timed: entered before "
		     "tracing began, or never returning (exit)");
	untimed(t, c->rows, c->n);
	if (x->o->per_thread) {
		mtext_family(t, THIST_NAME, "histogram", "Latency of the system calls seen "
			     "whole, by thread and syscall (--per-thread)");
		hists(t, THIST_NAME, c->trows, c->tn);
		mtext_family(t, TERR_NAME, "counter", "Failed system calls, by thread, "
			     "syscall and errno (--per-thread)");
		errors(t, TERR_NAME, c->trows, c->tn);
	}
	losses_read(x->losses, l);
	counts[0] = percpu_u64_sum(x->misc, SW_MISC_NR_RANGE);
	counts[1] = x->read_failed;
	exporter_common(x->e, t, l, names, counts, 2);
	collected_free(c);
	free(c);
}
