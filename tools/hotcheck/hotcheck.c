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
#include "irqctx.h"
#include "opts.h"
#include "run.h"
#include "lifecycle.h"
#include "agg.h"
#include "stacks.h"
#include "stackstore.h"
#include "syscalls.h"
#include "xalloc.h"
#include "collect.h"
#include "evidence.h"
#include "report.h"
#include "trace.h"
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
	const char *trace;		/* --trace FILE */
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
	OPT_TRACE,
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
"                [--baseline FILE] [-o DIR] [--pprof FILE] [--trace FILE] [-j]\n"
"\n"
"EXAMPLES:\n"
"    hotcheck -t 4242 -d 10               # thread 4242 and its CPU, for 10 s\n"
"    hotcheck -t 4242 -d 10 --warmup 2    # faults of the first 2 s are warm-up\n"
"    hotcheck -p 4200 -C 1 -d 5 -j        # every thread of 4200, CPU 1, JSON\n"
"    hotcheck -t 4242 --correlate slow.txt   # explain the slow requests\n"
"    hotcheck -t 4242 -d 10 -j > before.json # a verdict, before a fix\n"
"    hotcheck -t 4242 -d 10 --baseline before.json -o ev  # after; bundle\n"
"    hotcheck -t 4242 -d 10 --trace hc.json  # and a timeline for Perfetto\n";

