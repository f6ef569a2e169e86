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
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "common.h"
#include "mapmem.h"
#include "opts.h"
#include "run.h"
#include "json.h"
#include "bpfutil.h"
#include "blazesym.h"
#include "hitm.h"
#include "hitm_pmu.h"
#include "hitm_sym.h"
#include "escape.h"
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
"               [--record FILE] [--replay FILE]\n"
"\n"
"EXAMPLES:\n"
"    hitmtop                     # every process, refreshed every second\n"
"    hitmtop -p 1 -i 5           # process 1, refreshed every 5 s\n"
"    hitmtop -C 0 -n 5 -d 10     # CPU 0 only, top 5 lines, for 10 s\n"
"    hitmtop -d 10 --record s.txt   # keep every sample in s.txt\n"
"    hitmtop --replay s.txt      # report on recorded samples\n"
"    hitmtop --replay s.txt -j   # the same, as JSON\n"
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
	{ "ldlat", OPT_LDLAT, "CYCLES", 0, "Intel: sample loads of at least CYCLES latency (default 30)", 0 },
	{ "period", OPT_PERIOD, "N", 0, "One sample every N loads or stores (default 2000)", 0 },
	{ "max-lines", OPT_MAX_LINES, "N", 0, "Room for N cache lines in the kernel, and in memory "
	  "for --replay and --record (the others are folded into \"other\"; default 4096)", 0 },
	{ "load-only", OPT_LOAD_ONLY, NULL, 0, "Load the BPF program (verifier check) and exit, "
	  "without sampling", 0 },
	OPTS_VERBOSE,
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
	default:
		return common_parse_opt(key, arg, state, &env.c);
	}
	return 0;
}

static void check_options(void)
{
	common_opts_finish(&env.c);
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
	if (env.load_only && env.record)
		die_usage("--load-only and --record exclude each other (nothing is sampled)");
	if (!env.interval_set && !env.c.json)
		env.interval = 1;
}

/* ---- reports ---- */

struct totals {
	uint64_t samples, kept, hitm, lines;
	struct hitm_other other;	/* folded to stay within --max-lines */
	uint64_t skips[HITM_SKIP_KINDS];
	__u64 losses[LOSS_KINDS];
	uint64_t malformed;
	double seconds;
};

static const char *const skip_names[HITM_SKIP_KINDS] = {
	[HITM_SKIP_NO_ADDR] = "no_addr",
	[HITM_SKIP_NO_SRC] = "no_data_src",
	[HITM_SKIP_NOT_MEM] = "not_load_or_store",
	[HITM_SKIP_COLD_LOAD] = "cold_load",
};

static const char *code_name(struct hitm_symcache *s, uint32_t pid, uint64_t ip,
			     const char **where)
{
	struct hitm_symname *e = hitm_sym_find(s, pid, ip, false);

	*where = e ? e->where : NULL;
	return e && e->name ? e->name : "[unknown]";
}

#define CODE_COL 70	/* where the CODE column starts */

