// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* hotcheck: the whole evidence for hot threads in one window and one BPF
 * object: their syscalls, page faults after a warm-up, blocks and their
 * wakers, preemptions, migrations and signals, and everything else that
 * ran on their CPUs, with the CPUs' isolation configuration.  One row per
 * check: SILENT, or the count, the top cause and its fix.  Passive: it
 * moves its own threads off the hot CPUs and reads its ring buffer from
 * elsewhere. */
#include <argp.h>
#include <sched.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "msg.h"
#include "bpfload.h"
#include "clock.h"
#include "mapmem.h"
#include "perfev.h"
#include "preempt.h"
#include "opts.h"
#include "run.h"
#include "lifecycle.h"
#include "aggmap.h"
#include "stacks.h"
#include "stackstore.h"
#include "syscalls.h"
#include "xalloc.h"
#include "baseline.h"
#include "bundle.h"
#include "collect.h"
#include "compare.h"
#include "correlate.h"
#include "export.h"
#include "pprof.h"
#include "hotcheck.h"
#include "hotcheck.skel.h"
#include "kfeat.h"
#include "steal.h"

static struct env {
	struct common_opts c;
	struct stack_opts s;	/* --pprof, --lines, --inline, --no-params */
	double warmup;
	uint64_t ringbuf_kb;
	bool cpus_given;
	const char *correlate;		/* --correlate FILE ("-": stdin) */
	enum hc_clock clock;		/* --clock */
	bool clock_given;
	const char *baseline;		/* --baseline FILE */
	const char *outdir;		/* -o DIR */
	uint64_t max_events;		/* --max-events */
	bool unpinned;			/* the threads may run on every CPU */
	char affinity[256];		/* then: those CPUs */
} env = {
	.max_events = HC_TIMELINE_DEFAULT,
	.ringbuf_kb = 16384,
};

enum {
	OPT_WARMUP = OPT_TOOL_BASE,
	OPT_RINGBUF,
	OPT_CORRELATE,
	OPT_CLOCK,
	OPT_BASELINE,
	OPT_MAX_EVENTS,
};

static const char doc[] =
"The whole evidence for hot threads in one command: their syscalls, page\n"
"faults, blocks (and wakers), preemptions, migrations and signals, and\n"
"everything that ran on their CPUs.  One row per check: SILENT, or the\n"
"count, the top cause and its fix.\n"
"Exit status: 0 every check silent, 1 not, 2 bad input, 3 cannot trace.\n"
"\n"
"USAGE: hotcheck -t TID[,TID...] | -p PID  [-C CPU] [-d SECS]\n"
"                [--warmup SECS] [--correlate FILE [--clock mono|real]]\n"
"                [--baseline FILE] [-o DIR] [--pprof FILE] [-j]\n"
"\n"
"EXAMPLES:\n"
"    hotcheck -t 4242 -d 10               # thread 4242 and its CPU, for 10 s\n"
"    hotcheck -t 4242 -d 10 --warmup 2    # faults of the first 2 s are warm-up\n"
"    hotcheck -p 4200 -C 1 -d 5 -j        # every thread of 4200, CPU 1, JSON\n"
"    hotcheck -t 4242 --correlate slow.txt   # explain the slow requests\n"
"    hotcheck -t 4242 -d 10 -j > before.json # a verdict, before a fix\n"
"    hotcheck -t 4242 -d 10 --baseline before.json -o ev  # after; bundle\n";

