// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* schedsilence: prove that CPUs are isolated, or name every intruder and
 * its fix.  Passive: it moves its own threads off the watched CPUs and
 * reads its ring buffer from elsewhere. */
#include <argp.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "msg.h"
#include "bpfload.h"
#include "clock.h"
#include "mapmem.h"
#include "irqctx.h"
#include "opts.h"
#include "run.h"
#include "lifecycle.h"
#include "bpfmaps.h"
#include "model.h"
#include "sysenv.h"
#include "report.h"
#include "export.h"
#include "trace.h"
#include "xalloc.h"
#include "kfeat.h"
#include "steal.h"
#include "schedsilence.h"
#include "schedsilence.skel.h"

#define MAX_ALLOW_COMMS 64

static struct env {
	struct common_opts c;
	struct id_list allow_tids;
	char allow_comms[MAX_ALLOW_COMMS][SILENCE_COMM_LEN];
	size_t n_allow_comms;
	uint64_t timeline;
	uint64_t ringbuf_kb;
	struct exporter_opts metrics;	/* --metrics, --metrics-file */
	unsigned metrics_top;		/* --metrics-top (0: SS_METRIC_NAMES) */
	const char *trace;		/* --trace FILE, or NULL */
} env = {
	.ringbuf_kb = 16384,
};

enum {
	OPT_ALLOW_TID = OPT_TOOL_BASE,
	OPT_ALLOW_COMM,
	OPT_TIMELINE,
	OPT_RINGBUF,
	OPT_METRICS_TOP,
	OPT_TRACE,
};

static const char doc[] =
"Prove that CPUs are silent (isolated), or name every intruder and its fix.\n"
"Exit status: 0 silent, 1 not silent, 2 bad input, 3 cannot trace.\n"
"\n"
"USAGE: schedsilence -C LIST [-d SECS] [--allow-tid TID,...]\n"
"                    [--allow-comm NAME,...] [--timeline N] [-j] [--trace FILE]\n"
"                    [--metrics ADDR:PORT] [--metrics-file PATH]\n"
"                    [--metrics-interval SECS] [--metrics-top N]\n"
"\n"
"EXAMPLES:\n"
"    schedsilence -C 1 -d 10                    # is CPU 1 silent for 10 s?\n"
"    schedsilence -C 1 -d 10 --allow-comm bash  # bash may run there\n"
"    schedsilence -C 0-1 -d 5 --timeline 20     # and the first 20 intrusions\n"
"    schedsilence -C 1 -d 5 -j                  # JSON\n"
"    schedsilence -C 1 -d 10 --trace ss.json    # and a timeline for Perfetto\n";

static const struct argp_option options[] = {
	OPTS_CPU("The CPUs to watch (required)"),
	OPTS_DURATION,
	{ "allow-tid", OPT_ALLOW_TID, "TID", 0, "Threads expected on the CPUs (comma list): "
	  "switches to them are not intrusions", 0 },
	{ "allow-comm", OPT_ALLOW_COMM, "NAME", 0, "Threads whose comm is NAME are expected "
	  "(comma list, exact names of up to 15 bytes)", 0 },
	{ "timeline", OPT_TIMELINE, "N", 0, "Print the first N intruding events with "
	  "monotonic and wall-clock timestamps (default 0)", 0 },
	{ "trace", OPT_TRACE, "FILE", 0, "Also write the intruding events as a timeline in "
	  "the Trace Event Format (Perfetto's UI, chrome://tracing): a track per CPU, the "
	  "first 1048576 events", 0 },
	{ "ringbuf-kb", OPT_RINGBUF, "KB", 0, "Event ring buffer size (default 16384; "
	  "rounded up to a power of 2)", 0 },
	OPTS_JSON,
	OPTS_CHECK("Accepted for symmetry: schedsilence always exits 1 when not silent"),
	OPTS_METRICS,
	{ "metrics-top", OPT_METRICS_TOP, "N", 0, "Metrics: the N names with the most "
	  "events on a CPU and kind get series of their own, the rest name=\"other\" "
	  "(default 10; 1 to 1000)", 0 },
	OPTS_VERBOSE,
	OPTS_BTF,
	OPTS_HELP_SHORT,
	{},
};