static const struct argp_option options[] = {
	OPTS_TID,
	OPTS_PID,
	OPTS_CPU("The hot CPUs (default: the CPUs the threads may run on)"),
	OPTS_DURATION,
	OPTS_LINES,
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
	{ "trace", OPT_TRACE, "FILE", 0, "Also write the timeline (the events kept) in the "
	  "Trace Event Format (Perfetto's UI, chrome://tracing): a track per hot CPU and per "
	  "hot thread, and --correlate's slow requests", 0 },
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
	case OPT_TRACE:
		env.trace = arg;
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

/* hotcheck's state (passed to the lifecycle: lc->tool) */
static struct hotcheck {
	struct hc_run run;
	struct perfev_set *faults;
	/* the syscalls counted in the kernel (bpf/hotcheck.bpf.c: sys_agg) */
	struct aggmap *sys_agg;
	/* stolen time: the reader, each hot CPU read at the window's ends */
	struct steal_reader stealr;
	struct steal_sample *steal0, *steal1;
	/* what the report adds to the verdict: --correlate, --baseline, -o,
	 * --pprof (evidence.h) */
	struct hc_evidence ev;
	struct hc_trace trace;	/* --trace FILE (trace.h) */
} tool;

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

	for (; !done && from < tool.run.kept.n; from++) {
		size_t i = from;

		const struct hc_rec *rec = &tool.run.kept.v[i];

		if (rec->type != HCR_BLOCK || rec->kstack < STACK_ID_MIN)
			continue;
		done = true;
		stack_frames_resolve(tool.run.sym, tool.run.stacks,
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

	tool.run.opts = &env.c;
	tool.run.cpus = &env.c.cpus;
	tool.run.timeline_max = env.max_events;
	tool.run.unpinned = env.unpinned;
	tool.run.affinity = env.affinity;
	tool.run.warmup = env.warmup;
	tool.run.sym = stacksym_for(&env.s);
	stacksym_want_kernel(tool.run.sym);
	stacksym_cache_targets(tool.run.sym, &env.c);
	err = lifecycle_agg(lc, &skel->bss->agg_slot);
	if (!err)
		tool.sys_agg = agg_add(lc->agg, skel->maps.sys_agg_a, skel->maps.sys_agg_b,
				  hc_sys_val_combine);
	if (!err)
		err = lifecycle_stack_rings(lc, false, stacksym_on_announce, tool.run.sym, NULL, NULL);
	if (!err)
		err = lifecycle_ring(lc, skel->maps.events, hc_on_record, &tool.run,
				     "creating the ring buffer");
	if (err)
		return err;
	tool.run.stacks = lc->stacks;
	steal_open(&tool.stealr, skel->obj);
	lc->run.poll = poll_events;
	lc->run.ctx = lc;
	sys_config_read(&tool.run.cfg);
	return 0;
}

/* The window begins; then the page-fault events of every hot thread */
int hotcheck_started(struct lifecycle *lc)
{
	struct hotcheck_bpf *skel = lc->skel;
	struct perf_event_attr major, minor;
	struct id_list t = { 0 };
	int err = 0;

	/* The window lies inside the two /proc/interrupts readings (this one
	 * before it begins, the other after it ends), so an interrupt the
	 * window holds is in their difference too: reading first, then the
	 * clock, as schedsilence does */
	tool.run.have_irqs = !irq_snap_read(&env.c.cpus, &tool.run.irq_before);
	tool.run.window_start_ns = now_ns();
	/* the syscalls ending from now on are counted in the kernel */
	skel->bss->window_start_ns = tool.run.window_start_ns;
	tool.steal0 = xcalloc(env.c.cpus.n + 1, sizeof(*tool.steal0));
	tool.steal1 = xcalloc(env.c.cpus.n + 1, sizeof(*tool.steal1));
	for (size_t i = 0; i < env.c.cpus.n; i++)
		steal_snap(&tool.stealr, env.c.cpus.cpus[i], tool.run.window_start_ns, &tool.steal0[i]);
	tool.run.realtime_offset_ns = (int64_t)(realtime_ns() - now_ns());
	if (env.warmup > 0)
		skel->bss->warmup_end_ns = now_ns() + (__u64)(env.warmup * 1e9);
	perfev_fault_attr(&major, true, false);
	perfev_fault_attr(&minor, false, false);
	tool.faults = perfev_new();
	hot_threads(&t);
	for (size_t i = 0; i < t.n && (!err || err == -ESRCH); i++) {
		err = perfev_open_thread(tool.faults, &major, t.ids[i], skel->progs.hc_fault_major,
					 0, 0);
		if (!err)
			err = perfev_open_thread(tool.faults, &minor, t.ids[i],
						 skel->progs.hc_fault_minor, 1, 0);
	}
	id_list_free(&t);
	if (err && err != -ESRCH) {
		msg_warn("opening the page-fault perf events: %s", perfev_strerror(err));
		return EXIT_UNSUPPORTED;
	}
	tool.run.fault_events = perfev_size(tool.faults);
	if (!tool.run.fault_events) {
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
	tool.run.window_end_ns = now_ns();
	((struct hotcheck_bpf *)lc->skel)->bss->window_end_ns = tool.run.window_end_ns;
	if (tool.run.have_irqs)
		tool.run.have_irqs = !irq_snap_read(&env.c.cpus, &tool.run.irq_after);
	for (size_t i = 0; tool.steal1 && i < env.c.cpus.n; i++)
		steal_snap(&tool.stealr, env.c.cpus.cpus[i], 0, &tool.steal1[i]);
}

void hotcheck_detach(struct lifecycle *lc)
{
	perfev_disable(tool.faults);
	bpf_object__detach_skeleton(lc->skeleton);
}

/* The hot threads still off their CPUs when the window ended (their
 * intervals open in map tstates, never sent): the marks that end their
 * last running slices (--trace) */
static void off_at_end(struct hotcheck_bpf *skel)
{
	int fd = bpf_map__fd(skel->maps.tstates);
	__u32 key, next, *prev = NULL;
	struct hc_tstate v;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &v) || !v.rec.ts ||
		    v.rec.ts > tool.run.window_end_ns)
			continue;	/* on its CPU at the end */
		vec_push(&tool.run.marks, ((struct hc_mark){
				.tid = key, .kind = HC_MARK_OFF_AT_END, .ts_ns = v.rec.ts,
				.preempted = v.rec.type == HCR_PREEMPT }));
	}
}