static const struct argp_option options[] = {
	OPTS_TID,
	OPTS_PID,
	OPTS_CPU("The hot CPUs (default: the CPUs the threads may run on)"),
	OPTS_DURATION,
	{ "lines", OPT_LINES, NULL, 0, "Show file:line of user frames where debug info exists "
	  "(slower)", 0 },
	OPTS_INLINE,
	OPTS_NO_PARAMS,
	{ "warmup", OPT_WARMUP, "SECS", 0, "Page faults in the first SECS seconds are "
	  "warm-up: counted apart, not checked", 0 },
	{ "max-events", OPT_MAX_EVENTS, "N", 0, "Events kept for the timeline (-j's events, "
	  "-o's timeline.tsv, --correlate; default 10000): the first N of the hot threads' own "
	  "events of the window, and N of their CPUs'; every event is counted in the checks "
	  "all the same", 0 },
	{ "ringbuf-kb", OPT_RINGBUF, "KB", 0, "Event ring buffer size (default 16384; "
	  "rounded up to a power of 2)", 0 },
	{ "correlate", OPT_CORRELATE, "FILE", 0, "The application's slow requests, one a line: "
	  "TIMESTAMP [LATENCY] (ns, or s.frac); each is explained by the events that overlap "
	  "it.  Read when the window ends ('-': stdin, to its end)", 0 },
	{ "clock", OPT_CLOCK, "mono|real", 0, "The clock of --correlate's timestamps: "
	  "CLOCK_MONOTONIC (default) or CLOCK_REALTIME", 0 },
	{ "baseline", OPT_BASELINE, "FILE", 0, "The -j report of an earlier run (of this "
	  "version): each check before and after, side by side", 0 },
	{ "output", 'o', "DIR", 0, "Also write the evidence bundle into DIR, a new or empty "
	  "directory: report.json, folded stacks, timeline.tsv, summary.txt", 0 },
	{ "pprof", OPT_PPROF, "FILE", 0, "Also write the blocks' stacks (off CPU) as a gzipped "
	  "pprof profile to FILE ('-': stdout, instead of the report)", 0 },
	OPTS_JSON,
	OPTS_VERBOSE,
	OPTS_BTF,
	OPTS_HELP_SHORT,
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case OPT_WARMUP:
		env.warmup = opt_seconds("--warmup", arg);
		break;
	case OPT_RINGBUF:
		env.ringbuf_kb = opt_u64("--ringbuf-kb", arg, 4, 1 << 20);
		break;
	case OPT_MAX_EVENTS:
		env.max_events = opt_u64("--max-events", arg, 1, 100000000);
		break;
	case OPT_CORRELATE:
		if (!*arg)
			die_usage("--correlate: empty path");
		env.correlate = arg;
		break;
	case OPT_CLOCK:
		if (hc_clock_parse(arg, &env.clock))
			die_usage("--clock: '%s': mono (CLOCK_MONOTONIC) or real (CLOCK_REALTIME)",
				  arg);
		env.clock_given = true;
		break;
	case OPT_BASELINE:
		env.baseline = arg;
		break;
	case 'o':
		env.outdir = arg;
		break;
	case 'C':
		env.cpus_given = true;
		/* fall through */
	default:
		return stack_parse_opt(key, arg, state, &env.s, &env.c);
	}
	return 0;
}

/* ---- the hot threads and their CPUs ---- */

/* Every thread named: -t, and the threads of -p now */
static void hot_threads(struct id_list *out)
{
	for (size_t i = 0; i < env.c.tids.n; i++)
		id_list_add(out, env.c.tids.ids[i]);
	for (size_t i = 0; i < env.c.pids.n; i++)
		id_list_add_threads(env.c.pids.ids[i], out, out);
}

/* The CPUs the hot threads may run on (without -C) */
static void hot_cpus(void)
{
	struct id_list t = { 0 };
	cpu_set_t *set = CPU_ALLOC(MAX_CPUS_SUPPORTED);
	size_t size = CPU_ALLOC_SIZE(MAX_CPUS_SUPPORTED);
	struct cpu_list online = { 0 };

	if (!set)
		die_unsupported("out of memory");
	hot_threads(&t);
	for (size_t i = 0; i < t.n; i++) {
		if (sched_getaffinity(t.ids[i], size, set))
			continue;	/* gone meanwhile */
		for (int c = 0; c < MAX_CPUS_SUPPORTED; c++)
			if (CPU_ISSET_S(c, size, set) && !cpu_list_has(&env.c.cpus, c))
				cpu_list_add(&env.c.cpus, c);
	}
	CPU_FREE(set);
	id_list_free(&t);
	if (!env.c.cpus.n)
		die_usage("the threads' affinity cannot be read: give the CPU with -C");
	/* threads that may run on every online CPU are not pinned: the whole
	 * machine would be their CPUs' intruders, so the CPU checks are left
	 * out (they need pinned threads, or -C) */
	if (!cpus_online(&online) && online.n > 1) {
		bool all = true;

		for (size_t i = 0; i < online.n && all; i++)
			all = cpu_list_has(&env.c.cpus, online.cpus[i]);
		if (all) {
			env.unpinned = true;
			cpu_list_str(&env.c.cpus, env.affinity, sizeof(env.affinity));
			cpu_list_free(&env.c.cpus);
			memset(&env.c.cpus, 0, sizeof(env.c.cpus));
		}
	}
	cpu_list_free(&online);
}