static void print_plain(struct hitm_symcache *s, const struct hitm_view *v, size_t n,
			const struct totals *t)
{
	char cpus[256], when[32];
	time_t now = time(NULL);

	strftime(when, sizeof(when), "%H:%M:%S", localtime(&now));
	if (env.replay) {
		printf("hitmtop: replay of ");
		esc_fputs(env.replay, stdout);
	} else {
		printf("hitmtop %s, %.1f s", when, t->seconds);
	}
	printf(": %" PRIu64 " samples, %" PRIu64 " counted, %" PRIu64 " HITMs, %" PRIu64
	       " lines with HITMs (top %zu shown)\n", t->samples, t->kept, t->hitm, t->lines, n);
	if (t->other.lines || t->other.cell_samples)
		printf("other: %" PRIu64 " line records folded to stay within --max-lines %"
		       PRIu64 " (%" PRIu64 " samples, %" PRIu64 " HITMs); %" PRIu64
		       " samples counted in their line without their offset and code\n",
		       t->other.lines, env.max_lines, t->other.samples, t->other.hitm,
		       t->other.cell_samples);
	printf("\n");
	if (!n) {
		printf("no cache line with a HITM sampled yet\n");
		return;
	}
	printf("%-18s %7s %9s %7s %7s %7s %-9s %-14s %s\n", "LINE", "PID", "HITM", "(LCL/RMT)",
	       "LOADS", "STORES", "CPUS", "VERDICT", "WHAT");
	for (size_t i = 0; i < n; i++) {
		const struct hitm_line *l = v[i].l;
		const char *sym, *map;
		char lr[48];

		hitm_sym_line(s, &v[i], &sym, &map);
		hitm_cpu_str(l->c.cpus, cpus, sizeof(cpus));
		snprintf(lr, sizeof(lr), "%" PRIu64 "/%" PRIu64, (uint64_t)l->c.hitm_local,
			 (uint64_t)l->c.hitm_remote);
		printf("0x%-16" PRIx64 " %7u %7" PRIu64 " %9s %7" PRIu64 " %7" PRIu64
		       " %-9s %-14s ", (uint64_t)l->line, l->pid, (uint64_t)l->c.hitm,
		       lr, (uint64_t)l->c.loads, (uint64_t)l->c.stores, cpus,
		       hitm_verdict_str(v[i].verdict));
		esc_fputs(sym ? sym : (map ? map : "[unknown]"), stdout);
		if (sym && map) {
			printf(" (");
			esc_fputs(map, stdout);
			printf(")");
		}
		printf("\n");
		printf("    fix: %s\n", hitm_fix_str(v[i].verdict));
		printf("    %-8s %7s %7s %7s %-9s %-22s %s\n", "OFFSET", "HITM", "LOADS", "STORES",
		       "CPUS", "VARIABLE", "CODE (samples)");
		for (size_t k = 0; k < v[i].noffs; k++) {
			const struct hitm_offset *o = &v[i].offs[k];
			struct hitm_symname *e = hitm_sym_find(s, l->pid, l->line + o->offset, true);
			char off[16];

			snprintf(off, sizeof(off), "+0x%x", o->offset);
			hitm_cpu_str(o->c.cpus, cpus, sizeof(cpus));
			printf("    %-8s %7" PRIu64 " %7" PRIu64 " %7" PRIu64 " %-9s %s", off,
			       (uint64_t)o->c.hitm, (uint64_t)o->c.loads, (uint64_t)o->c.stores,
			       cpus, ESC_COL(e && e->name ? e->name : "-", 22));
			for (size_t j = 0; j < o->ncode && j < 3; j++) {
				const char *where, *fn = code_name(s, l->pid, o->code[j].ip, &where);

				printf("%*s", j ? CODE_COL : 1, "");
				esc_fputs(fn, stdout);
				if (where) {
					printf(" ");
					esc_fputs(where, stdout);
				}
				printf(" (%" PRIu64 ")\n", o->code[j].samples);
			}
			if (o->ncode > 3)
				printf("%*s... %zu more\n", CODE_COL, "", o->ncode - 3);
		}
		printf("\n");
	}
}

static void json_cpus(struct json *j, const __u64 set[HITM_CPU_WORDS])
{
	json_key(j, "cpus");
	json_arr_begin(j);
	for (unsigned c = 0; c < HITM_MAX_CPUS; c++)
		if (set[c / 64] & (1ULL << (c % 64)))
			json_u64(j, c);
	json_arr_end(j);
}

