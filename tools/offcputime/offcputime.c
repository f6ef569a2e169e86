// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* offcputime: where threads wait.  Off-CPU time summed by thread, user
 * stack and kernel stack, from sched_switch. */
#include <argp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "msg.h"
#include "mapmem.h"
#include "opts.h"
#include "run.h"
#include "lifecycle.h"
#include "kfeat.h"
#include "json.h"
#include "emit.h"
#include "stacks.h"
#include "pprof.h"
#include "flamesvg.h"
#include "folddiff.h"
#include "folded.h"
#include "escape.h"
#include "vec.h"
#include "bpfmaps.h"
#include "mapiter.h"
#include "hashmap.h"
#include "xalloc.h"
#include "dwunw.h"
#include "agg.h"
#include "stackstore.h"
#include "stackeng.h"
#include "testenv.h"
#include "offcputime.h"
#include "offcputime.skel.h"

static struct env {
	struct common_opts c;
	bool user_only, kernel_only;
	bool all_states;
	__u32 state_mask;
	bool runnable;
	__u64 min_us, max_us;
	bool kstack_at_switch_out;	/* --kernel-stacks-at switch-out */
	struct stack_opts s;	/* sizes, --lines, --dwarf */
} env = {
	.all_states = true,
	.min_us = 1,
	.max_us = ~0ULL / 1000,
	.s = { .stack_storage = 16384, .max_entries = 32768, .stack_copy = 8192 },
};

enum {
	OPT_STATE = OPT_TOOL_BASE,
	OPT_KSTACK_AT,
};

static const char doc[] =
"Summarize off-CPU time by thread, user stack and kernel stack.\n"
"\n"
"USAGE: offcputime [-p PID | -t TID] [-u | -k] [-m MIN_US] [-M MAX_US]\n"
"                  [--state MASK] [-f | -j] [--pprof FILE] [--svg FILE]\n"
"                  [--diff BEFORE.folded] [-d SECS | duration]\n"
"\n"
"EXAMPLES:\n"
"    offcputime                 # every thread, until Ctrl-C\n"
"    offcputime 5               # every thread, for 5 seconds\n"
"    offcputime -p 185 -d 10    # process 185 only, for 10 seconds\n"
"    offcputime -t 188,189      # threads 188 and 189 only\n"
"    offcputime -u -m 1000      # user threads, blocked 1 ms or more\n"
"    offcputime --state D       # uninterruptible sleep (D) only\n"
"    offcputime -f -d 10 > out.folded   # for flamegraph.pl\n"
"    offcputime -j -d 5         # JSON\n"
"    offcputime --dwarf -p 185  # whole user stacks without frame pointers\n"
"    offcputime -d 10 --pprof off.pb.gz   # a pprof profile\n"
"    offcputime -p 185 -d 10 --svg off.svg # a flame graph, and the report\n"
"    offcputime -p 185 -d 10 --diff out.folded # what grew and shrank since\n"
"    offcputime -p 185 -d 10 --diff out.folded --svg d.svg # coloured diff\n";

static const char args_doc[] = "[duration]";

