// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* hitmtop: a live top of contended cache lines.  Memory samples (Intel
 * PEBS load latency and stores, AMD IBS op) are aggregated by cache line
 * in the kernel; every -i seconds the lines with the most HITMs are shown
 * with their offsets, the code that touched them and the verdict: true or
 * false sharing.  --record and --replay keep and read the samples as text. */
#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/libbpf.h>

#include "msg.h"
#include "bpfload.h"
#include "clock.h"
#include "mapmem.h"
#include "opts.h"
#include "run.h"
#include "lifecycle.h"
#include "kfeat.h"
#include "bpfmaps.h"
#include "mapiter.h"
#include "addrname.h"
#include "model.h"
#include "pmu.h"
#include "events.h"
#include "perfev.h"
#include "flame.h"
#include "report.h"
#include "sym.h"
#include "announce.h"
#include "hitmtop.skel.h"

static struct env {
	struct common_opts c;
	double interval;	/* 0: one report at the end */
	bool interval_set;
	uint64_t top;
	uint64_t ldlat;
	uint64_t period;
	uint64_t max_lines;
	const char *record;
	const char *replay;
	const char *svg;	/* --svg FILE */
	bool load_only;
	bool sampling_set;	/* --ldlat or --period given */
} env = {
	.top = 10,
	.ldlat = 30,
	.period = 2000,
	.max_lines = 4096,
};

enum {
	OPT_RECORD = OPT_TOOL_BASE,
	OPT_REPLAY,
	OPT_LDLAT,
	OPT_PERIOD,
	OPT_MAX_LINES,
	OPT_LOAD_ONLY,
};

static const char doc[] =
"Show the cache lines that bounce between cores (HITM), live, with the\n"
"offsets and code that touch them and the verdict: true or false sharing.\n"
"Needs a memory-sampling PMU: Intel PEBS or AMD IBS (exit 3 without).\n"
"\n"
"USAGE: hitmtop [-p PID] [-C LIST] [-i SECS] [-d SECS] [-n LINES] [-j]\n"
"               [--record FILE] [--replay FILE] [--svg FILE]\n"
"\n"
"EXAMPLES:\n"
"    hitmtop                     # every process, refreshed every second\n"
"    hitmtop -p 1 -i 5           # process 1, refreshed every 5 s\n"
"    hitmtop -C 0 -n 5 -d 10     # CPU 0 only, top 5 lines, for 10 s\n"
"    hitmtop -d 10 --record s.txt   # keep every sample in s.txt\n"
"    hitmtop --replay s.txt      # report on recorded samples\n"
"    hitmtop --replay s.txt -j   # the same, as JSON\n"
"    hitmtop --replay s.txt --svg h.svg   # and its flame graph\n"
"    hitmtop --load-only -v      # check that the BPF program loads\n";

static const struct argp_option options[] = {
	OPTS_PID,
	OPTS_TID,
	OPTS_CPU("Sample these CPUs only (default: all)"),
	{ "interval", 'i', "SECS", 0, "Report every SECS seconds (default 1; with -j: once, at the end)", 0 },
	OPTS_DURATION,
	{ "lines", 'n', "LINES", 0, "Show the top LINES cache lines (default 10)", 0 },
	OPTS_JSON,
	{ "record", OPT_RECORD, "FILE", 0, "Write every sample to FILE (text, see --replay)", 0 },
	{ "replay", OPT_REPLAY, "FILE", 0, "Read samples from FILE instead of sampling "
	  "('cpu pid tid ip addr data_src weight' a line; - for stdin)", 0 },
	{ "svg", OPT_SVG, "FILE", 0, "Also write every line with a HITM as an interactive flame "
	  "graph, one self-contained SVG file: line, offset, code; widths in samples", 0 },
	{ "ldlat", OPT_LDLAT, "CYCLES", 0, "Intel: sample loads of at least CYCLES latency (default 30)", 0 },
	{ "period", OPT_PERIOD, "N", 0, "One sample every N loads or stores (default 2000)", 0 },
	{ "max-lines", OPT_MAX_LINES, "N", 0, "Room for N cache lines in the kernel, and in memory "
	  "for --replay and --record (the others are folded into \"other\"; default 4096)", 0 },
	{ "load-only", OPT_LOAD_ONLY, NULL, 0, "Load the BPF program (verifier check) and exit, "
	  "without sampling", 0 },
	OPTS_VERBOSE,
	OPTS_BTF,
	OPTS_HELP_SHORT,
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'i':
		env.interval = opt_seconds("-i/--interval", arg);
		env.interval_set = true;
		break;
	case 'n':
		env.top = opt_u64("-n/--lines", arg, 1, 1000000);
		break;
	case OPT_RECORD:
		if (!*arg)
			die_usage("--record: empty file name");
		env.record = arg;
		break;
	case OPT_REPLAY:
		if (!*arg)
			die_usage("--replay: empty file name");
		env.replay = arg;
		break;
	case OPT_LDLAT:
		env.ldlat = opt_u64("--ldlat", arg, 1, 65535);
		env.sampling_set = true;
		break;
	case OPT_PERIOD:
		env.period = opt_u64("--period", arg, 1, 1ULL << 40);
		env.sampling_set = true;
		break;
	case OPT_MAX_LINES:
		env.max_lines = opt_u64("--max-lines", arg, 16, 1 << 18);
		break;
	case OPT_LOAD_ONLY:
		env.load_only = true;
		break;
	case OPT_SVG:
		env.svg = arg;
		break;
	default:
		return common_parse_opt(key, arg, state, &env.c);
	}
	return 0;
}

