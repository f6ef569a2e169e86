// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* pfwatch: page faults of a process after its warm-up, by thread, user
 * stack and mapping, with the memory-locking state of the process; and
 * with --check, the proof that there were none.
 *
 * Faults come from the software perf events page-faults-maj and -min
 * (sample_period 1) carrying a BPF program.  With -p/-t the events are
 * opened on the target's threads (inherited by the threads they create),
 * so no other process pays anything; without, one per CPU.
 *
 * This file: the options and the lifecycle's hooks.  Beside it: the
 * events (events.c), the targets' memory locking (targets.c, memlock.c),
 * the mapping names (vmas.c), the collection (collect.c), the report
 * (report.c) and --metrics (export.c). */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "msg.h"
#include "clock.h"
#include "mapmem.h"
#include "opts.h"
#include "pprof.h"
#include "flamesvg.h"
#include "folddiff.h"
#include "lifecycle.h"
#include "stacks.h"
#include "stackstore.h"
#include "agg.h"
#include "bpfmaps.h"
#include "bpfload.h"
#include "xalloc.h"
#include "perfev.h"
#include "testenv.h"
#include "vmas.h"
#include "announce.h"
#include "dwunw.h"
#include "events.h"
#include "collect.h"
#include "export.h"
#include "report.h"
#include "targets.h"
#include "pfwatch.h"
#include "pfwatch.skel.h"

static struct env {
	struct common_opts c;
	double warmup;			/* seconds */
	bool per_cpu;
	struct stack_opts s;	/* sizes, --lines, --dwarf */
} env = {
	.s = { .stack_storage = 16384, .max_entries = 32768, .stack_copy = 8192 },
};

enum {
	OPT_WARMUP = OPT_TOOL_BASE,
	OPT_PER_CPU,
};

static const char doc[] =
"Page faults by thread, user stack and mapping; with --check, the proof\n"
"that a warmed-up process takes none.\n"
"\n"
"USAGE: pfwatch [-p PID | -t TID] [-d SECS] [--warmup SECS] [-f | -j] [--check]\n"
"               [--dwarf] [--pprof FILE] [--svg FILE] [--diff BEFORE.folded]\n"
"               [--metrics ADDR:PORT] [--metrics-file PATH]\n"
"\n"
"EXAMPLES:\n"
"    pfwatch -p 185                   # faults of process 185 until Ctrl-C\n"
"    pfwatch -p 185 -d 10 --warmup 3  # faults after the first 3 s only\n"
"    pfwatch -p 185 -d 10 --check     # exit 1 if process 185 took any fault\n"
"    pfwatch -t 188 -d 5              # thread 188 only\n"
"    pfwatch -d 5                     # every process, for 5 seconds\n"
"    pfwatch -p 185 -f -d 10 > out.folded   # for flamegraph.pl\n"
"    pfwatch -p 185 -j -d 5           # JSON\n"
"    pfwatch -p 185 -d 10 --pprof pf.pb.gz   # a pprof profile\n"
"    pfwatch -p 185 -d 10 --svg pf.svg       # a flame graph, and the report\n"
"    pfwatch -p 185 -d 10 --diff out.folded  # what grew and shrank since\n"
"    pfwatch --dwarf -p 185 -f -d 5   # whole stacks, no frame pointers\n";

static const struct argp_option options[] = {
	OPTS_HELP_SHORT,
	OPTS_PID,
	OPTS_TID,
	OPTS_DURATION,
	{ "warmup", OPT_WARMUP, "SECS", 0, "Faults in the first SECS seconds are warm-up: counted "
	  "apart, not violations (default 0)", 0 },
	OPTS_FOLDED,
	OPTS_JSON,
	OPTS_CHECK("Exit 1 if any fault was recorded after the warm-up"),
	{ "per-cpu", OPT_PER_CPU, NULL, 0, "With -p/-t, use per-CPU perf events filtered in BPF "
	  "instead of events on the target's threads", 0 },
	OPTS_STACK_STORAGE,
	{ "max-entries", OPT_MAX_ENTRIES, "N", 0, "Room for N (thread, stack, mode) entries between two drains "
	  "(every second; default 32768)", 0 },
	OPTS_INLINE,
	OPTS_NO_PARAMS,
	OPTS_LINES,
	OPTS_PPROF,
	OPTS_SVG,
	OPTS_DIFF,
	OPTS_DWARF("user stacks"),
	OPTS_STACK_COPY("fault"),
	OPTS_METRICS,
	OPTS_VERBOSE,
	OPTS_BTF,
	{},
};