static const struct argp_option options[] = {
	OPTS_PID,
	OPTS_TID,
	{ "user-threads-only", 'u', NULL, 0, "User threads only (no kernel threads)", 0 },
	{ "kernel-threads-only", 'k', NULL, 0, "Kernel threads only (no user threads)", 0 },
	{ "min-block-time", 'm', "MIN_US", 0, "Count intervals of at least MIN_US microseconds (default 1)", 0 },
	{ "max-block-time", 'M', "MAX_US", 0, "Count intervals of at most MAX_US microseconds", 0 },
	{ "state", OPT_STATE, "MASK", 0, "Task states to count: a bitmask of kernel state bits "
	  "(1 = S, 2 = D, ...) or letters from R S D T t I (R: preempted), matched with & (default: all)", 0 },
	OPTS_CPU("Count only intervals that began on these CPUs"),
	OPTS_DURATION,
	OPTS_FOLDED,
	OPTS_JSON,
	OPTS_CHECK("Exit 1 if any off-CPU time was recorded"),
	OPTS_PPROF,
	OPTS_SVG,
	OPTS_DIFF,
	{ "kernel-stacks-at", OPT_KSTACK_AT, "WHEN", 0, "Take kernel stacks at switch-in (default: only for the "
	  "intervals counted) or at switch-out (every switch); the same frames either way", 0 },
	OPTS_STACK_STORAGE,
	{ "max-entries", OPT_MAX_ENTRIES, "N", 0, "Room for N (thread, stack) entries between two drains "
	  "(every second) and N threads off-CPU at once (default 32768)", 0 },
	OPTS_INLINE,
	OPTS_NO_PARAMS,
	OPTS_LINES,
	OPTS_DWARF("user stacks"),
	OPTS_STACK_COPY("switch"),
	OPTS_VERBOSE,
	OPTS_BTF,
	OPTS_HELP_SHORT,
	{},
};

/* kernel task state bits by letter (include/linux/sched.h) */
static void parse_state(const char *arg)
{
	uint64_t v;
	char err[128];

	env.all_states = false;
	env.state_mask = 0;
	env.runnable = false;
	if (arg[0] >= '0' && arg[0] <= '9') {
		if (parse_u64(arg, 0, UINT32_MAX, true, &v, err, sizeof(err)))
			die_usage("invalid --state: %s", err);
		env.state_mask = (__u32)v;
		if (!v)
			env.runnable = true;	/* 0 is TASK_RUNNING */
		return;
	}
	if (!*arg)
		die_usage("invalid --state: empty");
	for (const char *p = arg; *p; p++) {
		switch (*p) {
		case 'R': env.runnable = true; break;
		case 'S': env.state_mask |= 0x1; break;
		case 'D': env.state_mask |= 0x2; break;
		case 'T': env.state_mask |= 0x4; break;
		case 't': env.state_mask |= 0x8; break;
		case 'I': env.state_mask |= 0x402; break;	/* TASK_IDLE */
		case ',': case '|': break;
		default:
			die_usage("invalid --state: unknown state '%c' in '%s' (use R "
				  "S D T t I or a number)", *p, arg);
		}
	}
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'u':
		env.user_only = true;
		break;
	case 'k':
		env.kernel_only = true;
		break;
	case 'm':
		env.min_us = opt_u64("-m/--min-block-time", arg, 0, ~0ULL / 1000);
		break;
	case 'M':
		env.max_us = opt_u64("-M/--max-block-time", arg, 0, ~0ULL / 1000);
		break;
	case OPT_STATE:
		parse_state(arg);
		break;
	case OPT_KSTACK_AT:
		if (!strcmp(arg, "switch-out"))
			env.kstack_at_switch_out = true;
		else if (!strcmp(arg, "switch-in"))
			env.kstack_at_switch_out = false;
		else
			die_usage("invalid --kernel-stacks-at: '%s' (use switch-in or switch-out)", arg);
		break;
	case ARGP_KEY_ARG:
		if (state->arg_num > 0)
			die_usage("unexpected argument '%s'", arg);
		if (env.c.duration)
			die_usage("duration given twice (-d and '%s')", arg);
		env.c.duration = opt_seconds("duration", arg);
		break;
	default:
		return stack_parse_opt(key, arg, state, &env.s, &env.c);
	}
	return 0;
}

/* ---- collection ---- */

struct entry {
	struct offcpu_key key;
	__u64 total_ns;
	__u64 count;
	/* --dwarf: the unwound user stack (leaf first), owned by dw_agg */
	bool dwarf;		/* key.ustack is STACK_ID_MIN + a dwunw stack id */
	bool whole;		/* off-CPU from before the window to its end */
};