static void print_json(struct hitm_symcache *s, const struct hitm_view *v, size_t n,
		       const struct totals *t)
{
	struct json j;

	json_init(&j, stdout);
	json_obj_begin(&j);
	json_kv_str(&j, "tool", "hitmtop");
	json_kv_str(&j, "version", SUITE_VERSION);
	json_kv_str(&j, "source", env.replay ? "replay" : "sampling");
	json_kv_double(&j, "duration_s", t->seconds);
	json_kv_u64(&j, "samples", t->samples);
	json_kv_u64(&j, "counted", t->kept);
	json_kv_u64(&j, "hitm", t->hitm);
	json_kv_u64(&j, "lines_with_hitm", t->lines);
	json_key(&j, "other");
	json_obj_begin(&j);
	json_kv_u64(&j, "lines", t->other.lines);
	json_kv_u64(&j, "samples", t->other.samples);
	json_kv_u64(&j, "hitm", t->other.hitm);
	json_kv_u64(&j, "cell_samples", t->other.cell_samples);
	json_obj_end(&j);
	json_key(&j, "lines");
	json_arr_begin(&j);
	for (size_t i = 0; i < n; i++) {
		const struct hitm_line *l = v[i].l;
		const char *sym, *map;

		hitm_sym_line(s, &v[i], &sym, &map);
		json_obj_begin(&j);
		json_kv_hex(&j, "addr", l->line);
		json_kv_u64(&j, "pid", l->pid);
		json_kv_u64(&j, "hitm", l->c.hitm);
		json_kv_u64(&j, "hitm_local", l->c.hitm_local);
		json_kv_u64(&j, "hitm_remote", l->c.hitm_remote);
		json_kv_u64(&j, "loads", l->c.loads);
		json_kv_u64(&j, "stores", l->c.stores);
		json_cpus(&j, l->c.cpus);
		json_kv_str(&j, "verdict", hitm_verdict_str(v[i].verdict));
		json_kv_str(&j, "fix", hitm_fix_str(v[i].verdict));
		json_key(&j, "symbol");
		sym ? json_str(&j, sym) : json_null(&j);
		json_key(&j, "mapping");
		map ? json_str(&j, map) : json_null(&j);
		json_key(&j, "offsets");
		json_arr_begin(&j);
		for (size_t k = 0; k < v[i].noffs; k++) {
			const struct hitm_offset *o = &v[i].offs[k];
			struct hitm_symname *e = hitm_sym_find(s, l->pid, l->line + o->offset, true);

			json_obj_begin(&j);
			json_kv_u64(&j, "offset", o->offset);
			json_kv_u64(&j, "hitm", o->c.hitm);
			json_kv_u64(&j, "loads", o->c.loads);
			json_kv_u64(&j, "stores", o->c.stores);
			json_cpus(&j, o->c.cpus);
			json_key(&j, "write_cpus");
			json_arr_begin(&j);
			for (unsigned c = 0; c < HITM_MAX_CPUS; c++)
				if (o->c.wcpus[c / 64] & (1ULL << (c % 64)))
					json_u64(&j, c);
			json_arr_end(&j);
			json_key(&j, "hitm_cpus");
			json_arr_begin(&j);
			for (unsigned c = 0; c < HITM_MAX_CPUS; c++)
				if (o->c.hcpus[c / 64] & (1ULL << (c % 64)))
					json_u64(&j, c);
			json_arr_end(&j);
			json_kv_u64(&j, "writer_threads", hitm_writer_threads(&o->c));
			json_key(&j, "symbol");
			e && e->name ? json_str(&j, e->name) : json_null(&j);
			json_key(&j, "code");
			json_arr_begin(&j);
			for (size_t c = 0; c < o->ncode; c++) {
				const char *where, *fn = code_name(s, l->pid, o->code[c].ip, &where);

				json_obj_begin(&j);
				json_kv_hex(&j, "ip", o->code[c].ip);
				json_kv_str(&j, "symbol", fn);
				json_key(&j, "source");
				where ? json_str(&j, where) : json_null(&j);
				json_kv_u64(&j, "samples", o->code[c].samples);
				json_obj_end(&j);
			}
			json_arr_end(&j);
			json_obj_end(&j);
		}
		json_arr_end(&j);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_key(&j, "skipped");
	json_obj_begin(&j);
	for (int k = 0; k < HITM_SKIP_KINDS; k++)
		json_kv_u64(&j, skip_names[k], t->skips[k]);
	json_kv_u64(&j, "malformed_lines", t->malformed);
	json_obj_end(&j);
	json_key(&j, "losses");
	json_obj_begin(&j);
	for (int k = 0; k < LOSS_KINDS; k++)
		json_kv_u64(&j, loss_name(k), t->losses[k]);
	json_obj_end(&j);
	json_obj_end(&j);
	json_finish(&j);
}

static void report(struct hitm_symcache *s, const struct hitm_agg *a, struct totals *t,
		   bool redraw)
{
	struct hitm_view *v = NULL;
	size_t n = hitm_views(a, env.top, &v);

	t->hitm = 0;
	t->lines = 0;
	for (size_t i = 0; i < a->nlines; i++) {
		t->hitm += a->lines[i].c.hitm;
		t->lines += a->lines[i].c.hitm > 0;
	}
	t->other = a->other;
	t->hitm += a->other.hitm;
	t->kept = a->kept;
	t->samples = a->samples;
	/* t->skips holds the kernel's; the agg's are added for the report */
	for (int k = 0; k < HITM_SKIP_KINDS; k++) {
		t->samples += t->skips[k];
		t->skips[k] += a->skips[k];
	}
	hitm_sym_views(s, v, n);
	if (redraw)
		printf("\033[H\033[2J");
	if (env.c.json)
		print_json(s, v, n, t);
	else
		print_plain(s, v, n, t);
	fflush(stdout);
	for (int k = 0; k < HITM_SKIP_KINDS; k++)
		t->skips[k] -= a->skips[k];
	hitm_views_free(v, n);
}

/* ---- replay ---- */

#define MAX_MALFORMED_SHOWN 10

static int replay(struct hitm_symcache *s)
{
	FILE *f = strcmp(env.replay, "-") ? fopen(env.replay, "r") : stdin;
	struct totals t = { 0 };
	struct hitm_agg a;
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
	hitm_agg_init(&a);
	hitm_agg_bound(&a, env.max_lines);
	while (fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);
		int r;

		lineno++;
		if (len == sizeof(line) - 1 && line[len - 1] != '\n') {
			/* no sample is that long: skip the rest of it */
			int ch;

			while ((ch = getc(f)) != EOF && ch != '\n')
				;
			r = line[strspn(line, " \t\r")] == '#' ? 0 : -1;
			snprintf(err, sizeof(err), "longer than %zu bytes", sizeof(line) - 2);
		} else {
			r = hitm_parse_line(line, &smp, err, sizeof(err));
		}
		if (r > 0) {
			hitm_agg_sample(&a, &smp);
		} else if (r < 0) {
			if (t.malformed++ < MAX_MALFORMED_SHOWN)
				msg_warn("%s:%zu: malformed line skipped: %s", env.replay,
					 lineno, err);
		}
	}
	if (ferror(f))
		msg_warn("--replay: reading %s: %s", env.replay, strerror(errno));
	if (f != stdin)
		fclose(f);
	if (t.malformed > MAX_MALFORMED_SHOWN)
		msg_warn("%" PRIu64 " malformed lines skipped in all (first %d shown)",
			 t.malformed, MAX_MALFORMED_SHOWN);
	if (!a.samples)
		msg_warn("%s holds no sample", env.replay);
	report(s, &a, &t, false);
	if (a.other.lines)
		msg_warn("%" PRIu64 " line records (%" PRIu64 " samples, %" PRIu64 " HITMs) "
			 "were folded into \"other\" to stay within --max-lines %" PRIu64
			 "; raise it to see more lines", a.other.lines, a.other.samples,
			 a.other.hitm, env.max_lines);
	if (a.skips[HITM_SKIP_COLD_LOAD])
		msg_warn("%" PRIu64 " loads without HITM on lines never written nor "
			 "HITM'd were not counted", (uint64_t)a.skips[HITM_SKIP_COLD_LOAD]);
	hitm_agg_free(&a);
	return EXIT_REPORTED;
}

