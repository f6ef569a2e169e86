// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* syswatch: which system calls a process or thread makes, how long each
 * kind takes, and (--check) the proof that a hot thread makes none.
 * This file holds its options and its lifecycle hooks; the modules beside
 * it: options (--syscall), collect (the maps, the calls in progress),
 * stream (--slower-than), report (plain, JSON, the verdict) and export
 * (--metrics). */
#include <argp.h>
#include <string.h>
#include <unistd.h>

#include "bpfmaps.h"
#include "dwunw.h"
#include "flamesvg.h"
#include "folddiff.h"
#include "folded.h"
#include "msg.h"
#include "bpfload.h"
#include "lifecycle.h"
#include "mapmem.h"
#include "stacks.h"
#include "stackstore.h"
#include "collect.h"
#include "export.h"
#include "options.h"
#include "report.h"
#include "stream.h"
#include "syscalls.h"
#include "syswatch.skel.h"

static struct exporter_opts metrics;

static struct sw_opts env = {
	.max_entries = 10240,
	.s = { .stack_copy = 8192 },	/* stack_storage 0: not given */
};

enum {
	OPT_PER_THREAD = OPT_TOOL_BASE,
	OPT_SYSCALL,
	OPT_ERRORS,
	OPT_SLOWER,
};

static const char doc[] =
"Syscall latency histograms per syscall (and per thread), and the proof that\n"
"a thread makes none.\n"
"\n"
"USAGE: syswatch [-p PID | -t TID] [-d SECS] [--per-thread] [--syscall NAME,...]\n"
"                [--errors] [--slower-than USEC [--dwarf] [--svg FILE] [-f]\n"
"                [--diff BEFORE.folded]]\n"
"                [-j] [--check] [--metrics ADDR:PORT] [--metrics-file PATH]\n"
"\n"
"EXAMPLES:\n"
"    syswatch -d 5                     # every process but syswatch, 5 seconds\n"
"    syswatch -p 1 -d 5                # process 1 (all its threads)\n"
"    syswatch -p 1 --per-thread -d 5   # process 1, thread by thread\n"
"    syswatch -t 1 --check -d 10       # exit 1 if thread 1 makes any syscall\n"
"    syswatch -p 1 --syscall read,write -d 5   # only these syscalls\n"
"    syswatch -p 1 --errors -d 5       # only the calls that failed\n"
"    syswatch -p 1 --slower-than 10000 -d 5    # also stream calls over 10 ms\n"
"    syswatch -p 1 --slower-than 1000 --svg s.svg -d 5   # their flame graph\n"
"    syswatch -p 1 --slower-than 1000 -f -d 5 > s.folded # their stacks, folded\n"
"    syswatch -p 1 --slower-than 1000 --diff s.folded -d 5 # set against it\n"
"    syswatch -p 1 -j -d 5             # JSON\n";