static struct exporter_opts metrics;

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	if (exporter_parse_opt(key, arg, &metrics))
		return 0;
	switch (key) {
	case OPT_WARMUP:
		env.warmup = opt_seconds("--warmup", arg);
		break;
	case OPT_PER_CPU:
		env.per_cpu = true;
		break;
	default:
		return stack_parse_opt(key, arg, state, &env.s, &env.c);
	}
	return 0;
}

/* ---- the lifecycle's hooks ---- */

static struct pfwatch {
	struct targets targets;
	struct fault_events ev;
	struct faults c;
	struct aggmap *counts;	/* drained while tracing */
	struct report_in r;	/* and its symbolizer, mappings, event mode */
	struct pf_export exp;	/* --metrics, --metrics-file */
} tool;

static const char *const loss_hints[LOSS_KINDS] = {
	STACK_LOSS_HINTS,
	[LOSS_RINGBUF] = "mapping names, or --dwarf stack samples (lower --stack-copy-size)",
};

LIFECYCLE_TOOL(pfwatch, .attach_what = "attaching to sched_process_exec",
	       .loss_hints = loss_hints);

/* Processes and mappings to capture while they live */
static int on_event(void *vctx, void *data, size_t size)
{
	const struct announce_event *a = data;
	const struct pf_event *e = data;

	if (size < sizeof(*a))
		return 0;
	if (a->type == ANNOUNCE_EV_NEW_PROCESS) {
		stacksym_cache_image(tool.r.sym, a->tgid, a->exec_id);
		vmas_capture(tool.r.vmas, a->tgid, a->exec_id);
		if (tool.c.dw)
			dwunw_cache_pid(tool.c.dw, a->tgid);
	} else if (a->type == PF_EV_NEW_REGION && size >= sizeof(*e)) {
		/* a fault in a region not seen before: name its mapping now */
		if (!vmas_find(tool.r.vmas, a->tgid, a->exec_id, e->addr))
			vmas_capture(tool.r.vmas, a->tgid, a->exec_id);
	}
	return 0;
}

static int poll_events(void *vctx, int timeout_ms)
{
	struct lifecycle *lc = vctx;
	struct pfwatch_bpf *skel = lc->skel;
	int err = lifecycle_poll(lc, timeout_ms);

	targets_refresh(&tool.targets, false);
	/* the end of the warm-up: the program then reads no clock */
	if (skel->bss->warmup_end_ns && now_ns() >= skel->bss->warmup_end_ns)
		skel->bss->warmup_end_ns = 0;
	fault_events_tick(&tool.ev);
	return err;
}

/* Per-thread events unless they would take too many descriptors */
int pfwatch_prepare(struct lifecycle *lc)
{

	tool.r.task_mode = (env.c.pids.n || env.c.tids.n) && !env.per_cpu;
	if (tool.r.task_mode) {
		size_t threads = fault_events_threads(&env.c);

		if (threads * 4 + 64 > perfev_fd_room()) {
			msg_warn("%zu threads need more file descriptors than ulimit -n "
				 "allows; using per-CPU events", threads);
			tool.r.task_mode = false;
		}
	}
	return 0;
}

int pfwatch_configure(struct lifecycle *lc)
{
	struct pfwatch_bpf *skel = lc->skel;

	skel->rodata->skip_fault_every = testenv_skip_fault();
	skel->rodata->dwarf_mode = env.s.dwarf;
	skel->rodata->ustack_copy_size = env.s.stack_copy;
	lifecycle_size_stacks(lc, &env.s);
	map_resize_opt(skel->maps.counts_a, env.s.max_entries, "--max-entries", env.s.max_entries);
	map_resize_opt(skel->maps.counts_b, env.s.max_entries, "--max-entries", env.s.max_entries);
	return 0;
}