/* What a run collected: the off-CPU intervals, by thread and stack */
struct intervals {
	struct entry *e;
	size_t n, cap;
	size_t still_blocked;
	size_t whole_window;	/* of them, off-CPU since before the window */
	__u64 unreported;	/* switch-ins the kernel did not report */
	/* --dwarf: key -> index in e, while intervals arrive; the entries
	 * of the counts map with a lost stack join it when n reaches
	 * idx_next (2048, then twice as many each time) */
	struct hashmap *idx;
	size_t idx_next;
};

struct dctx {
	struct intervals *c;
};

/* offcputime's state (passed to the lifecycle: lc->tool) */
static struct tool {
	struct stacksym *sym;
	struct aggmap *counts;
	struct intervals c;
	struct dctx dctx;
	struct dwunw *dw;	/* --dwarf only */
	/* kernel stacks were taken at switch-out: asked for, or the raw_tp
	 * flavour (whose task switched in is not a trusted pointer) */
	bool kstack_at_switch_out;
	/* -p/-t: the threads off-CPU as tracing begins get an interval from
	 * then (seed_sleepers); seed_user: with their user stacks; seed_ran:
	 * the walk was made */
	bool seed_targets, seed_user, seed_ran;
} tool = { .dctx = { &tool.c } };

static void collect_add(struct intervals *c, const struct offcpu_key *k,
			__u64 ns, __u64 count)
{
	array_reserve(c->e, c->cap, c->n + 1);
	memset(&c->e[c->n], 0, sizeof(c->e[c->n]));
	c->e[c->n].key = *k;
	c->e[c->n].total_ns = ns;
	c->e[c->n].count = count;
	c->n++;
}

/* --dwarf: the entries with a lost user stack, the first of equal keys,
 * are found by the intervals that lose theirs */
static void dwarf_index_lost(struct intervals *c)
{
	for (size_t k = 0; k < c->n; k++) {
		bool created;
		size_t *i;

		if (c->e[k].dwarf || c->e[k].key.ustack != STACK_LOST)
			continue;
		i = hashmap_get(c->idx, &c->e[k].key, &created);
		if (created || *i > k)
			*i = k;
	}
}

/* --dwarf: one closed interval with its unwound stack (id < 0: lost) */
static void dwarf_add(struct intervals *c, struct offcpu_key key, int id, __u64 ns)
{
	bool created;
	size_t *i;

	/* above the marks, so that no id is taken for one */
	key.ustack = stack_dwarf_key(id);
	if (!c->idx)
		c->idx = hashmap_new(sizeof(key), sizeof(size_t));
	if (c->n + 1 > c->idx_next) {
		c->idx_next = c->idx_next ? 2 * c->idx_next : 2048;
		dwarf_index_lost(c);
	}
	i = hashmap_get(c->idx, &key, &created);
	if (!created) {
		c->e[*i].total_ns += ns;
		c->e[*i].count++;
		return;
	}
	*i = c->n;
	collect_add(c, &key, ns, 1);
	c->e[c->n - 1].dwarf = id >= 0;
}

static void collect_one(const void *key, void *val, void *arg)
{
	const struct offcpu_val *v = val;

	collect_add(arg, key, v->total_ns, v->count);
}

/* What the drains of the counts maps gathered */
static void collect_counts(struct aggmap *counts, struct intervals *c)
{
	hashmap_each(agg_table(counts), collect_one, c);
}

/* Threads still off-CPU at the stop time count up to it */
static int collect_in_flight(int fd, struct intervals *c, __u64 stop_ns)
{
	__u32 next;
	struct offcpu_start s;
	struct map_iter it;

	map_iter_init(&it, fd, &next, sizeof(next), &s);
	while (map_iter_next(&it)) {
		bool ended;
		__u64 d;

		/* ts 0: closed (its delete failed), or lost (counted) */
		if (!s.ts || stop_ns <= s.ts)
			continue;
		/* end_delta: it came back unreported (inflight_stacks), in
		 * the run or after it */
		ended = s.end_delta && s.ts + s.end_delta <= stop_ns;
		if (!ended && !pid_alive(next))
			continue;
		d = ended ? s.end_delta : stop_ns - s.ts;
		if (d < env.min_us * 1000 || d > env.max_us * 1000)
			continue;
		if (s.seq)
			dwarf_add(c, s.key, dwunw_peek(tool.dw, s.seq), d);
		else
			collect_add(c, &s.key, d, 1);
		if (!ended)
			c->still_blocked++;
		/* opened as tracing began, never closed: the whole window */
		if (!ended && s.seeded && !s.seq) {
			c->e[c->n - 1].whole = true;
			c->whole_window++;
		}
	}
	return map_iter_end(&it);
}

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	return memcmp(&x->key, &y->key, sizeof(x->key));
}