static const struct argp_option options[] = {
	OPTS_PID,
	OPTS_TID,
	OPTS_DURATION,
	{ "per-thread", OPT_PER_THREAD, NULL, 0, "Statistics per thread and syscall", 0 },
	{ "syscall", OPT_SYSCALL, "NAME,...", 0, "Only these syscalls (names, or numbers as "
	  "syscall_NNN or NNN)", 0 },
	{ "errors", OPT_ERRORS, NULL, 0, "Only calls that failed (returned -1 .. -4095)", 0 },
	{ "slower-than", OPT_SLOWER, "USEC", 0, "Also stream every call slower than USEC "
	  "microseconds, with its user stack", 0 },
	OPTS_JSON,
	OPTS_CHECK("Exit 1 if any syscall was recorded (or is in progress), with a "
		   "one-line verdict"),
	{ "max-entries", OPT_MAX_ENTRIES, "N", 0, "Room for N (thread, syscall) entries "
	  "and N (syscall, errno) pairs (default 10240)", 0 },
	{ "stack-storage-size", OPT_STACK_STORAGE, "N", 0, "--slower-than: remember N stacks in the "
	  "kernel as sent to user space (default 16384; more are sent again, never lost)", 0 },
	OPTS_INLINE,
	OPTS_NO_PARAMS,
	{ "lines", OPT_LINES, NULL, 0, "--slower-than: show file:line of user frames where debug "
	  "info exists (slower)", 0 },
	{ "dwarf", OPT_DWARF, NULL, 0, "--slower-than: unwind user stacks with DWARF (.eh_frame) in "
	  "user space: whole stacks for code built without frame pointers (costlier)", 0 },
	OPTS_STACK_COPY("slow call"),
	{ "svg", OPT_SVG, "FILE", 0, "--slower-than: also write the slow calls as an interactive "
	  "flame graph (widths: their latency), one self-contained SVG file", 0 },
	OPTS_FOLDED,
	OPTS_DIFF,
	OPTS_METRICS,
	OPTS_VERBOSE,
	OPTS_BTF,
	OPTS_HELP_SHORT,
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	if (exporter_parse_opt(key, arg, &metrics))
		return 0;
	switch (key) {
	case OPT_PER_THREAD:
		env.per_thread = true;
		break;
	case OPT_SYSCALL:
		sw_parse_syscalls(&env, arg);
		break;
	case OPT_ERRORS:
		env.errors_only = true;
		break;
	case OPT_SLOWER:
		env.slower_us = opt_u64("--slower-than", arg, 1, ~0ULL / 1000);
		break;
	case OPT_MAX_ENTRIES:
		env.max_entries = opt_u64("--max-entries", arg, 1, UINT32_MAX);
		break;
	default:
		return stack_parse_opt(key, arg, state, &env.s, &env.c);
	}
	return 0;
}

static const char *const loss_hints[LOSS_KINDS] = {
	STACK_LOSS_HINTS,	/* with LOSS_AGG_FULL: raise --max-entries */
	[LOSS_NOMEM] = "calls not timed (no task storage for a thread) or "
		       "--per-thread rows lost",
	[LOSS_RINGBUF] = "raise --slower-than (--dwarf: or lower --stack-copy-size)",
};

/* ---- the hooks ---- */

/* --svg: where the slow calls' flame graph goes (opened before the start) */
static FILE *svg_out;
/* --diff: the earlier run's folded stacks, read before the start */
static struct folddiff *diff;

static struct syswatch {
	struct calls c;
	struct slow_calls slow;
	struct sw_summary sum;
	__u32 slots;		/* of the per-syscall array */
	struct sw_export exp;	/* --metrics, --metrics-file */
} tool;

LIFECYCLE_TOOL(syswatch, .what = "syscalls", .loss_hints = loss_hints,
	       .attach_what = "attaching to raw_syscalls sys_enter/sys_exit");

/* The per-syscall array covers the name table, rounded up */
static __u32 syscall_slots(void)
{
	__u32 slots = (__u32)((syscall_table_size() + 63) / 64 * 64);

	if (slots < SW_MIN_SYSCALLS)
		slots = SW_MIN_SYSCALLS;
	if (slots > SW_MAX_SYSCALLS)
		slots = SW_MAX_SYSCALLS;
	return slots;
}