static void check_options(void)
{
	if (env.replay) {
		if (env.record)
			die_usage("--record and --replay exclude each other");
		if (env.c.pids.n || env.c.tids.n || env.c.cpus.n)
			die_usage("-p/-t/-C choose what is sampled; they do not apply to --replay");
		if (env.interval_set || env.c.duration)
			die_usage("--replay reports once on the whole file; -i and -d do not apply");
		if (env.load_only)
			die_usage("--load-only and --replay exclude each other");
		if (env.sampling_set)
			die_usage("--ldlat and --period tune sampling; they do not apply "
				  "to --replay");
	}
	if (env.load_only && (env.record || env.svg))
		die_usage("--load-only and %s exclude each other (nothing is sampled)",
			  env.record ? "--record" : "--svg");
	if (!env.interval_set && !env.c.json)
		env.interval = 1;
}

/* ---- the two tables: sampling (hitmtop_probe() ... hitmtop_cleanup())
 * and, without a BPF object, --replay of a file of samples
 * (hitmtop_replay_probe() ... hitmtop_replay_cleanup()) ---- */

static const char *const loss_hints[LOSS_KINDS] = {
	[LOSS_AGG_FULL] = "raise --max-lines",
	[LOSS_RINGBUF] = "raise --period",
};

LIFECYCLE_TOOL(hitmtop, .load_what = "loading the BPF program", .loss_hints = loss_hints,
	       .no_tp_flavour = true);
LIFECYCLE_OPS(hitmtop_replay);

/* ---- what both modes share: the names, the aggregation, the report ---- */

static struct tool {
	struct hitm_symcache sym;
	struct hitm_agg agg;
	struct hitm_totals t;
	/* sampling */
	struct hitm_pmu pmus[HITM_PMU_MAX];
	int npmu;
	struct cpu_list cpus;	/* sampled */
	struct perfev_set *ev;	/* the sampling events */
	FILE *rec;		/* --record */
	FILE *svg;		/* --svg, opened with the options */
	uint64_t next_report;
	bool tty;
} tool;

static void report(bool redraw)
{
	const struct hitm_report_opts ro = {
		.replay = env.replay,
		.max_lines = env.max_lines,
		.top = env.top,
		.json = env.c.json,
	};

	hitm_report(&ro, &tool.sym, &tool.agg, &tool.t, redraw);
}

/* --svg, once, with the final report: the lines, offsets and code of the
 * whole run (or file) as a flame graph */
static void svg_report(void)
{
	char who[4200], window[96];
	struct flamesvg_meta m = { .tool = "hitmtop", .target = who, .unit = "samples",
				   .what = "loads and stores on the lines with HITMs, by line, "
					   "offset and code" };
	struct flamesvg *g;

	if (!tool.svg)
		return;
	if (env.replay) {
		snprintf(who, sizeof(who), "the replay of %s", env.replay);
	} else {
		common_opts_target(&env.c, who, sizeof(who));
		flamesvg_run_window(window, sizeof(window));
		m.window = window;
	}
	g = flamesvg_new();
	hitm_flame(g, &tool.sym, &tool.agg);
	flamesvg_finish(g, tool.svg, &m);	/* a failure is said, and the exit is 2 */
	flamesvg_free(g);
	tool.svg = NULL;
}