static void parse_allow_comm(const char *arg)
{
	char *copy = xstrdup(arg), *save = NULL, *tok;

	if (!*arg || arg[strlen(arg) - 1] == ',' || arg[0] == ',' || strstr(arg, ",,"))
		die_usage("invalid --allow-comm: '%s' has an empty name", arg);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (strlen(tok) >= SILENCE_COMM_LEN)
			die_usage("invalid --allow-comm: '%s' is longer than a comm "
				  "(%d bytes at most)", tok, SILENCE_COMM_LEN - 1);
		if (env.n_allow_comms == MAX_ALLOW_COMMS)
			die_usage("invalid --allow-comm: more than %d names", MAX_ALLOW_COMMS);
		snprintf(env.allow_comms[env.n_allow_comms++], SILENCE_COMM_LEN, "%s", tok);
	}
	free(copy);
}



static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	if (exporter_parse_opt(key, arg, &env.metrics))
		return 0;
	switch (key) {
	case OPT_ALLOW_TID:
		/* each with its identity: a reused TID is not allowed */
		opt_task_ids("--allow-tid", arg, &env.allow_tids);
		break;
	case OPT_ALLOW_COMM:
		parse_allow_comm(arg);
		break;
	case OPT_TIMELINE:
		env.timeline = opt_u64("--timeline", arg, 0, 1000000);
		break;
	case OPT_RINGBUF:
		env.ringbuf_kb = opt_u64("--ringbuf-kb", arg, 4, 1 << 20);
		break;
	case OPT_TRACE:
		env.trace = arg;
		break;
	case OPT_METRICS_TOP:
		env.metrics_top = (unsigned)opt_u64("--metrics-top", arg, 1, 1000);
		break;
	default:
		return common_parse_opt(key, arg, state, &env.c);
	}
	return 0;
}

/* ---- the run ---- */

/* The ring buffer never wakes us (see the BPF side): read it on a timer,
 * every READ_EVERY_MS, for up to timeout_ms */
#define READ_EVERY_MS 10

static int poll_events(void *vctx, int timeout_ms)
{
	struct lifecycle *lc = vctx;
	uint64_t until = now_ns() + (uint64_t)timeout_ms * 1000000ull;

	for (;;) {
		struct timespec ts = { 0, READ_EVERY_MS * 1000000L };
		int err = ring_buffer__consume(lc->rb);

		if (err < 0)
			return err;
		if (run_exiting || now_ns() >= until)
			return 0;
		nanosleep(&ts, NULL);
	}
}

static int on_event(void *s, void *data, size_t size)
{
	silence_feed(s, data, size);
	return 0;
}

static const char *const loss_hints[LOSS_KINDS] = {
	[LOSS_RINGBUF] = "raise --ringbuf-kb; the counts are lower bounds",
	[LOSS_START_FULL] = "work items were missed",
	[LOSS_NOMEM] = "work items were missed",
};


/* ---- the lifecycle's hooks ---- */

/* schedsilence's state (passed to the lifecycle: lc->tool) */
static struct schedsilence {
	struct report rp;
	struct tracefmt trace;	/* --trace FILE, opened with the options */
	struct ss_export exp;	/* --metrics, --metrics-file */
} tool;

LIFECYCLE_TOOL(schedsilence, .fill_what = "filling the CPU filter",
	       .attach_what = "attaching to the tracepoints", .loss_hints = loss_hints);

/* The tracepoints the verdict cannot do without */
static const char *const required_tps[] = {
	"sched_switch", "sched_wakeup", "sched_migrate_task",
	"irq_handler_entry", "softirq_entry", "local_timer_entry",
};