/* ---- output ---- */

/* The frames of an entry: its key's stacks, the user one unwound with
 * --dwarf when the entry says so */
static void resolve(struct stacksym *sym, struct stackstore *st, const struct offcpu_key *key,
		    bool dwarf, struct stack_frames *f, struct stack_locs *l)
{
	struct stack_ref r = STACK_REF(key, tgid, exec_id, dwarf ? tool.dw : NULL);

	/* taken at switch-out: the scheduler's own frames are there, and go
	 * (at switch-in the kernel's walk left them out already) */
	r.kernel_nosched = tool.kstack_at_switch_out;
	stack_frames_resolve_at(sym, st, &r, f, l);
}

/* --pprof: the profile, and where it goes (opened before the start) */
static FILE *pprof_out;

static const char *const pprof_types[][2] = {
	{ "off_cpu", "nanoseconds" },
	{ "intervals", "count" },
};

static void pprof_entry(struct pprof *pp, const struct stack_frames *f,
			const struct stack_locs *l, const struct entry *e)
{
	struct pprof_label lb[PPROF_LABELS];
	int64_t v[2] = { (int64_t)e->total_ns, (int64_t)e->count };

	pprof_add(pp, f, l, v, lb, pprof_task_labels(lb, e->key.tgid, e->key.tid, e->key.comm));
}

/* --svg: the flame graph, and where it goes (opened before the start);
 * its widths are microseconds, as folded output's */
static FILE *svg_out;
/* --diff: the earlier run's folded stacks, read before the start */
static struct folddiff *diff;

/* One entry, as text or as a JSON object */
static void print_one(struct emit *o, const struct stack_frames *f, const struct entry *e)
{
	emit_obj_begin(o, NULL);
	stack_frames_emit(o, f, false);
	emit_str(o, "comm", "    -                %s", e->key.comm);
	emit_u64(o, "pid", " (%llu", e->key.tgid);
	emit_u64(o, "tid", "/%llu)\n", e->key.tid);
	emit_u64(o, "total_us", "        %llu us", e->total_ns / 1000);
	emit_u64(o, "count", " in %llu", e->count);
	emit_text(o, " interval%s", e->count == 1 ? "" : "s");
	emit_flag(o, "whole_window", " (off-CPU the whole window)", e->whole);
	emit_text(o, "\n\n");
	emit_obj_end(o);
}

/* One entry in the format asked for: a folded line, a JSON object or a
 * plain stack */
static void print_entry(struct folded *fo, struct json *j,
			struct stack_frames *f, const struct entry *e)
{
	if (fo) {
		/* flamegraph widths are whole microseconds */
		if (e->total_ns >= 1000)
			folded_add(fo, e->key.comm, f->u, f->un, f->k, f->kn,
				   e->total_ns / 1000);
	} else {
		struct emit o = env.c.json ? emit_to_json(j) : emit_to_text(stdout);

		print_one(&o, f, e);
	}
}

/* ---- one entry per printed identity ---- */

/* Entries that print the same become one, their counts and times
 * summed (stack_merge: the thread and the frames as named, so stacks
 * that differ only in addresses that name the same are one entry to
 * the reader); the first of each keeps its place */