/* ---- sampling ---- */

struct live {
	struct hitmtop_bpf *skel;
	struct ring_buffer *rb;
	struct hitm_symcache *sym;
	struct hitm_agg agg;
	struct totals t;
	FILE *rec;
	int *fds;
	size_t nfds;
	struct bpf_link **links;
	uint64_t next_report;
	bool tty;
};

/* A process seen for the first time: keep what names its code after it exits */
static int on_announce(void *vctx, void *data, size_t size)
{
	struct live *lv = vctx;
	const struct announce_event *e = data;
	blaze_cache_src_process src = { .type_size = sizeof(src), .cache_vmas = true };

	if (size >= sizeof(*e) && e->type == ANNOUNCE_EV_NEW_PROCESS) {
		src.pid = e->tgid;
		blaze_symbolize_cache_process(lv->sym->sym, &src);
	}
	return 0;
}

static int on_event(void *vctx, void *data, size_t size)
{
	struct live *lv = vctx;
	const struct hitm_sample *e = data;

	if (size < sizeof(*e))
		return 0;
	if (e->type == HITM_EV_SAMPLE) {
		hitm_agg_sample(&lv->agg, e);
		/* a failure is said by the writer, and ends the run */
		if (lv->rec && !out_ended())
			hitm_write_sample(lv->rec, e);
	}
	return 0;
}