int schedsilence_prepare(struct lifecycle *lc)
{
	tool.rp.self_on_watched = !cpus_self_avoid(&env.c.cpus);
	if (tool.rp.self_on_watched)
		msg_warn("every online CPU is watched: schedsilence itself runs on them "
			 "and is counted");
	return 0;
}

int schedsilence_configure(struct lifecycle *lc)
{
	struct schedsilence_bpf *skel = lc->skel;
	uint64_t rb_size = 4096;

	while (rb_size < env.ringbuf_kb * 1024)
		rb_size <<= 1;
	for (size_t i = 0; i < env.c.cpus.n; i++)
		skel->rodata->watch_cpus[i] = env.c.cpus.cpus[i];
	skel->rodata->nwatch = env.c.cpus.n;
	if (kfeat_has(KF_STEAL_TIME))
		skel->rodata->steal_rq_delta = kfeat_steal_rq_delta();
	/* wakeups and IPIs from interrupt context are the interrupt's */
	skel->rodata->pc_by_rq = irqctx_percpu_layout(&skel->rodata->pc_from_rq,
						      &skel->rodata->cpu_from_rq);
	map_resize_opt(skel->maps.events, (uint32_t)rb_size, "--ringbuf-kb", env.ringbuf_kb);
	bpf_disable_missing_tps(skel->obj, tool.rp.missing_tps, sizeof(tool.rp.missing_tps));
	for (size_t i = 0; i < ARRAY_SIZE(required_tps); i++)
		if (word_in(tool.rp.missing_tps, required_tps[i])) {
			msg_warn("this kernel lacks the tracepoint %s (no btf_trace_%s "
				 "in its BTF)", required_tps[i], required_tps[i]);
			return EXIT_UNSUPPORTED;
		}
	return 0;
}

int schedsilence_setup(struct lifecycle *lc)
{
	struct schedsilence_bpf *skel = lc->skel;
	struct silence_cfg scfg = {
		.cpus = &env.c.cpus,
		.allow_tids = &env.allow_tids,
		.allow_comms = (const char (*)[SILENCE_COMM_LEN])env.allow_comms,
		.n_allow_comms = env.n_allow_comms,
		.timeline_max = env.timeline,
		.timeline_keep = env.trace ? SILENCE_TRACE_KEEP : 0,
	};
	int err;

	tool.rp.s = silence_new(&scfg);
	if (!tool.rp.s) {
		msg_warn("out of memory");
		return EXIT_UNSUPPORTED;
	}
	err = lifecycle_ring(lc, skel->maps.events, on_event, tool.rp.s,
			     "creating the ring buffer");
	if (err)
		return err;
	lc->run.poll = poll_events;
	lc->run.ctx = lc;
	sys_config_read(&tool.rp.cfg);
	steal_open(&tool.rp.steal, skel->obj);
	return 0;
}

/* Stolen time of each watched CPU now, and /proc/stat's steal column
 * (start: the window's start, for the per-event readings; 0 at its end) */
static void steal_window_read(struct steal_sample *st, uint64_t *proc, uint64_t start)
{
	bool proc_ok = true;

	for (size_t i = 0; i < env.c.cpus.n; i++) {
		steal_snap(&tool.rp.steal, env.c.cpus.cpus[i], start, &st[i]);
		proc_ok &= !steal_proc_stat(env.c.cpus.cpus[i], &proc[i]);
	}
	tool.rp.have_proc_steal = proc_ok && (start || tool.rp.have_proc_steal);
}

/* The window: from the first snapshot to the last; events outside it are
 * not counted, so the tracepoints and /proc agree */
int schedsilence_started(struct lifecycle *lc)
{
	allowed_begin(&tool.rp.allowed, &tool.rp.s->cfg);
	tool.rp.s->cfg.start_ts = now_ns();
	steal_window_read(tool.rp.steal0, tool.rp.proc_steal0, tool.rp.s->cfg.start_ts);
	tool.rp.have_irqs = !irq_snap_read(&env.c.cpus, &tool.rp.before);
	tool.rp.s->cfg.inner_start = now_ns();
	tool.rp.wall_offset = realtime_ns() - now_ns();
	tool.exp.rp = &tool.rp;
	tool.exp.cpus = &env.c.cpus;
	tool.exp.losses = lifecycle_map(lc, "losses");
	exporter_hook(tool.exp.e, &lc->run, ss_export_render, &tool.exp);
	return 0;
}