static void merge_printed(struct stacksym *sym, struct stackstore *st, struct intervals *c)
{
	struct stack_merge *m = stack_merge_new();
	struct stack_frames *f = xcalloc(1, sizeof(*f));
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++) {
		struct entry *e = &c->e[i];
		struct {
			char comm[sizeof(e->key.comm)];
			__u32 tgid, tid;
			bool ulost, klost;
		} h;
		size_t first;

		resolve(sym, st, &e->key, e->dwarf, f, NULL);
		memset(&h, 0, sizeof(h));	/* the holes too: h is compared as bytes */
		memcpy(h.comm, e->key.comm, sizeof(h.comm));
		h.tgid = e->key.tgid;
		h.tid = e->key.tid;
		h.ulost = f->ulost;
		h.klost = f->klost;
		first = stack_merge_find(m, &h, sizeof(h), f, n);
		if (first < n) {
			c->e[first].total_ns += e->total_ns;
			c->e[first].count += e->count;
			c->e[first].whole = false;
			continue;
		}
		c->e[n++] = *e;
	}
	c->n = n;
	free(f);
	stack_merge_free(m);
}

static void report(struct stackstore *st, struct stacksym *sym,
		   struct intervals *c, const __u64 losses[LOSS_KINDS])
{
	struct folded *fo = NULL;
	struct stack_frames *f = xcalloc(1, sizeof(*f));
	struct stack_locs *l = NULL;
	struct pprof *pp = NULL;
	struct flamesvg *svg = svg_out ? flamesvg_new() : NULL;
	/* --pprof -: stdout is the profile's alone */
	bool print = pprof_out != stdout;
	struct json j;

	merge_printed(sym, st, c);
	if (c->n)	/* nothing recorded: c->e is NULL, which qsort may not be given */
		qsort(c->e, c->n, sizeof(*c->e), entry_cmp);
	if (pprof_out)
		pp = pprof_run_new(pprof_types, 2);
	if (pprof_out || svg)
		l = xcalloc(1, sizeof(*l));
	if (!print) {
	} else if (env.c.folded) {
		fo = folded_new();
	} else if (env.c.json) {
		envelope_begin(&j);
		envelope_duration(&j);
		json_kv_str(&j, "unit", "us");
		json_key(&j, "stacks");
		json_arr_begin(&j);
	}
	/* one entry at a time, until the output takes no more */
	for (size_t i = 0; i < c->n && !ferror(stdout); i++) {
		resolve(sym, st, &c->e[i].key, c->e[i].dwarf, f, l);
		if (pp)
			pprof_entry(pp, f, l, &c->e[i]);
		if (svg && c->e[i].total_ns >= 1000)
			flamesvg_add_stack(svg, sym, c->e[i].key.comm, NULL, f, l,
					   c->e[i].total_ns / 1000);
		if (diff && c->e[i].total_ns >= 1000) {	/* as -f would write it */
			char *line = folded_line(c->e[i].key.comm, f->u, f->un, f->k, f->kn);

			folddiff_add(diff, line, c->e[i].total_ns / 1000);
			free(line);
		}
		if (print)
			print_entry(fo, &j, f, &c->e[i]);
	}
	if (pp) {
		pprof_finish(pp, pprof_out);
		pprof_free(pp);
	}
	if (svg)	/* with --diff: the differential graph */
		flamesvg_finish_run(folddiff_graph(diff, env.s.diff, svg), svg_out, "offcputime", "off-CPU time", "us", &env.c);
	free(l);
	if (fo) {
		folded_print(fo, stdout);
		folded_free(fo);
	} else if (env.c.json && print) {
		json_arr_end(&j);
		if (diff)
			folddiff_json(diff, &j, env.s.diff, FOLDDIFF_TOP);
		json_kv_u64(&j, "still_blocked", c->still_blocked);
		json_kv_u64(&j, "whole_window_threads", c->whole_window);
		json_kv_u64(&j, "switch_ins_unreported", c->unreported);
		envelope_losses(&j, losses);
		json_key(&j, "frames");
		stacksym_json_stats(&j, sym);
		envelope_end(&j);
	} else if (print && diff) {
		folddiff_print(diff, stdout, env.s.diff, "us", FOLDDIFF_TOP);
	}
	folddiff_free(diff);
	diff = NULL;
	free(f);
}