/* ---- the run ---- */

static struct hc_run run;
static struct perfev_set *faults;
/* the syscalls counted in the kernel (bpf/hotcheck.bpf.c: sys_agg) */
static struct aggmap *sys_agg;
/* stolen time: the reader, each hot CPU read at the window's ends */
static struct steal_reader stealr;
static struct steal_sample *steal0, *steal1;

/* What the report adds to the verdict: --correlate, --baseline, -o,
 * --pprof (each read or opened when the options are) */
static struct evidence {
	struct hc_requests rq;
	struct hc_correlation corr;
	bool have_corr;
	struct hc_baseline base;
	struct hc_compare cmp;
	bool have_base;
	struct hc_bundle bundle;
	bool have_bundle;
	FILE *pprof;
	bool failed;		/* exit 2: input or output that failed, said */
} ev;

/* The ring buffer never wakes us (see the BPF side): read on a timer */
#define READ_EVERY_MS 10

/* The first block's stack resolved while tracing: what the first
 * resolution of a kernel stack taken off CPU reads once (the scheduler's
 * text, from /proc/kallsyms: a few hundred ms on a busy machine) is then
 * not read after the window, between its end and the report */
static void warm_block_stacks(void)
{
	static struct stack_frames f;
	static bool done;
	static size_t from;

	for (; !done && from < run.kept.n; from++) {
		size_t i = from;

		const struct hc_rec *rec = &run.kept.v[i];

		if (rec->type != HCR_BLOCK || rec->kstack < STACK_ID_MIN)
			continue;
		done = true;
		stack_frames_resolve(run.sym, run.stacks,
				     &(struct stack_ref){ .kstack = rec->kstack,
							  .ustack = rec->ustack, .pid = rec->pid,
							  .image = rec->image,
							  .kernel_nosched = true }, &f);
	}
}

static int poll_events(void *vctx, int timeout_ms)
{
	struct lifecycle *lc = vctx;
	struct hotcheck_bpf *skel = lc->skel;
	int err = lifecycle_poll(lc, timeout_ms < READ_EVERY_MS ? timeout_ms : READ_EVERY_MS);

	if (err >= 0 || err == -EINTR)
		err = ring_buffer__consume(lc->rb);
	warm_block_stacks();
	if (skel->bss->warmup_end_ns && now_ns() >= skel->bss->warmup_end_ns) {
		skel->bss->warmup_end_ns = 0;
		msg_warn("the warm-up is over: page faults count from now on");
	}
	return err < 0 ? err : 0;
}

static const char *const loss_hints[LOSS_KINDS] = {
	STACK_WALK_LOSS_HINTS,
	[LOSS_AGG_FULL] = "syscalls not counted: more distinct (thread name, syscall, stack) "
			  "than the kernel's map holds between two drains; the syscall counts "
			  "are lower bounds",
	[LOSS_RINGBUF] = "raise --ringbuf-kb; the counts are lower bounds",
	[LOSS_START_FULL] = "off-CPU intervals were missed",
	[LOSS_END_UNSEEN] = "off-CPU intervals whose end the kernel did not report",
};