int pfwatch_setup(struct lifecycle *lc)
{
	struct pfwatch_bpf *skel = lc->skel;
	int err = lifecycle_agg(lc, &skel->bss->agg_slot);

	if (err)
		return err;
	tool.counts = agg_add(lc->agg, skel->maps.counts_a, skel->maps.counts_b, pf_val_combine);

	tool.r.sym = stacksym_for(&env.s);
	stacksym_set_dwarf_hint(tool.r.sym, !env.s.dwarf);
	tool.r.vmas = vmas_new();
	targets_init(&tool.targets, &env.c);
	if (env.s.dwarf)
		collected_dwarf(&tool.c);
	for (size_t i = 0; i < tool.targets.n; i++) {
		stacksym_cache_pid(tool.r.sym, tool.targets.t[i].pid);
		vmas_capture(tool.r.vmas, tool.targets.t[i].pid, 0);
		if (tool.c.dw)
			dwunw_cache_pid(tool.c.dw, tool.targets.t[i].pid);
	}
	lc->run.poll = poll_events;
	lc->run.ctx = lc;
	return lifecycle_stack_rings(lc, env.s.dwarf, on_event, NULL,
				     collected_on_sample, &tool.c);
}

/* Every event of ours ran the program: what it did not count was lost
 * (per-CPU events with a filter also count other processes) */
static bool every_event_ours(void)
{
	return tool.r.task_mode || (!env.c.pids.n && !env.c.tids.n);
}

/* The end of the warm-up, then the perf events that run the programs */
int pfwatch_started(struct lifecycle *lc)
{
	struct pfwatch_bpf *skel = lc->skel;
	int err;

	if (env.warmup > 0)
		skel->bss->warmup_end_ns = now_ns() + (__u64)(env.warmup * 1e9);
	tool.ev.major = skel->progs.pf_major;
	tool.ev.minor = skel->progs.pf_minor;
	tool.ev.dedupe = &skel->bss->dedupe;
	tool.ev.o = &env.c;
	err = fault_events_open(&tool.ev, tool.r.task_mode);
	if (err) {
		msg_warn("opening the page-fault perf events: %s", perfev_strerror(err));
		return EXIT_UNSUPPORTED;
	}
	if (!perfev_size(tool.ev.pev)) {
		/* nothing watched must not pass for "no fault" */
		msg_warn("every traced process or thread exited before tracing began");
		return EXIT_USAGE;
	}
	tool.exp.counts = tool.counts;
	tool.exp.pending = skel->maps.pending;
	tool.exp.losses = skel->maps.losses;
	tool.exp.c = &tool.c;
	tool.exp.targets = &tool.targets;
	tool.exp.ev = &tool.ev;
	tool.exp.stats = skel->maps.stats;
	tool.exp.count_missed = every_event_ours();
	exporter_hook(tool.exp.e, &lc->run, pf_export_render, &tool.exp);
	return 0;
}

/* --metrics: the last snapshot, while still recording */
void pfwatch_stopping(struct lifecycle *lc)
{

	exporter_render(tool.exp.e);
}

void pfwatch_ready(struct lifecycle *lc, struct ready_line *r)
{

	ready_tracing(r, "page faults", &env.c);
	/* two software perf events per thread or CPU: major and minor faults */
	snprintf(r->detail, sizeof(r->detail),
		 "counted by perf events on %zu %s%s, two each: major and minor faults",
		 perfev_size(tool.ev.pev) / 2, tool.r.task_mode ? "thread" : "CPU",
		 perfev_size(tool.ev.pev) / 2 == 1 ? "" : "s");
	if (env.warmup > 0)
		snprintf(r->after, sizeof(r->after),
			 "faults in the first %g s are warm-up, not violations", env.warmup);
}

/* Recording stops with the perf events (the exec programs stay) */
void pfwatch_detach(struct lifecycle *lc)
{

	perfev_disable(tool.ev.pev);
}

void pfwatch_stopped(struct lifecycle *lc)
{

	targets_refresh(&tool.targets, true);
}

static void read_stats(struct bpf_map *m, __u64 out[PF_STATS])
{
	for (__u32 k = 0; k < PF_STATS; k++)
		out[k] = percpu_u64_sum(m, k);
}

/* The faults each CPU still held (bpf/pfwatch.h: struct pf_pending)
 * into the counts: the programs have stopped */