/* ---- events ---- */

static int on_dwarf_event(void *vctx, void *data, size_t size)
{
	struct dctx *ctx = vctx;
	__u32 type = dwunw_on_record(tool.dw, data, size);

	if (type == OFFCPU_EV_INTERVAL && size >= sizeof(struct offcpu_interval)) {
		const struct offcpu_interval *ev = data;
		int id = dwunw_take(tool.dw, ev->seq);

		if (ev->in_range)
			dwarf_add(ctx->c, ev->key, id, ev->delta_ns);
	}
	return 0;
}

/* --check: "1234567 us off-CPU in 12 intervals by pid 42 in 5 s", on
 * stdout after the plain report (the other tools' verdict line), on
 * stderr with -f or -j, whose stdout is the document alone */
static void print_verdict(const struct intervals *c, enum run_end end)
{
	char who[420], what[96], line[600];
	__u64 ns = 0, n = 0;

	for (size_t i = 0; i < c->n; i++) {
		ns += c->e[i].total_ns;
		n += c->e[i].count;
	}
	common_opts_target(&env.c, who, sizeof(who));
	snprintf(what, sizeof(what), "%llu us off-CPU in %llu interval%s",
		 (unsigned long long)(ns / 1000), (unsigned long long)n,
		 n == 1 ? "" : "s");
	run_verdict(line, sizeof(line), what, who, end, env.c.duration);
	if (env.c.folded || env.c.json || pprof_out == stdout)
		msg_warn("%s", line);
	else
		printf("%s%s\n", c->n ? "" : "No off-CPU time recorded.\n\n", line);
}

static const char *const loss_hints[LOSS_KINDS] = {
	STACK_LOSS_HINTS,
	[LOSS_START_FULL] = "raise --max-entries",
	[LOSS_RINGBUF] = STACK_HINT_DWARF_RINGBUF,
};

/* ---- the lifecycle's hooks ---- */

LIFECYCLE_TOOL(offcputime, .what = "off-CPU time", .loss_hints = loss_hints,
	       .attach_what = "attaching to sched_switch");

int offcputime_configure(struct lifecycle *lc)
{
	struct offcputime_bpf *skel = lc->skel;

	skel->rodata->user_threads_only = env.user_only;
	skel->rodata->kernel_threads_only = env.kernel_only;
	skel->rodata->all_states = env.all_states;
	skel->rodata->state_mask = env.state_mask;
	skel->rodata->runnable_state = env.runnable;
	skel->rodata->min_ns = env.min_us * 1000;
	skel->rodata->max_ns = env.max_us * 1000;
	skel->rodata->want_ustack = !env.kernel_only;
	skel->rodata->dwarf_mode = env.s.dwarf;
	skel->rodata->ustack_copy_size = env.s.stack_copy;
	skel->rodata->kstack_at_switch_in = !env.kstack_at_switch_out;
	/* tests: switch-ins the kernel does not report (bpf/offcputime.bpf.c) */
	skel->rodata->hide_switch_in_every = testenv_hide_switch_in();
	lifecycle_size_stacks(lc, &env.s);
	map_resize_opt(skel->maps.start, env.s.max_entries, "--max-entries", env.s.max_entries);
	map_resize_opt(skel->maps.counts_a, env.s.max_entries, "--max-entries", env.s.max_entries);
	map_resize_opt(skel->maps.counts_b, env.s.max_entries, "--max-entries", env.s.max_entries);
	/* run by hand at the end, not attached; a task iterator needs the
	 * kernel's own BTF (with --btf FILE the kernel has none) */
	bpf_program__set_autoattach(skel->progs.inflight_stacks, false);
	if (!kfeat_has(KF_KERNEL_BTF))
		bpf_program__set_autoload(skel->progs.inflight_stacks, false);
	/* the threads off-CPU as tracing begins (seed_sleepers): the
	 * sleepable walk where it can read their user stacks, else the
	 * other (their user stacks then said missing) */
	tool.seed_targets = env.c.pids.n || env.c.tids.n;
	skel->rodata->seed_targets = tool.seed_targets;
	map_resize_opt(skel->maps.asleep, tool.seed_targets ? 1 : env.s.max_entries,
		       "--max-entries", env.s.max_entries);
	tool.seed_user = kfeat_has(KF_KERNEL_BTF) && kfeat_has(KF_TASK_STACK) &&
		    kfeat_has(KF_COPY_FROM_USER_TASK);
	bpf_program__set_autoattach(skel->progs.seed_sleepers_user, false);
	bpf_program__set_autoattach(skel->progs.seed_sleepers, false);
	bpf_program__set_autoload(skel->progs.seed_sleepers_user, tool.seed_user);
	bpf_program__set_autoload(skel->progs.seed_sleepers, !tool.seed_user &&
				  kfeat_has(KF_KERNEL_BTF) && kfeat_has(KF_TASK_STACK));
	return 0;
}