LIFECYCLE_TOOL(hotcheck, .attach_what = "attaching to the tracepoints",
	       .loss_hints = loss_hints);

int hotcheck_prepare(struct lifecycle *lc)
{
	if (env.unpinned)
		msg_warn("the hot threads are not pinned (they may run on CPUs %s): the CPU "
			 "checks are left out; pin them or give their CPUs with -C", env.affinity);
	else if (!cpus_self_avoid(&env.c.cpus))
		msg_warn("every online CPU is hot: hotcheck itself runs on them (never counted "
			 "as an intruder)");
	return 0;
}

int hotcheck_configure(struct lifecycle *lc)
{
	struct hotcheck_bpf *skel = lc->skel;
	struct stack_opts s = { .stack_storage = 16384 };
	char missing[512];
	uint64_t rb_size = 4096;

	while (rb_size < env.ringbuf_kb * 1024)
		rb_size <<= 1;
	skel->rodata->nr_exit = syscall_lookup("exit");
	skel->rodata->nr_exit_group = syscall_lookup("exit_group");
	skel->rodata->self_tgid = (__u32)getpid();
	skel->rodata->sys_send_max = env.max_events;
	skel->rodata->pc_by_rq = irqctx_percpu_layout(&skel->rodata->pc_from_rq,
						      &skel->rodata->cpu_from_rq);
	if (kfeat_has(KF_STEAL_TIME))
		skel->rodata->steal_rq_delta = kfeat_steal_rq_delta();
	lifecycle_size_stacks(lc, &s);
	map_resize_opt(skel->maps.events, (uint32_t)rb_size, "--ringbuf-kb", env.ringbuf_kb);
	bpf_disable_missing_tps(skel->obj, missing, sizeof(missing));
	if (word_in(missing, "sched_switch") || word_in(missing, "sys_enter")) {
		msg_warn("this kernel lacks the tracepoints sched_switch or sys_enter");
		return EXIT_UNSUPPORTED;
	}
	if (missing[0])
		msg_warn("not traced, this kernel lacks their tracepoints: %s", missing);
	if (env.unpinned) {
		/* no hot CPU: the programs of the CPUs' interrupts stay out */
		static const char *const cpu_level[] = {
			"irq_handler_", "softirq_", "hrtimer_expire_", "local_timer_",
			"reschedule_", "call_function", "irq_work_",
		};
		struct bpf_program *p;

		bpf_object__for_each_program(p, skel->obj)
			for (size_t i = 0; i < sizeof(cpu_level) / sizeof(cpu_level[0]); i++)
				if (!strncmp(bpf_program__name(p), cpu_level[i],
					     strlen(cpu_level[i])))
					bpf_program__set_autoload(p, false);
	}
	return 0;
}

int hotcheck_setup(struct lifecycle *lc)
{
	struct hotcheck_bpf *skel = lc->skel;
	int err;

	run.opts = &env.c;
	run.cpus = &env.c.cpus;
	run.timeline_max = env.max_events;
	run.unpinned = env.unpinned;
	run.affinity = env.affinity;
	run.warmup = env.warmup;
	run.sym = stacksym_for(&env.s);
	stacksym_want_kernel(run.sym);
	stacksym_cache_targets(run.sym, &env.c);
	err = lifecycle_agg(lc, &skel->bss->agg_slot);
	if (!err)
		sys_agg = agg_add(lc->agg, skel->maps.sys_agg_a, skel->maps.sys_agg_b,
				  hc_sys_val_combine);
	if (!err)
		err = lifecycle_stack_rings(lc, false, stacksym_on_announce, run.sym, NULL, NULL);
	if (!err)
		err = lifecycle_ring(lc, skel->maps.events, hc_on_record, &run,
				     "creating the ring buffer");
	if (err)
		return err;
	run.stacks = lc->stacks;
	steal_open(&stealr, skel->obj);
	lc->run.poll = poll_events;
	lc->run.ctx = lc;
	sys_config_read(&run.cfg);
	return 0;
}