/* Snapshot of the kernel's maps into lv->agg */
static int read_maps(struct live *lv)
{
	int lfd = bpf_map__fd(lv->skel->maps.lines), ofd = bpf_map__fd(lv->skel->maps.offs);
	struct hitm_line_key lk, lnext, *lprev = NULL;
	struct hitm_off_key ok, onext, *oprev = NULL;
	struct hitm_counts c;
	int err;

	hitm_agg_reset(&lv->agg);
	while (!(err = bpf_map_get_next_key(lfd, lprev, &lnext))) {
		if (!bpf_map_lookup_elem(lfd, &lnext, &c))
			hitm_agg_add_line(&lv->agg, &lnext, &c);
		lk = lnext;
		lprev = &lk;
	}
	if (err != -ENOENT)
		return err;
	while (!(err = bpf_map_get_next_key(ofd, oprev, &onext))) {
		if (!bpf_map_lookup_elem(ofd, &onext, &c) &&
		    hitm_agg_find(&lv->agg, onext.tgid, onext.line))
			hitm_agg_add_cell(&lv->agg, &onext, &c);
		ok = onext;
		oprev = &ok;
	}
	return err == -ENOENT ? 0 : err;
}

static void live_report(struct live *lv, bool final)
{
	int n = ncpus_possible();
	__u64 *vals = calloc(n, sizeof(__u64));

	lv->t.seconds = (now_ns() - run_start_ns) / 1e9;
	losses_read(lv->skel->maps.losses, lv->t.losses);
	for (__u32 k = 0; vals && k < HITM_SKIP_KINDS; k++) {
		lv->t.skips[k] = 0;
		if (!bpf_map__lookup_elem(lv->skel->maps.skips, &k, sizeof(k), vals,
					  n * sizeof(__u64), 0))
			for (int c = 0; c < n; c++)
				lv->t.skips[k] += vals[c];
	}
	free(vals);
	if (!env.record) {
		int err = read_maps(lv);

		if (err)
			msg_warn("reading the maps failed: %s", strerror(-err));
		lv->agg.samples = lv->agg.kept;	/* the kernel counted them */
	}
	report(lv->sym, &lv->agg, &lv->t, lv->tty && !final && !env.c.json);
}