int offcputime_setup(struct lifecycle *lc)
{
	struct offcputime_bpf *skel = lc->skel;
	int err = lifecycle_agg(lc, &skel->bss->agg_slot);

	if (err)
		return err;
	tool.kstack_at_switch_out = env.kstack_at_switch_out ||
			       !bpf_program__autoload(skel->progs.sched_switch_btf);
	tool.counts = agg_add(lc->agg, skel->maps.counts_a, skel->maps.counts_b, NULL);
	tool.sym = stacksym_for(&env.s);
	stacksym_set_dwarf_hint(tool.sym, !env.s.dwarf);
	stacksym_want_kernel(tool.sym);
	stacksym_cache_targets(tool.sym, &env.c);
	if (env.s.dwarf)
		tool.dw = dwunw_new();
	return lifecycle_stack_rings(lc, env.s.dwarf, stacksym_on_announce, tool.sym,
				     on_dwarf_event, &tool.dctx);
}

/* Runs the task iterator prog once, to its end (0: not loaded) */
static int run_iter(struct bpf_program *prog)
{
	struct bpf_link *link;
	char buf[64];
	int fd, err = 0;

	link = bpf_program__attach_iter(prog, NULL);
	if (!link)
		return -errno;
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0)
		err = -errno;
	else {
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
	}
	bpf_link__destroy(link);
	return err;
}

/* Attached: the threads off-CPU now, since before the window */
int offcputime_started(struct lifecycle *lc)
{
	struct offcputime_bpf *skel = lc->skel;
	struct bpf_program *p = tool.seed_user ? skel->progs.seed_sleepers_user
					  : skel->progs.seed_sleepers;
	int err;

	if (!bpf_program__autoload(p))
		return 0;	/* no task iterator here: said at the end */
	err = run_iter(p);
	if (err)
		msg_warn("finding the threads already off-CPU failed: %s", strerror(-err));
	else
		tool.seed_ran = true;
	return 0;
}

/* The intervals still open at the end, by a walk over every task
 * (inflight_stacks): the kernel stacks deferred to a switch-in that did
 * not come, taken, their frames then read; and those of threads that came
 * back unreported, ended */
static int inflight_walk(struct lifecycle *lc)
{
	struct offcputime_bpf *skel = lc->skel;
	int err;

	if (!bpf_program__autoload(skel->progs.inflight_stacks))
		return 0;	/* no kernel BTF: raw_tp, no deferred stacks */
	err = run_iter(skel->progs.inflight_stacks);
	ring_buffer__consume(lc->rb);
	/* stacks taken at switch-out: no deferred stack to take */
	return tool.kstack_at_switch_out ? 0 : err;
}

int offcputime_collect(struct lifecycle *lc)
{
	struct offcputime_bpf *skel = lc->skel;
	int err = inflight_walk(lc);

	if (err)
		return err;
	tool.c.unreported = skel->bss->switch_ins_unreported;
	collect_counts(tool.counts, &tool.c);
	err = collect_in_flight(bpf_map__fd(skel->maps.start), &tool.c, run_end_ns);
	if (!tool.seed_targets)	/* counted by the walk at the end, not listed */
		tool.c.whole_window = skel->bss->whole_window_sleepers;
	return err;
}