/* The window begins; then the page-fault events of every hot thread */
int hotcheck_started(struct lifecycle *lc)
{
	struct hotcheck_bpf *skel = lc->skel;
	struct perf_event_attr major, minor;
	struct id_list t = { 0 };
	int err = 0;

	run.window_start_ns = now_ns();
	/* the syscalls ending from now on are counted in the kernel */
	skel->bss->window_start_ns = run.window_start_ns;
	steal0 = xcalloc(env.c.cpus.n + 1, sizeof(*steal0));
	steal1 = xcalloc(env.c.cpus.n + 1, sizeof(*steal1));
	for (size_t i = 0; i < env.c.cpus.n; i++)
		steal_snap(&stealr, env.c.cpus.cpus[i], run.window_start_ns, &steal0[i]);
	run.realtime_offset_ns = (int64_t)(realtime_ns() - now_ns());
	run.have_irqs = !irq_snap_read(&env.c.cpus, &run.irq_before);
	if (env.warmup > 0)
		skel->bss->warmup_end_ns = now_ns() + (__u64)(env.warmup * 1e9);
	perfev_fault_attr(&major, true, false);
	perfev_fault_attr(&minor, false, false);
	faults = perfev_new();
	hot_threads(&t);
	for (size_t i = 0; i < t.n && (!err || err == -ESRCH); i++) {
		err = perfev_open_thread(faults, &major, t.ids[i], skel->progs.hc_fault_major,
					 0, 0);
		if (!err)
			err = perfev_open_thread(faults, &minor, t.ids[i],
						 skel->progs.hc_fault_minor, 1, 0);
	}
	id_list_free(&t);
	if (err && err != -ESRCH) {
		msg_warn("opening the page-fault perf events: %s", perfev_strerror(err));
		return EXIT_UNSUPPORTED;
	}
	run.fault_events = perfev_size(faults);
	if (!run.fault_events) {
		msg_warn("every hot thread exited before tracing began");
		return EXIT_USAGE;
	}
	return 0;
}

void hotcheck_ready(struct lifecycle *lc, struct ready_line *r)
{
	char cpus[100];

	ready_tracing(r, "hot threads", &env.c);
	cpu_list_str(&env.c.cpus, cpus, sizeof(cpus));
	if (env.unpinned)
		snprintf(r->detail, sizeof(r->detail), "not pinned (CPUs %.60s): no CPU checks",
			 env.affinity);
	else
		snprintf(r->detail, sizeof(r->detail), "on CPU %s", cpus);
	if (env.warmup > 0)
		snprintf(r->after, sizeof(r->after),
			 "page faults in the first %g s are warm-up, not counted", env.warmup);
}

void hotcheck_stopping(struct lifecycle *lc)
{
	if (run.have_irqs)
		run.have_irqs = !irq_snap_read(&env.c.cpus, &run.irq_after);
	run.window_end_ns = now_ns();
	((struct hotcheck_bpf *)lc->skel)->bss->window_end_ns = run.window_end_ns;
	for (size_t i = 0; steal1 && i < env.c.cpus.n; i++)
		steal_snap(&stealr, env.c.cpus.cpus[i], 0, &steal1[i]);
}

void hotcheck_detach(struct lifecycle *lc)
{
	perfev_disable(faults);
	bpf_object__detach_skeleton(lc->skeleton);
}