int syswatch_configure(struct lifecycle *lc)
{
	struct syswatch_bpf *skel = lc->skel;

	tool.slots = syscall_slots();
	skel->rodata->nr_slots = tool.slots;
	skel->rodata->per_thread = env.per_thread;
	skel->rodata->errors_only = env.errors_only;
	skel->rodata->slow_ns = env.slower_us * 1000;
	skel->rodata->filter_syscalls = env.filter;
	memcpy((void *)skel->rodata->sys_mask, env.mask, sizeof(env.mask));
	skel->rodata->nr_exit = syscall_lookup("exit");
	skel->rodata->nr_exit_group = syscall_lookup("exit_group");
	if (!env.c.pids.n && !env.c.tids.n)
		skel->rodata->self_tgid = getpid();
	map_resize(skel->maps.sys_stats, env.per_thread ? 1 : tool.slots);
	if (env.per_thread)
		map_resize_opt(skel->maps.thread_stats, env.max_entries, "--max-entries",
			       env.max_entries);
	else
		map_resize(skel->maps.thread_stats, 1);
	map_resize_opt(skel->maps.errnos, env.max_entries, "--max-entries", env.max_entries);
	map_resize(skel->maps.events, env.slower_us ? 4 << 20 : 4096);
	skel->rodata->dwarf_mode = env.s.dwarf;
	skel->rodata->ustack_copy_size = env.s.stack_copy;
	if (env.slower_us) {
		lifecycle_size_stacks(lc, &env.s);
	} else {
		/* no stacks are taken */
		map_resize(skel->maps.stack_seen, 1);
		map_resize(skel->maps.stack_rb, 4096);
		map_resize(skel->maps.ustack_rb, 4096);
		map_resize(skel->maps.ustack_scratch, 1);
	}
	return 0;
}

/* --metrics: a snapshot of the maps every second, from the loop */
static void export_setup(struct lifecycle *lc)
{
	struct syswatch_bpf *skel = lc->skel;
	struct sw_export *x = &tool.exp;

	x->o = &env;
	x->sys_stats = skel->maps.sys_stats;
	x->thread_stats = skel->maps.thread_stats;
	x->errnos = skel->maps.errnos;
	x->misc = skel->maps.misc;
	x->losses = skel->maps.losses;
	exporter_hook(x->e, &lc->run, sw_export_render, x);
}

/* --slower-than: the ring buffer, read a batch at a time */
int syswatch_setup(struct lifecycle *lc)
{
	struct syswatch_bpf *skel = lc->skel;
	int err;

	if (!env.slower_us) {
		export_setup(lc);
		return 0;
	}
	lc->stacks = stackstore_new();
	err = slow_calls_start(&tool.slow, &env.c, &env.s, lc->stacks,
			       bpf_map__fd(skel->maps.stack_rb), env.s.dwarf);
	if (err)
		return bpf_fail("creating the stack ring buffer", err);
	err = lifecycle_ring(lc, skel->maps.events, slow_calls_on_event, &tool.slow,
			     "creating the ring buffer");
	if (!err && env.s.dwarf)
		err = lifecycle_ring(lc, skel->maps.ustack_rb, slow_calls_on_dwarf, &tool.slow,
				     "adding the stack-sample ring buffer");
	if (err)
		return err;
	tool.slow.rb = lc->rb;
	if (svg_out)
		tool.slow.svg = flamesvg_new();
	if (env.c.folded)
		tool.slow.fo = folded_new();
	tool.slow.diff = diff;
	diff = NULL;
	lc->run.poll = slow_calls_poll;
	lc->run.ctx = &tool.slow;
	lc->run.streaming = !env.c.json && !env.c.folded;	/* each call printed */
	export_setup(lc);
	return 0;
}

/* Which threads sit in a syscall, read while the entries are still being
 * recorded; then the driver stops, so that the report is one instant */
void syswatch_stopping(struct lifecycle *lc)
{
	collect_snap_targets(&tool.c, &env);
	tool.slow.draining = true;
	exporter_render(tool.exp.e);
}

int syswatch_collect(struct lifecycle *lc)
{
	struct syswatch_bpf *skel = lc->skel;
	struct calls *c = &tool.c;
	int err;

	err = collect_rows(c, &env, skel->maps.sys_stats, skel->maps.thread_stats,
			   skel->maps.errnos);
	if (err)
		return err;
	collect_in_progress(c, &env, skel->maps.inflight);
	collected_sort(c);
	c->misc_range = percpu_u64_sum(skel->maps.misc, SW_MISC_NR_RANGE);
	if (!env.errors_only)
		tool.sum.in_progress = c->ipn;
	tool.sum.total = c->calls + c->early + c->noreturn + tool.sum.in_progress;
	return 0;
}