static int poll_events(void *vctx, int timeout_ms)
{
	struct live *lv = vctx;
	int err = ring_buffer__poll(lv->rb, timeout_ms);

	if (err < 0)
		return err;
	/* the final report comes soon: no interval report just before it */
	if (env.c.duration && now_ns() + 150000000ull >=
	    run_start_ns + (uint64_t)(env.c.duration * 1e9))
		return 0;
	if (env.interval > 0 && now_ns() >= lv->next_report) {
		lv->next_report += (uint64_t)(env.interval * 1e9);
		live_report(lv, false);
	}
	return 0;
}

static long perf_open(struct perf_event_attr *a, int cpu, int group)
{
	return syscall(SYS_perf_event_open, a, -1, cpu, group, PERF_FLAG_FD_CLOEXEC);
}

static void base_attr(struct perf_event_attr *a, const struct hitm_pmu *p)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = p->type;
	a->sample_period = env.period;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR |
			 PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT;
	/* PEBS: the exact instruction and address; IBS is precise by itself */
	a->precise_ip = p->kind == HITM_PMU_PEBS ? 2 : 0;
	if (p->kind == HITM_PMU_SOFTWARE_TEST) {
		a->config = PERF_COUNT_SW_CPU_CLOCK;
		a->sample_period = 1000000;	/* every ms of CPU */
	}
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->disabled = 1;
}

static int pmu_fail(const char *err)
{
	msg_warn("%s: the PMU's sysfs description is not usable", err);
	return EXIT_UNSUPPORTED;
}

static int open_fail(const char *what, const struct hitm_pmu *p, int cpu, int err)
{
	msg_warn("opening %s on %s for CPU %d failed: %s; the PMU is listed but not usable "
		 "(a VM without PMU passthrough, or perf_event_paranoid)", what, p->name,
		 cpu, strerror(err));
	return EXIT_UNSUPPORTED;
}

/* One sampling event per CPU and kind (loads, stores), each running the
 * program; returns 0 or an exit code */
static int open_events(struct live *lv, const struct hitm_pmu *pmus, int npmu,
		       const struct cpu_list *cpus)
{
	char err[256];

	lv->fds = calloc(cpus->n * 3, sizeof(*lv->fds));
	lv->links = calloc(cpus->n * 3, sizeof(*lv->links));
	if (!lv->fds || !lv->links)
		return EXIT_UNSUPPORTED;
	for (size_t i = 0; i < cpus->n; i++) {
		int cpu = (int)cpus->cpus[i];
		const struct hitm_pmu *p = NULL;
		static const char *const names[] = { "mem-loads", "mem-stores" };
		int leader = -1;

		for (int k = 0; k < npmu && !p; k++)
			if (!pmus[k].cpus.n || cpu_list_has(&pmus[k].cpus, cpu))
				p = &pmus[k];
		if (!p) {
			msg_warn("CPU %d: no memory-sampling PMU covers it; not sampled", cpu);
			continue;
		}
		for (int k = 0; k < (p->kind == HITM_PMU_PEBS ? 2 : 1); k++) {
			struct perf_event_attr a;
			long fd;

			base_attr(&a, p);
			if (p->kind == HITM_PMU_PEBS) {
				if (k == 1 && !p->has_stores)
					continue;
				if (k == 0 && p->has_aux) {
					/* the auxiliary event leads the load-latency group */
					struct perf_event_attr aux;

					base_attr(&aux, p);
					aux.sample_period = 0;
					aux.sample_type = 0;
					if (hitm_pmu_event_attr(p->dir, "mem-loads-aux", env.ldlat, &aux,
								err, sizeof(err)))
						return pmu_fail(err);
					leader = (int)perf_open(&aux, cpu, -1);
					if (leader < 0)
						return open_fail("mem-loads-aux", p, cpu, errno);
					lv->fds[lv->nfds++] = leader;
				}
				if (hitm_pmu_event_attr(p->dir, names[k], env.ldlat, &a, err,
							sizeof(err)))
					return pmu_fail(err);
			}
			fd = perf_open(&a, cpu, k == 0 ? leader : -1);
			if (fd < 0)
				return open_fail(p->kind == HITM_PMU_PEBS ? names[k] : p->name,
						 p, cpu, errno);
			lv->fds[lv->nfds++] = (int)fd;
			lv->links[lv->nfds - 1] = bpf_program__attach_perf_event(
				lv->skel->progs.hitm_sample, (int)fd);
			if (!lv->links[lv->nfds - 1])
				return bpf_fail("attaching to the sampling event", errno);
			lv->fds[lv->nfds - 1] = -1;	/* the link closes it */
		}
		if (leader >= 0)
			ioctl(leader, PERF_EVENT_IOC_ENABLE, 0);
	}
	if (!lv->nfds) {
		msg_warn("no CPU to sample: no memory-sampling PMU covers the CPUs asked for");
		return EXIT_UNSUPPORTED;
	}
	return 0;
}