void offcputime_report(struct lifecycle *lc)
{
	report(lc->stacks, tool.sym, &tool.c, lc->losses);
	if (env.c.check)
		print_verdict(&tool.c, lc->end);
}

/* The threads off-CPU from before the window to its end: how many, and
 * what of them could not be had */
static void whole_window_say(const struct offcputime_bpf *skel)
{
	size_t n = tool.c.whole_window;

	if (!tool.seed_ran) {
		msg_warn("threads off-CPU for the whole window are not %s: that needs task "
			 "iterators and bpf_get_task_stack() with the kernel's own BTF (Linux 5.9)",
			 tool.seed_targets ? "listed" : "counted");
		return;
	}
	if (!tool.seed_targets) {
		if (n)
			msg_warn("%zu threads were off-CPU for the whole window (not listed "
				 "system-wide: -p or -t lists them)", n);
		if (skel->bss->sleepers_unchecked)
			msg_warn("%llu threads off-CPU at the start were not followed (raise "
				 "--max-entries): the count above may be short",
				 (unsigned long long)skel->bss->sleepers_unchecked);
		return;
	}
	if (n)
		msg_warn("%zu threads were off-CPU for the whole window (since before "
			 "tracing began): listed with the window as their time", n);
	if (n && !tool.seed_user && !env.kernel_only)
		msg_warn("their user stacks are not shown: reading another thread's user "
			 "stack needs bpf_copy_from_user_task() (Linux 5.18)");
	else if (skel->bss->sleepers_no_ustack)
		msg_warn("%llu threads off-CPU as tracing began had no readable user stack "
			 "(their saved registers or frames could not be read): shown as "
			 "[user stack lost]", (unsigned long long)skel->bss->sleepers_no_ustack);
}

int offcputime_finish(struct lifecycle *lc)
{
	stacksym_report(tool.sym);
	stackstore_report(lc->stacks);
	if (tool.dw)
		dwunw_report(tool.dw);
	if (tool.c.still_blocked > tool.c.whole_window || (!tool.seed_targets && tool.c.still_blocked))
		msg_warn("%zu threads were still off-CPU at the end; counted up "
			 "to the stop time", tool.c.still_blocked -
			 (tool.seed_targets ? tool.c.whole_window : 0));
	whole_window_say(lc->skel);
	if (tool.c.unreported)
		msg_warn("%llu waits ended with no sched_switch event for the thread's "
			 "return to a CPU (the kernel leaves some out): each is timed up to "
			 "when the scheduler recorded that return%s",
			 (unsigned long long)tool.c.unreported,
			 tool.kstack_at_switch_out ? "" : "; their kernel stacks could not be "
			 "taken (shown as [kernel stack lost])");
	return lifecycle_check_exit(lc, tool.c.n);
}

void offcputime_cleanup(struct lifecycle *lc)
{
	stacksym_free(tool.sym);
	dwunw_free(tool.dw);
	hashmap_free(tool.c.idx);
	free(tool.c.e);
}

int main(int argc, char **argv)
{
	static const struct argp argp = { options, parse_arg, args_doc, doc, NULL, NULL, NULL };

	lifecycle_options("offcputime", &argp, argc, argv, &env.c);
	if (env.user_only && env.kernel_only)
		die_usage("-u and -k exclude each other");
	stack_opts_finish(&env.s);
	if (env.s.pprof)
		pprof_out = pprof_open(env.s.pprof, &env.c);
	if (env.s.svg)
		svg_out = flamesvg_open(env.s.svg);
	diff = folddiff_for(env.s.diff, env.c.folded);
	if (env.min_us > env.max_us)
		die_usage("-m %llu is above -M %llu", (unsigned long long)env.min_us,
			  (unsigned long long)env.max_us);
	return lifecycle_run(&offcputime_ops, &env.c, &tool);
}