void schedsilence_ready(struct lifecycle *lc, struct ready_line *r)
{
	char cpus[256];

	cpu_list_str(&env.c.cpus, cpus, sizeof(cpus));
	snprintf(r->subject, sizeof(r->subject), "watching CPU %s", cpus);
}

void schedsilence_stopping(struct lifecycle *lc)
{
	exporter_render(tool.exp.e);
	tool.rp.s->cfg.inner_end = now_ns();
	if (tool.rp.have_irqs)
		tool.rp.have_irqs = !irq_snap_read(&env.c.cpus, &tool.rp.after);
	steal_window_read(tool.rp.steal1, tool.rp.proc_steal1, 0);
	tool.rp.s->cfg.end_ts = now_ns();
	allowed_end(&tool.rp.allowed);
}

int schedsilence_collect(struct lifecycle *lc)
{
	bool avail = tool.rp.steal.available;

	for (size_t i = 0; i < env.c.cpus.n; i++) {
		struct steal_cpu t;

		steal_ticks(&tool.rp.steal, env.c.cpus.cpus[i], &t);
		steal_decide(avail, &tool.rp.steal0[i], &tool.rp.steal1[i], &t, &tool.rp.stolen[i]);
	}
	tool.rp.duration_s = (tool.rp.s->cfg.end_ts - tool.rp.s->cfg.start_ts) / 1e9;
	silence_finish(tool.rp.s, tool.rp.s->cfg.end_ts);
	silence_sort(tool.rp.s);
	report_name_all(tool.rp.s);
	return 0;
}

void schedsilence_report(struct lifecycle *lc)
{
	memcpy(tool.rp.losses, lc->losses, sizeof(tool.rp.losses));
	for (int k = 0; k < LOSS_KINDS; k++)
		tool.rp.total_losses += tool.rp.losses[k];
	report_print(&tool.rp, env.c.json);
	if (env.trace)
		trace_write(&tool.rp, &tool.trace, env.trace);
}

int schedsilence_finish(struct lifecycle *lc)
{
	return report_all_silent(&tool.rp) ? EXIT_REPORTED : EXIT_FOUND;
}

void schedsilence_cleanup(struct lifecycle *lc)
{
	ss_export_free(&tool.exp);
	silence_free(tool.rp.s);
	irq_snap_free(&tool.rp.before);
	irq_snap_free(&tool.rp.after);
	allowed_free(&tool.rp.allowed);
	id_list_free(&env.allow_tids);
	cpu_list_free(&env.c.cpus);
}

int main(int argc, char **argv)
{
	static const struct argp argp = { options, parse_arg, NULL, doc, NULL, NULL, NULL };

	lifecycle_options("schedsilence", &argp, argc, argv, &env.c);
	if (!env.c.cpus.n)
		die_usage("-C/--cpu LIST is required: the CPUs to watch");
	if (env.c.cpus.n > SS_MAX_WATCH)
		die_usage("-C/--cpu: at most %d CPUs can be watched at once", SS_MAX_WATCH);
	if (env.metrics_top && !exporter_wanted(&env.metrics))
		die_usage("--metrics-top needs --metrics or --metrics-file");
	tool.exp.top = env.metrics_top ? env.metrics_top : SS_METRIC_NAMES;
	tool.exp.e = exporter_open(&env.metrics);
	if (env.trace && tracefmt_open(&tool.trace, env.trace))
		die_usage("--trace: cannot write %s: %s", env.trace, strerror(errno));
	return lifecycle_run(&schedsilence_ops, &env.c, &tool);
}