static struct hitmtop_bpf *open_and_load(int *err)
{
	struct hitmtop_bpf *skel = hitmtop_bpf__open();

	if (!skel) {
		*err = bpf_fail("opening the BPF object", errno);
		return NULL;
	}
	skel->rodata->stream_samples = env.record != NULL;
	skel->rodata->aggregate = env.record == NULL;
	filter_configure(&skel->rodata->tfilter, skel->maps.target_tgids,
			 skel->maps.target_tids, skel->maps.target_cpus, &env.c);
	map_resize_opt(skel->maps.lines, (uint32_t)env.max_lines, "--max-lines", env.max_lines);
	map_resize_opt(skel->maps.offs, (uint32_t)env.max_lines * 4, "--max-lines", env.max_lines);
	map_mem_check(skel->obj);
	*err = hitmtop_bpf__load(skel);
	if (*err) {
		*err = bpf_fail("loading the BPF program", *err);
		hitmtop_bpf__destroy(skel);
		return NULL;
	}
	*err = filter_fill(skel->maps.target_tgids, skel->maps.target_tids,
			   skel->maps.target_cpus, &env.c);
	if (*err) {
		*err = bpf_fail("filling the target filter", *err);
		hitmtop_bpf__destroy(skel);
		return NULL;
	}
	return skel;
}

/* Stop sampling: the report after it is one instant */
static void detach(struct live *lv)
{
	for (size_t i = 0; lv->links && i < lv->nfds; i++) {
		bpf_link__destroy(lv->links[i]);
		lv->links[i] = NULL;
	}
}

static const char *const loss_hints[LOSS_KINDS] = {
	[LOSS_AGG_FULL] = "raise --max-lines",
	[LOSS_RINGBUF] = "raise --period",
};