/* Each hot CPU's stolen time over the window, and its steps */
static void steal_collect(struct hotcheck_bpf *skel)
{
	uint64_t n = skel->bss->steal_steps_n;
	int fd = bpf_map__fd(skel->maps.steal_steps);

	if (!tool.steal0 || !env.c.cpus.n)
		return;
	tool.run.stolen = xcalloc(env.c.cpus.n, sizeof(*tool.run.stolen));
	for (size_t i = 0; i < env.c.cpus.n; i++) {
		struct steal_cpu t;

		steal_ticks(&tool.stealr, env.c.cpus.cpus[i], &t);
		steal_decide(tool.stealr.available, &tool.steal0[i], &tool.steal1[i], &t, &tool.run.stolen[i]);
	}
	for (__u32 k = 0; k < n && k < HC_STEAL_STEPS; k++) {
		struct hc_steal_step st;

		/* a reading after the window's end is not of it; an empty
		 * slot is one two CPUs took at once (bpf/hotcheck.bpf.c) */
		if (!bpf_map_lookup_elem(fd, &k, &st) && st.stolen &&
		    st.from_ts < tool.run.window_end_ns)
			vec_push(&tool.run.steal_steps, st);
	}
	tool.run.steal_steps_lost = n > HC_STEAL_STEPS ? n - HC_STEAL_STEPS : 0;
	if (tool.run.steal_steps_lost)
		msg_warn("stolen time: the first %d steps kept for --correlate, %llu more not "
			 "kept (counted in the per-CPU totals)", HC_STEAL_STEPS,
			 (unsigned long long)tool.run.steal_steps_lost);
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
			tool.run.stats[k] += st[k][c];
	}
	if (!err)
		hc_collect_hists(&tool.run, all, ncpus);
	free(h);
	free(all);
	if (err)
		return -errno;
	tool.run.switch_ins_unreported = skel->bss->switch_ins_unreported;
	hc_collect_kernel(&tool.run, agg_table(tool.sys_agg), skel->bss->first_unsent_ns);
	steal_collect(skel);
	off_at_end(skel);
	tool.run.memlock_pid = env.c.pids.n ? env.c.pids.ids[0] :
			  env.c.tids.n ? env.c.tids.who[0].tgid : 0;
	if (tool.run.memlock_pid)
		memlock_read(tool.run.memlock_pid, &tool.run.memlock);
	/* the timeline and the checks */
	memcpy(tool.run.losses, lc->losses, sizeof(tool.run.losses));
	hc_collect_build(&tool.run);
	if (tool.run.not_kept)
		msg_warn("the timeline kept the first %zu of the window's %llu events: %llu more "
			 "were counted in the checks but not kept (--max-events)", tool.run.kept.n,
			 (unsigned long long)tool.run.events, (unsigned long long)tool.run.not_kept);
	return 0;
}

void hotcheck_report(struct lifecycle *lc)
{
	hc_evidence_report(&tool.ev, &tool.run);
	hc_trace_write(&tool.trace, &tool.run, tool.ev.have_corr ? &tool.ev.corr : NULL);
}

int hotcheck_finish(struct lifecycle *lc)
{
	stackstore_report(lc->stacks);
	stacksym_report(tool.run.sym);
	if (tool.ev.failed)
		return EXIT_USAGE;
	return hc_all_silent(&tool.run) ? EXIT_REPORTED : EXIT_FOUND;
}

void hotcheck_cleanup(struct lifecycle *lc)
{
	hc_evidence_free(&tool.ev);
	perfev_free(tool.faults);
	free(tool.steal0);
	free(tool.steal1);
	stacksym_free(tool.run.sym);
	hc_run_free(&tool.run);
	cpu_list_free(&env.c.cpus);
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
	hc_evidence_open(&tool.ev, &(struct hc_evidence_opts){
				 .correlate = env.correlate, .clock = env.clock,
				 .clock_given = env.clock_given, .baseline = env.baseline,
				 .pprof = env.s.pprof, .outdir = env.outdir, .c = &env.c });
	hc_trace_open(&tool.trace, env.trace);
	return lifecycle_run(&hotcheck_ops, &env.c, &tool);
}