/* probe(): the symbolizer that names what is shown (exit 3 without), and
 * an empty aggregation */
static int tool_init(struct lifecycle *lc)
{
	if (hitm_sym_init(&tool.sym))
		die_unsupported("cannot create the symbolizer: %s",
				addrname_error());
	hitm_agg_init(&tool.agg);
	hitm_agg_bound(&tool.agg, env.max_lines);
	return 0;
}

void hitmtop_cleanup(struct lifecycle *lc)
{
	perfev_free(tool.ev);
	if (tool.rec)
		out_close(tool.rec);	/* a failure is said, and the exit is 2 */
	hitm_agg_free(&tool.agg);
	hitm_pmu_free(tool.pmus, tool.npmu);
	cpu_list_free(&tool.cpus);
	hitm_sym_free(&tool.sym);
}

/* ---- replay ---- */

#define MAX_MALFORMED_SHOWN 10

/* One line of the file: 1 and *smp for a sample, 0 for none, -1 and err
 * when it is malformed */
static int replay_line(FILE *f, char *line, size_t size, struct hitm_sample *smp,
		       char *err, size_t errlen)
{
	size_t len = strlen(line);
	int ch;

	if (len < size - 1 || line[len - 1] == '\n')
		return hitm_parse_line(line, smp, err, errlen);
	/* no sample is that long: skip the rest of it */
	while ((ch = getc(f)) != EOF && ch != '\n')
		;
	snprintf(err, errlen, "longer than %zu bytes", size - 2);
	return line[strspn(line, " \t\r")] == '#' ? 0 : -1;
}

/* probe(): only what both modes share */
int hitmtop_replay_probe(struct lifecycle *lc)
{
	return tool_init(lc);
}

/* collect(): every sample of the file into tool.agg */
int hitmtop_replay_collect(struct lifecycle *lc)
{
	FILE *f = strcmp(env.replay, "-") ? fopen(env.replay, "r") : stdin;
	struct hitm_sample smp;
	char line[1024], err[256];
	size_t lineno = 0;
	struct stat st;

	if (!f)
		die_usage("--replay: cannot open %s: %s", env.replay, strerror(errno));
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		die_usage("--replay: %s is a directory, not a file of samples", env.replay);
	}
	while (fgets(line, sizeof(line), f)) {
		int r = replay_line(f, line, sizeof(line), &smp, err, sizeof(err));

		lineno++;
		if (r > 0)
			hitm_agg_sample(&tool.agg, &smp);
		else if (r < 0 && tool.t.malformed++ < MAX_MALFORMED_SHOWN)
			msg_warn("%s:%zu: malformed line skipped: %s", env.replay, lineno, err);
	}
	if (ferror(f))
		msg_warn("--replay: reading %s: %s", env.replay, strerror(errno));
	if (f != stdin)
		fclose(f);
	if (tool.t.malformed > MAX_MALFORMED_SHOWN)
		msg_warn("%" PRIu64 " malformed lines skipped in all (first %d shown)",
			 tool.t.malformed, MAX_MALFORMED_SHOWN);
	if (!tool.agg.samples)
		msg_warn("%s holds no sample", env.replay);
	return 0;
}

void hitmtop_replay_report(struct lifecycle *lc)
{
	report(false);
	svg_report();
}

int hitmtop_replay_finish(struct lifecycle *lc)
{
	const struct hitm_agg *a = &tool.agg;

	if (a->other.lines)
		msg_warn("%" PRIu64 " line records (%" PRIu64 " samples, %" PRIu64 " HITMs) "
			 "were folded into \"other\" to stay within --max-lines %" PRIu64
			 "; raise it to see more lines", a->other.lines, a->other.samples,
			 a->other.hitm, env.max_lines);
	if (a->skips[HITM_SKIP_COLD_LOAD])
		msg_warn("%" PRIu64 " loads without HITM on lines never written nor "
			 "HITM'd were not counted", (uint64_t)a->skips[HITM_SKIP_COLD_LOAD]);
	return EXIT_REPORTED;
}

/* cleanup(): the state both modes share */
void hitmtop_replay_cleanup(struct lifecycle *lc)
{
	hitmtop_cleanup(lc);
}

/* ---- sampling ---- */

/* A process seen for the first time: keep what names its code after it exits */
static int on_announce(void *ctx, void *data, size_t size)
{
	const struct announce_event *e = data;

	if (size >= sizeof(*e) && e->type == ANNOUNCE_EV_NEW_PROCESS)
		addrname_cache_process(tool.sym.sym, e->tgid);
	return 0;
}