/* Each hot CPU's stolen time over the window, and its steps */
static void steal_collect(struct hotcheck_bpf *skel)
{
	uint64_t n = skel->bss->steal_steps_n;
	int fd = bpf_map__fd(skel->maps.steal_steps);

	if (!steal0 || !env.c.cpus.n)
		return;
	run.stolen = xcalloc(env.c.cpus.n, sizeof(*run.stolen));
	for (size_t i = 0; i < env.c.cpus.n; i++) {
		struct steal_cpu t;

		steal_ticks(&stealr, env.c.cpus.cpus[i], &t);
		steal_decide(stealr.available, &steal0[i], &steal1[i], &t, &run.stolen[i]);
	}
	for (__u32 k = 0; k < n && k < HC_STEAL_STEPS; k++) {
		struct hc_steal_step st;

		/* a reading after the window's end is not of it; an empty
		 * slot is one two CPUs took at once (bpf/hotcheck.bpf.c) */
		if (!bpf_map_lookup_elem(fd, &k, &st) && st.stolen &&
		    st.from_ts < run.window_end_ns)
			vec_push(&run.steal_steps, st);
	}
	run.steal_steps_lost = n > HC_STEAL_STEPS ? n - HC_STEAL_STEPS : 0;
	if (run.steal_steps_lost)
		msg_warn("stolen time: the first %d steps kept for --correlate, %llu more not "
			 "kept (counted in the per-CPU totals)", HC_STEAL_STEPS,
			 (unsigned long long)run.steal_steps_lost);
}

int hotcheck_collect(struct lifecycle *lc)
{
	struct hotcheck_bpf *skel = lc->skel;
	int ncpus = ncpus_possible();
	struct hist *h = xcalloc((size_t)ncpus, sizeof(*h));
	struct hist *all = xcalloc((size_t)ncpus * HC_SYSCALLS, sizeof(*h));
	__u64 st[HCS_KINDS][ncpus];
	int err = 0;

	for (__u32 nr = 0; nr < HC_SYSCALLS && !err; nr++) {
		err = bpf_map_lookup_elem(bpf_map__fd(skel->maps.sys_hist), &nr, h);
		memcpy(&all[(size_t)nr * ncpus], h, (size_t)ncpus * sizeof(*h));
	}
	for (__u32 k = 0; k < HCS_KINDS && !err; k++) {
		err = bpf_map_lookup_elem(bpf_map__fd(skel->maps.stats), &k, st[k]);
		for (int c = 0; c < ncpus; c++)
			run.stats[k] += st[k][c];
	}
	if (!err)
		hc_collect_hists(&run, all, ncpus);
	free(h);
	free(all);
	if (err)
		return -errno;
	run.switch_ins_unreported = skel->bss->switch_ins_unreported;
	hc_collect_kernel(&run, aggmap_table(sys_agg), skel->bss->first_unsent_ns);
	steal_collect(skel);
	run.memlock_pid = env.c.pids.n ? env.c.pids.ids[0] :
			  env.c.tids.n ? env.c.tids.who[0].tgid : 0;
	if (run.memlock_pid)
		memlock_read(run.memlock_pid, &run.memlock);
	return 0;
}

/* The requests of --correlate, read now that the window is over (the
 * application wrote them during it) and set against the timeline */
static void correlate(const struct hc_timeline *tl)
{
	char err[768];

	hc_requests_free(&ev.rq);
	if (hc_requests_read(&ev.rq, env.correlate, env.clock, err, sizeof(err))) {
		msg_warn("--correlate: %s: no correlation", err);
		ev.failed = true;
		return;
	}
	if (hc_correlate(&ev.corr, tl, &ev.rq, HC_CORR_DEFAULT_WINDOW_NS)) {
		msg_warn("--correlate: the timeline holds too many events to correlate");
		ev.failed = true;
		return;
	}
	ev.have_corr = true;
}

/* The keys -j adds: "correlation", "baseline" */
static void json_evidence(struct json *j, void *arg)
{
	if (ev.have_corr)
		hc_correlation_json(j, &ev.corr);
	if (ev.have_base)
		hc_compare_json(j, &ev.cmp);
}

static void write_json(FILE *f, void *arg)
{
	hc_report_json_with(&run, f, json_evidence, NULL);
}