static int sample(struct hitm_symcache *sym)
{
	struct hitm_pmu pmus[HITM_PMU_MAX];
	const char *root = getenv("HITMTOP_PMU_ROOT");
	struct cpu_list cpus = { 0 };
	struct live lv = { .sym = sym };
	enum run_end end;
	char why[1024];
	int npmu, err = 0;

	npmu = hitm_pmu_detect(root ? root : HITM_PMU_ROOT, pmus, HITM_PMU_MAX, why,
			       sizeof(why));
	if (getenv("HITMTOP_TEST_SOFTWARE_EVENT")) {
		hitm_pmu_free(pmus, npmu);
		memset(pmus, 0, sizeof(pmus[0]));
		snprintf(pmus[0].name, sizeof(pmus[0].name), "cpu-clock (test)");
		pmus[0].kind = HITM_PMU_SOFTWARE_TEST;
		pmus[0].type = PERF_TYPE_SOFTWARE;
		npmu = 1;
	}
	if (!npmu)
		die_unsupported("%s", why);
	bpf_env_check();
	if (env.c.cpus.n) {
		cpus = env.c.cpus;
		env.c.cpus = (struct cpu_list){ 0 };
	} else if (cpus_online(&cpus)) {
		hitm_pmu_free(pmus, npmu);
		die_unsupported("cannot read the list of online CPUs");
	}
	hitm_agg_init(&lv.agg);
	hitm_agg_bound(&lv.agg, env.max_lines);
	lv.tty = isatty(STDOUT_FILENO);
	if (env.record) {
		lv.rec = strcmp(env.record, "-") ? out_open(env.record, "--record") : NULL;
		if (!lv.rec) {
			err = EXIT_USAGE;
			msg_warn("--record: cannot write %s: %s", env.record,
				 strcmp(env.record, "-") ? strerror(errno) : "give a file name");
			goto cleanup;
		}
		hitm_write_header(lv.rec, pmus[0].name);
	}
	lv.skel = open_and_load(&err);
	if (!lv.skel)
		goto cleanup;
	lv.rb = ring_buffer__new(bpf_map__fd(lv.skel->maps.events), on_event, &lv, NULL);
	if (!lv.rb || ring_buffer__add(lv.rb, bpf_map__fd(lv.skel->maps.announce_rb),
				       on_announce, &lv)) {
		err = bpf_fail("creating the ring buffers", errno);
		goto cleanup;
	}
	err = open_events(&lv, pmus, npmu, &cpus);
	if (err)
		goto cleanup;
	msg_warn("sampling memory accesses with %s on %zu CPUs%s", pmus[0].name, cpus.n,
		 env.c.duration ? "" : "; Ctrl-C to end");
	lv.next_report = now_ns() + (uint64_t)(env.interval * 1e9);
	end = run_loop(&(struct run_opts){
		.duration = env.c.duration,
		.pids = &env.c.pids,
		.tids = &env.c.tids,
		.poll = poll_events,
		.ctx = &lv,
		.streaming = env.interval > 0,	/* a report every -i */
	});
	detach(&lv);
	ring_buffer__consume(lv.rb);
	run_report_end(end);
	live_report(&lv, true);
	losses_report(lv.t.losses, loss_hints);
	if (lv.t.skips[HITM_SKIP_NO_ADDR])
		msg_warn("%" PRIu64 " samples had no user-space data address (not counted)",
			 lv.t.skips[HITM_SKIP_NO_ADDR]);
	if (lv.t.skips[HITM_SKIP_NO_SRC])
		msg_warn("%" PRIu64 " samples came without a data source (the PMU driver "
			 "did not fill it)", lv.t.skips[HITM_SKIP_NO_SRC]);
	err = EXIT_REPORTED;
cleanup:
	detach(&lv);
	for (size_t i = 0; lv.fds && i < lv.nfds; i++)
		if (lv.fds[i] >= 0)
			close(lv.fds[i]);
	free(lv.fds);
	free(lv.links);
	ring_buffer__free(lv.rb);
	hitmtop_bpf__destroy(lv.skel);
	if (lv.rec)
		out_close(lv.rec);	/* a failure is said, and the exit is 2 */
	hitm_agg_free(&lv.agg);
	hitm_pmu_free(pmus, npmu);
	cpu_list_free(&cpus);
	return err;
}

int main(int argc, char **argv)
{
	static const struct argp argp = { options, parse_arg, NULL, doc, NULL, NULL, NULL };
	struct hitm_symcache sym = { 0 };
	int err;

	suite_init("hitmtop");
	argp_parse(&argp, argc, argv, 0, NULL, NULL);
	check_options();
	if (env.load_only) {
		struct hitmtop_bpf *skel;

		bpf_env_check();
		skel = open_and_load(&err);
		if (!skel)
			return err;
		msg_warn("BPF program %s loaded (verifier passed); not attached: --load-only",
			 bpf_program__name(skel->progs.hitm_sample));
		hitmtop_bpf__destroy(skel);
		return EXIT_REPORTED;
	}
	if (hitm_sym_init(&sym))
		die_unsupported("cannot create the symbolizer: %s",
				blaze_err_str(blaze_err_last()));
	if (!env.replay)
		run_install_signals();
	else
		signal(SIGPIPE, SIG_IGN);
	err = env.replay ? replay(&sym) : sample(&sym);
	hitm_sym_free(&sym);
	return err;
}