static int on_event(void *ctx, void *data, size_t size)
{
	const struct hitm_sample *e = data;

	if (size < sizeof(*e))
		return 0;
	if (e->type == HITM_EV_SAMPLE) {
		hitm_agg_sample(&tool.agg, e);
		/* a failure is said by the writer, and ends the run */
		if (tool.rec && !out_ended())
			hitm_write_sample(tool.rec, e);
	}
	return 0;
}

/* Snapshot of the kernel's maps into tool.agg */
static int read_maps(struct hitmtop_bpf *skel)
{
	struct hitm_agg *a = &tool.agg;
	struct hitm_line_key lnext;
	struct hitm_off_key onext;
	struct hitm_counts c;
	struct map_iter it;
	int err;

	hitm_agg_reset(a);
	map_iter_init(&it, bpf_map__fd(skel->maps.lines), &lnext, sizeof(lnext), &c);
	while (map_iter_next(&it))
		hitm_agg_add_line(a, &lnext, &c);
	err = map_iter_end(&it);
	if (err)
		return err;
	map_iter_init(&it, bpf_map__fd(skel->maps.offs), &onext, sizeof(onext), &c);
	while (map_iter_next(&it))
		if (hitm_agg_find(a, onext.tgid, onext.line))
			hitm_agg_add_cell(a, &onext, &c);
	return map_iter_end(&it);
}

static void live_report(struct lifecycle *lc, bool final)
{
	struct hitmtop_bpf *skel = lc->skel;

	tool.t.seconds = (now_ns() - run_start_ns) / 1e9;
	losses_read(skel->maps.losses, tool.t.losses);
	for (__u32 k = 0; k < HITM_SKIP_KINDS; k++)
		tool.t.skips[k] = percpu_u64_sum(skel->maps.skips, k);
	if (!env.record) {
		int err = read_maps(skel);

		if (err)
			msg_warn("reading the maps failed: %s", strerror(-err));
		tool.agg.samples = tool.agg.kept;	/* the kernel counted them */
	}
	report(tool.tty && !final && !env.c.json);
}

static int poll_events(void *ctx, int timeout_ms)
{
	struct lifecycle *lc = ctx;
	int err = ring_buffer__poll(lc->rb, timeout_ms);

	if (err < 0)
		return err;
	/* the final report comes soon: no interval report just before it */
	if (env.c.duration && now_ns() + 150000000ull >=
	    run_start_ns + (uint64_t)(env.c.duration * 1e9))
		return 0;
	if (env.interval > 0 && now_ns() >= tool.next_report) {
		tool.next_report += (uint64_t)(env.interval * 1e9);
		live_report(lc, false);
	}
	return 0;
}

/* probe(): tool_init(), and a memory-sampling PMU (exit 3 without) */
int hitmtop_probe(struct lifecycle *lc)
{
	const char *root = getenv("HITMTOP_PMU_ROOT");
	char why[1024];

	tool_init(lc);
	tool.npmu = hitm_pmu_detect(root ? root : HITM_PMU_ROOT, tool.pmus, HITM_PMU_MAX,
				    why, sizeof(why));
	if (getenv("HITMTOP_TEST_SOFTWARE_EVENT")) {
		struct hitm_pmu *p = &tool.pmus[0];

		hitm_pmu_free(tool.pmus, tool.npmu);
		memset(p, 0, sizeof(*p));
		snprintf(p->name, sizeof(p->name), "cpu-clock (test)");
		p->kind = HITM_PMU_SOFTWARE_TEST;
		p->type = PERF_TYPE_SOFTWARE;
		tool.npmu = 1;
	}
	if (!tool.npmu)
		die_unsupported("%s", why);
	return 0;
}

/* prepare(): the CPUs to sample (the events choose them, not the filter),
 * and the --record file */
int hitmtop_prepare(struct lifecycle *lc)
{
	if (env.c.cpus.n) {
		tool.cpus = env.c.cpus;
		env.c.cpus = (struct cpu_list){ 0 };
	} else if (cpus_online(&tool.cpus)) {
		die_unsupported("cannot read the list of online CPUs");
	}
	tool.tty = isatty(STDOUT_FILENO);
	if (!env.record)
		return 0;
	tool.rec = strcmp(env.record, "-") ? out_open(env.record, "--record") : NULL;
	if (!tool.rec) {
		msg_warn("--record: cannot write %s: %s", env.record,
			 strcmp(env.record, "-") ? strerror(errno) : "give a file name");
		return EXIT_USAGE;
	}
	hitm_write_header(tool.rec, tool.pmus[0].name);
	return 0;
}