static int pending_merge(struct bpf_map *m)
{
	int n = ncpus_possible();
	struct pf_pending *v;
	__u32 zero = 0;

	if (n <= 0)
		return n;
	v = xcalloc((size_t)n, sizeof(*v));
	if (bpf_map_lookup_elem(bpf_map__fd(m), &zero, v)) {
		int err = -errno;

		free(v);
		return err;
	}
	for (int c = 0; c < n; c++)
		if (v[c].n)
			agg_merge(tool.counts, &v[c].key, &v[c].val);
	free(v);
	return 0;
}

int pfwatch_collect(struct lifecycle *lc)
{
	struct pfwatch_bpf *skel = lc->skel;
	struct report_in *r = &tool.r;
	int err = pending_merge(skel->maps.pending);

	if (err)
		return err;
	collected_read(&tool.c, tool.counts);
	read_stats(skel->maps.stats, r->stats);
	if (every_event_ours()) {
		__u64 seen = r->stats[PF_STAT_MAJOR] + r->stats[PF_STAT_MINOR] +
			     r->stats[PF_STAT_DUP];

		r->kernel_count = fault_events_count(&tool.ev);
		r->kernel_count_valid = true;
		r->missed = r->kernel_count > seen ? r->kernel_count - seen : 0;
	}
	return 0;
}

void pfwatch_report(struct lifecycle *lc)
{
	struct report_in *r = &tool.r;

	r->stacks = lc->stacks;
	r->targets = &tool.targets;
	r->c = &tool.c;
	r->losses = lc->losses;
	r->warmup = env.warmup;
	r->folded = env.c.folded;
	r->json = env.c.json;
	report_faults(r);
}

int pfwatch_finish(struct lifecycle *lc)
{
	const struct faults *c = &tool.c;
	int err;

	if (tool.r.missed)
		msg_warn("%llu page faults counted by the kernel were not seen by the "
			 "BPF program", (unsigned long long)tool.r.missed);
	stacksym_report(tool.r.sym);
	stackstore_report(lc->stacks);
	if (c->dw)
		dwunw_report(c->dw);
	if (tool.ev.late)
		msg_warn("%zu threads were found by listing the process's threads again "
			 "(a thread was created while the events were being opened): "
			 "faults they took before that may be missing", tool.ev.late);
	if (tool.ev.uncovered)
		msg_warn("%zu threads created while the events were being opened have "
			 "no event of their own (this kernel lacks BPF attach cookies, "
			 "Linux 5.15): their faults are counted only if they inherited "
			 "their creator's", tool.ev.uncovered);
	err = lifecycle_check_exit(lc, c->major[0] + c->minor[0]);
	/* a fault counted but not recorded may have been a violation */
	if (env.c.check && err == EXIT_REPORTED && tool.r.missed + lc->losses[LOSS_AGG_FULL]) {
		msg_warn("--check: some faults were not recorded: there may have been "
			 "violations");
		err = EXIT_FOUND;
	}
	return err;
}

void pfwatch_cleanup(struct lifecycle *lc)
{

	fault_events_free(&tool.ev);
	stacksym_free(tool.r.sym);
	vmas_free(tool.r.vmas);
	targets_free(&tool.targets);
	collected_free(&tool.c);
	pf_export_free(&tool.exp);
}

int main(int argc, char **argv)
{
	static const struct argp argp = { options, parse_arg, NULL, doc, NULL, NULL, NULL };

	lifecycle_options("pfwatch", &argp, argc, argv, &env.c);
	if (env.c.duration && env.warmup >= env.c.duration)
		die_usage("--warmup %g is not shorter than -d %g: nothing would be "
			  "checked", env.warmup, env.c.duration);
	stack_opts_finish(&env.s);
	if (env.s.pprof)
		tool.r.pprof = pprof_open(env.s.pprof, &env.c);
	if (env.s.svg)
		tool.r.svg = flamesvg_open(env.s.svg);
	tool.r.diff = folddiff_for(env.s.diff, env.c.folded);
	tool.r.diff_path = env.s.diff;
	tool.r.opts = &env.c;
	tool.exp.e = exporter_open(&metrics);
	return lifecycle_run(&pfwatch_ops, &env.c, &tool);
}