void syswatch_report(struct lifecycle *lc)
{
	if (tool.slow.svg) {
		char what[96];

		snprintf(what, sizeof(what), "latency of the syscalls slower than %llu us",
			 (unsigned long long)env.slower_us);
		/* with --diff: the differential graph */
		flamesvg_finish_run(folddiff_graph(tool.slow.diff, env.s.diff, tool.slow.svg),
				    svg_out, "syswatch", what, "us", &env.c);
		tool.slow.svg = NULL;
	}
	common_opts_target(&env.c, tool.sum.who, sizeof(tool.sum.who));
	report_verdict(&tool.sum, &env, lc->end);
	if (env.c.folded) {
		/* stdout: the folded lines alone; the table is left out */
		folded_print(tool.slow.fo, stdout);
		msg_warn("%llu call%s slower than %llu us, %llu us in all",
			 (unsigned long long)tool.slow.nslow_all, tool.slow.nslow_all == 1 ? "" : "s",
			 (unsigned long long)env.slower_us, (unsigned long long)tool.slow.total_us);
		if (env.c.check)
			msg_warn("%s", tool.sum.verdict);
	} else if (env.c.json) {
		report_json(&tool.c, &tool.slow, &env, lc->losses, &tool.sum);
		if (env.c.check)
			msg_warn("%s", tool.sum.verdict);
	} else {
		if (tool.slow.header_done)
			printf("\n");
		report_plain(&tool.c, &env);
		if (tool.slow.diff)
			folddiff_print(tool.slow.diff, stdout, env.s.diff, "us", FOLDDIFF_TOP);
		if (env.c.check)
			printf("\n%s\n", tool.sum.verdict);
	}
}

int syswatch_finish(struct lifecycle *lc)
{
	const struct slow_calls *s = &tool.slow;

	if (tool.c.misc_range)
		msg_warn("%llu calls with a number outside 0..%u were not recorded",
			 (unsigned long long)tool.c.misc_range, tool.slots - 1);
	if (s->sym)
		stacksym_report(s->sym);
	if (lc->stacks)
		stackstore_report(lc->stacks);
	if (s->dw)
		dwunw_report(s->dw);
	if (env.c.json && s->nslow_all > s->nslow)
		msg_warn("%llu slow calls beyond the first %d left out of the JSON",
			 (unsigned long long)(s->nslow_all - s->nslow), MAX_JSON_SLOW);
	return lifecycle_check_exit(lc, tool.sum.total > 0);
}

void syswatch_cleanup(struct lifecycle *lc)
{
	slow_calls_free(&tool.slow);
	folddiff_free(diff);	/* not handed to the slow calls: no start */
	diff = NULL;
	collected_free(&tool.c);
	exporter_close(tool.exp.e);
}

int main(int argc, char **argv)
{
	static const struct argp argp = { options, parse_arg, NULL, doc, NULL, NULL, NULL };

	lifecycle_options("syswatch", &argp, argc, argv, &env.c);
	stack_opts_finish(&env.s);
	if (!env.slower_us && (env.s.dwarf || env.s.stack_storage || env.s.lines))
		die_usage("--dwarf, --lines and --stack-storage-size apply to --slower-than only");
	if (env.s.svg && !env.slower_us)
		die_usage("--svg applies to --slower-than only");
	if (env.c.folded && !env.slower_us)
		die_usage("-f applies to --slower-than only");
	if (env.s.diff && !env.slower_us)
		die_usage("--diff applies to --slower-than only");
	diff = folddiff_for(env.s.diff, env.c.folded);
	if (env.s.svg)
		svg_out = flamesvg_open(env.s.svg);
	if (!env.s.stack_storage)
		env.s.stack_storage = 16384;
	tool.exp.e = exporter_open(&metrics);
	return lifecycle_run(&syswatch_ops, &env.c, &tool);
}