int hitmtop_configure(struct lifecycle *lc)
{
	struct hitmtop_bpf *skel = lc->skel;

	skel->rodata->stream_samples = env.record != NULL;
	skel->rodata->aggregate = env.record == NULL;
	map_resize_opt(skel->maps.lines, (uint32_t)env.max_lines, "--max-lines", env.max_lines);
	map_resize_opt(skel->maps.offs, (uint32_t)env.max_lines * 4, "--max-lines", env.max_lines);
	/* one of the two programs: with atomics where the kernel has them */
	bpf_program__set_autoload(kfeat_has(KF_ATOMICS) ? skel->progs.hitm_sample_noatomics
							: skel->progs.hitm_sample, false);
	return 0;
}

/* The sampling program this kernel loaded */
static struct bpf_program *sample_prog(struct hitmtop_bpf *skel)
{
	return bpf_program__autoload(skel->progs.hitm_sample) ? skel->progs.hitm_sample
							       : skel->progs.hitm_sample_noatomics;
}

int hitmtop_setup(struct lifecycle *lc)
{
	struct hitmtop_bpf *skel = lc->skel;
	int err = lifecycle_ring(lc, skel->maps.events, on_event, NULL,
				 "creating the ring buffers");

	if (!err)
		err = lifecycle_ring(lc, skel->maps.announce_rb, on_announce, NULL,
				     "creating the ring buffers");
	lc->run.poll = poll_events;
	lc->run.ctx = lc;
	lc->run.streaming = env.interval > 0;	/* a report every -i */
	return err;
}

int hitmtop_attach(struct lifecycle *lc)
{
	const struct hitm_sampling how = { .period = env.period, .ldlat = env.ldlat };
	struct hitmtop_bpf *skel = lc->skel;

	tool.ev = perfev_new();
	return hitm_events_open(tool.ev, sample_prog(skel), tool.pmus, tool.npmu,
				&tool.cpus, &how);
}

int hitmtop_started(struct lifecycle *lc)
{
	tool.next_report = now_ns() + (uint64_t)(env.interval * 1e9);
	return 0;
}

void hitmtop_ready(struct lifecycle *lc, struct ready_line *r)
{
	snprintf(r->subject, sizeof(r->subject),
		 "sampling memory accesses with %s on %zu CPUs", tool.pmus[0].name,
		 tool.cpus.n);
	r->no_duration = true;
}

void hitmtop_detach(struct lifecycle *lc)
{
	/* stop sampling (the report after it is one instant) and let the
	 * events and their programs go now */
	perfev_free(tool.ev);
	tool.ev = NULL;
}

void hitmtop_report(struct lifecycle *lc)
{
	live_report(lc, true);
	svg_report();
}

int hitmtop_finish(struct lifecycle *lc)
{
	if (tool.t.skips[HITM_SKIP_NO_ADDR])
		msg_warn("%" PRIu64 " samples had no user-space data address (not counted)",
			 tool.t.skips[HITM_SKIP_NO_ADDR]);
	if (tool.t.skips[HITM_SKIP_NO_SRC])
		msg_warn("%" PRIu64 " samples came without a data source (the PMU driver "
			 "did not fill it)", tool.t.skips[HITM_SKIP_NO_SRC]);
	return EXIT_REPORTED;
}

/* --load-only: the verifier's verdict, nothing attached */
static int load_only(void)
{
	struct lifecycle lc;
	int err;

	bpf_env_check();
	err = lifecycle_load(&lc, &hitmtop_ops, &env.c, &tool);
	if (!err)
		msg_warn("BPF program %s loaded (verifier passed); not attached: --load-only",
			 bpf_program__name(sample_prog(lc.skel)));
	lifecycle_free(&lc);
	return err ? err : EXIT_REPORTED;
}

int main(int argc, char **argv)
{
	static const struct argp argp = { options, parse_arg, NULL, doc, NULL, NULL, NULL };

	lifecycle_options("hitmtop", &argp, argc, argv, &env.c);
	check_options();
	if (env.load_only)
		return load_only();
	if (env.svg)
		tool.svg = flamesvg_open(env.svg);
	return lifecycle_run(env.replay ? &hitmtop_replay_ops : &hitmtop_ops, &env.c, &tool);
}