void hotcheck_report(struct lifecycle *lc)
{
	const struct hc_timeline *tl;

	memcpy(run.losses, lc->losses, sizeof(run.losses));
	hc_collect_build(&run);
	if (run.not_kept)
		msg_warn("the timeline kept the first %zu of the window's %llu events: %llu more "
			 "were counted in the checks but not kept (--max-events)", run.kept.n,
			 (unsigned long long)run.events, (unsigned long long)run.not_kept);
	tl = hc_timeline(&run);
	if (env.correlate)
		correlate(tl);
	if (ev.have_base)
		hc_compare_build(&ev.cmp, &ev.base, tl->checks, tl->n_checks);
	if (ev.pprof && hc_pprof_write(&run, ev.pprof))
		ev.failed = true;
	/* --pprof -: stdout is the profile's alone */
	if (ev.pprof == stdout) {
	} else if (env.c.json) {
		write_json(stdout, NULL);
	} else {
		hc_report_table(&run, stdout);
		if (ev.have_corr) {
			putchar('\n');
			hc_correlation_print(stdout, &ev.corr);
		}
		if (ev.have_base) {
			putchar('\n');
			hc_compare_print(stdout, &ev.cmp);
		}
	}
	fflush(stdout);
	if (ev.have_bundle &&
	    hc_bundle_write(&ev.bundle, &(struct hc_bundle_src){
				.tl = tl, .write_json = write_json,
				.corr = ev.have_corr ? &ev.corr : NULL,
				.cmp = ev.have_base ? &ev.cmp : NULL }))
		ev.failed = true;
}

int hotcheck_finish(struct lifecycle *lc)
{
	stackstore_report(lc->stacks);
	stacksym_report(run.sym);
	if (ev.failed)
		return EXIT_USAGE;
	return hc_all_silent(&run) ? EXIT_REPORTED : EXIT_FOUND;
}

void hotcheck_cleanup(struct lifecycle *lc)
{
	if (ev.have_corr)
		hc_correlation_free(&ev.corr);
	hc_requests_free(&ev.rq);
	if (ev.have_base) {
		hc_compare_free(&ev.cmp);
		hc_baseline_free(&ev.base);
	}
	hc_bundle_close(&ev.bundle);
	perfev_free(faults);
	free(steal0);
	free(steal1);
	stacksym_free(run.sym);
	hc_run_free(&run);
	cpu_list_free(&env.c.cpus);
}

/* --correlate, --baseline, -o and --pprof are read, checked or opened
 * now: bad input exits 2 before anything is loaded.  The request file is
 * read again when the window ends, with what the application added. */
static void evidence_open(void)
{
	char err[768];

	if (env.clock_given && !env.correlate)
		die_usage("--clock applies to --correlate's timestamps: give --correlate FILE");
	if (env.correlate && strcmp(env.correlate, "-")) {
		if (hc_requests_read(&ev.rq, env.correlate, env.clock, err, sizeof(err)))
			die_usage("--correlate: %s", err);
		hc_requests_free(&ev.rq);
	}
	if (env.baseline) {
		if (hc_baseline_load(&ev.base, env.baseline, SUITE_VERSION, err, sizeof(err)))
			die_usage("--baseline: %s", err);
		ev.have_base = true;
	}
	if (env.s.pprof)
		ev.pprof = pprof_open(env.s.pprof, &env.c);
	ev.bundle.dirfd = -1;
	/* last: a directory is made only once the rest is known good */
	if (env.outdir) {
		if (hc_bundle_open(&ev.bundle, env.outdir, err, sizeof(err)))
			die_usage("-o: %s", err);
		ev.have_bundle = true;
	}
}

int main(int argc, char **argv)
{
	static const struct argp argp = { options, parse_arg, NULL, doc, NULL, NULL, NULL };

	lifecycle_options("hotcheck", &argp, argc, argv, &env.c);
	if (!env.c.tids.n && !env.c.pids.n)
		die_usage("-t TID or -p PID is required: the hot threads");
	if (env.c.duration && env.warmup >= env.c.duration)
		die_usage("--warmup %g is not shorter than -d %g: no fault would be checked",
			  env.warmup, env.c.duration);
	if (!env.cpus_given)
		hot_cpus();
	if (env.c.cpus.n > ISOL_MAX_CPUS)
		die_usage("-C/--cpu: at most %d hot CPUs", ISOL_MAX_CPUS);
	evidence_open();
	return lifecycle_run(&hotcheck_ops, &env.c, NULL);
}
