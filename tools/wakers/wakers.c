// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* wakers: who wakes my threads, from where, and how often.  Wakeups (and
 * signals) of the traced threads, by waker, waker stacks and target, with
 * the time the target had been blocked and how long it then took to run. */
#include <argp.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "msg.h"
#include "clock.h"
#include "procfs.h"
#include "mapmem.h"
#include "opts.h"
#include "run.h"
#include "lifecycle.h"
#include "json.h"
#include "emit.h"
#include "histogram.h"
#include "stacks.h"
#include "pprof.h"
#include "flamesvg.h"
#include "folddiff.h"
#include "xalloc.h"
#include "escape.h"
#include "vec.h"
#include "bpfmaps.h"
#include "agg.h"
#include "stackstore.h"
#include "stackeng.h"
#include "announce.h"
#include "dwunw.h"
#include "hashmap.h"
#include "irqctx.h"
#include "hist.bpf.h"	/* hist_add_local(), for --dwarf records */
#include "testenv.h"
#include "wakers.h"
#include "wakers.skel.h"

static struct env {
	struct common_opts c;
	bool time;
	bool no_signals;
	struct stack_opts s;	/* sizes, --lines, --dwarf */
} env = {
	.s = { .stack_storage = 16384, .max_entries = 10240, .stack_copy = 8192 },
};

enum {
	OPT_TIME = OPT_TOOL_BASE,
	OPT_NO_SIGNALS,
};

static const char doc[] =
"Show who wakes the traced threads (and who signals them): the waker's\n"
"name, pid, kernel and user stack, how often, how long the target had been\n"
"blocked, and how long it then took to run.  Wakeups from interrupt context\n"
"are labelled [hardirq], [softirq] or [nmi], never blamed on the task that\n"
"happened to be interrupted.\n"
"\n"
"USAGE: wakers [-p PID|-t TID] [-C CPUS] [-d SECS] [-f [--time]|-j] [--check] [--dwarf]\n"
"              [--pprof FILE] [--svg FILE] [--diff BEFORE.folded] [--time]\n"
"\n"
"EXAMPLES:\n"
"    wakers -p 185              # who wakes process 185, until Ctrl-C\n"
"    wakers -t 188 -d 10        # who wakes thread 188, for 10 seconds\n"
"    wakers -d 5                # every wakeup on the machine, for 5 seconds\n"
"    wakers -p 185 -f -d 10 > wakers.folded   # for flamegraph.pl\n"
"    wakers -p 185 -f --time -d 10   # weighted by time blocked (us)\n"
"    wakers -t 188 -j -d 5      # JSON\n"
"    wakers -t 188 --check -d 5 # exit 1 if thread 188 was woken at all\n"
"    wakers --dwarf -p 185 -f -d 5   # whole stacks, no frame pointers\n"
"    wakers -p 185 -d 10 --pprof w.pb.gz --time   # pprof, with time blocked\n"
"    wakers -p 185 -d 10 --svg w.svg   # a flame graph, and the report\n"
"    wakers -p 185 -d 10 --diff wakers.folded  # what grew and shrank since\n";

static const struct argp_option options[] = {
	OPTS_PID,
	OPTS_TID,
	OPTS_CPU("Count only wakeups and signals sent from these CPUs"),
	OPTS_DURATION,
	OPTS_FOLDED,
	{ "time", OPT_TIME, NULL, 0, "With -f: the value is the microseconds the woken "
	  "thread had been blocked, not the number of wakeups (--svg: the widths too); "
	  "with --pprof: a second sample type, blocked/nanoseconds", 0 },
	OPTS_JSON,
	OPTS_CHECK("Exit 1 if a traced thread was woken or signalled at all"),
	OPTS_PPROF,
	OPTS_SVG,
	OPTS_DIFF,
	{ "no-signals", OPT_NO_SIGNALS, NULL, 0, "Do not trace signal_generate", 0 },
	OPTS_STACK_STORAGE,
	{ "max-entries", OPT_MAX_ENTRIES, "N", 0, "Room for N (waker, stacks, target) records between two "
	  "drains (every second) and N traced threads (default 10240)", 0 },
	OPTS_LINES,
	OPTS_INLINE,
	OPTS_NO_PARAMS,
	OPTS_DWARF("the wakers' user stacks"),
	OPTS_STACK_COPY("wakeup"),
	OPTS_VERBOSE,
	OPTS_BTF,
	OPTS_HELP_SHORT,
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case OPT_TIME:
		env.time = true;
		break;
	case OPT_NO_SIGNALS:
		env.no_signals = true;
		break;
	default:
		return stack_parse_opt(key, arg, state, &env.s, &env.c);
	}
	return 0;
}

/* ---- names ---- */

static const char *const sig_results[] = {
	"delivered", "ignored", "already_pending", "overflow_fail", "lose_info",
};

static void signal_name(int sig, char *buf, size_t size)
{
	const char *abbr = sig > 0 && sig < SIGRTMIN ? sigabbrev_np(sig) : NULL;

	if (abbr)
		snprintf(buf, size, "SIG%s", abbr);
	else if (sig >= SIGRTMIN && sig <= SIGRTMAX)
		snprintf(buf, size, "SIGRTMIN+%d", sig - SIGRTMIN);
	else
		snprintf(buf, size, "signal %d", sig);
}

/* The name of a hard interrupt: its handlers' names from sysfs, else the
 * system vector its kernel stack went through ("apic_timer_interrupt"),
 * else "" */
static void hardirq_name(int irq, const char **kfr, int kn, char *buf, size_t size)
{
	char path[64];
	int n;

	buf[0] = 0;
	if (irq >= 0) {
		snprintf(path, sizeof(path), "/sys/kernel/irq/%d/actions", irq);
		n = read_small_file(path, buf, size);
		if (n > 0) {
			buf[strcspn(buf, "\n")] = 0;
			if (buf[0])
				return;
		}
		snprintf(buf, size, "irq %d", irq);
		return;
	}
	for (int i = kn - 1; i >= 0; i--) {
		if (!strncmp(kfr[i], "asm_sysvec_", 11)) {
			snprintf(buf, size, "%s", kfr[i] + 11);
			return;
		}
	}
}

/* ---- collection ---- */

struct frames {
	struct stack_frames s;
	struct stack_locs *l;	/* --pprof: where the frames are */
	char label[160];	/* interrupt context: "[softirq NET_RX]" */
	char sub[128];		/* its name alone: "NET_RX", or "" */
};

struct entry {
	struct wakers_key key;
	struct wakers_val val;
	struct hist latency;
	struct frames *f;	/* resolved, see resolve_all() */
	bool dwarf;		/* key.ustack is STACK_ID_MIN + a dwunw stack id */
};

/* What a run collected: the wakeups, by waker, wakee and stack */
struct wakeups {
	struct entry *e;
	size_t n, cap;
	__u64 wakeups, signals;
	struct hist latency;	/* every wakeup, merged */
};

/* --dwarf: the records that came with a user-stack sample, aggregated
 * here by key (key.ustack: STACK_ID_MIN + the unwound stack's id, or
 * STACK_LOST) */
struct dw_rec {
	struct wakers_val val;
	struct hist latency;
	bool dwarf;
};

/* --dwarf: per woken thread, the record its latency goes to */
struct dw_woken {
	__u64 seq;
	struct wakers_key key;
};

/* wakers' state (passed to the lifecycle: lc->tool) */
static struct tool {
	struct stacksym *sym;
	struct aggmap *agg, *latency;
	struct wakeups c;
	/* --dwarf: the unwinder, the records by key, the woken threads */
	struct dwunw *dw;
	struct hashmap *dw_recs, *dw_woken;
} tool;

static int on_dwarf_event(void *vctx, void *data, size_t size)
{
	__u32 type = dwunw_on_record(tool.dw, data, size);

	if (type == WK_EV_RECORD && size >= sizeof(struct wakers_record)) {
		const struct wakers_record *r = data;
		struct wakers_key key = r->key;
		int id = dwunw_take(tool.dw, r->seq);
		struct dw_rec *d;

		/* above the marks, so that no id is taken for one */
		key.ustack = stack_dwarf_key(id);
		d = hashmap_get(tool.dw_recs, &key, NULL);
		d->dwarf = id >= 0;
		d->val.count++;
		if (r->blocked_known) {
			d->val.blocked_ns += r->blocked_ns;
			d->val.blocked_known++;
		}
		if (key.type == WK_WAKEUP) {
			struct dw_woken *w = hashmap_get(tool.dw_woken, &key.target_tid, NULL);

			w->seq = r->seq;
			w->key = key;
		}
	} else if (type == WK_EV_LATENCY && size >= sizeof(struct wakers_latency)) {
		const struct wakers_latency *l = data;
		struct dw_woken *w = hashmap_lookup(tool.dw_woken, &l->tid);
		struct dw_rec *d;

		if (w && w->seq == l->seq && (d = hashmap_lookup(tool.dw_recs, &w->key))) {
			hist_add_local(&d->latency, l->latency_ns);
			w->seq = 0;
		}
	}
	return 0;
}

static void entry_add(struct wakeups *c, const struct wakers_key *k,
		      const struct wakers_val *v, const struct hist *lat, bool dwarf)
{
	struct entry *e;

	array_reserve(c->e, c->cap, c->n + 1);
	e = &c->e[c->n++];
	e->key = *k;
	e->val = *v;
	e->latency = *lat;
	e->f = NULL;
	e->dwarf = dwarf;
	if (k->type == WK_WAKEUP) {
		c->wakeups += v->count;
		hist_merge(&c->latency, lat);
	} else {
		c->signals += v->count;
	}
}

static void collect_dwarf_one(const void *key, void *val, void *arg)
{
	struct wakeups *c = arg;
	const struct dw_rec *d = val;

	entry_add(c, key, &d->val, &d->latency, d->dwarf);
}

struct collect_ctx {
	struct wakeups *c;
	const struct hashmap *latency;
};

static void collect_one(const void *key, void *val, void *arg)
{
	static const struct hist none;
	const struct collect_ctx *x = arg;
	const struct hist *lat = hashmap_lookup(x->latency, key);

	entry_add(x->c, key, val, lat ? lat : &none, false);
}

/* What the drains of the aggregation maps gathered, and the --dwarf
 * records */
static void collect(struct aggmap *agg, struct aggmap *latency, struct wakeups *c)
{
	struct collect_ctx x = { c, agg_table(latency) };

	hashmap_each(agg_table(agg), collect_one, &x);
	if (tool.dw_recs)
		hashmap_each(tool.dw_recs, collect_dwarf_one, c);
}

static __u64 sort_value(const struct entry *e)
{
	return env.time ? e->val.blocked_ns : e->val.count;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->key.type != y->key.type)
		return x->key.type < y->key.type ? -1 : 1;
	if (sort_value(x) != sort_value(y))
		return sort_value(x) < sort_value(y) ? 1 : -1;
	return memcmp(&x->key, &y->key, sizeof(x->key));
}

/* ---- output ---- */

static void resolve(struct stacksym *sym, struct stackstore *st, const struct wakers_key *key,
		    bool dwarf, struct frames *f)
{
	struct stack_ref r = STACK_REF(key, waker_pid, waker_exec_id, dwarf ? tool.dw : NULL);
	struct stack_frames *sf = &f->s;
	int cut = 0;

	f->label[0] = f->sub[0] = 0;
	stack_frames_resolve_at(sym, st, &r, sf, f->l);
	if (key->ctx == WK_CTX_TASK)
		return;

	/* An interrupt's frames below its entry (asm_*) belong to whatever
	 * it interrupted: they are dropped, so that nothing is blamed on it
	 * and identical interrupt paths merge. */
	for (int i = sf->kn - 1; i >= 0; i--) {
		if (!strncmp(sf->k[i], "asm_", 4)) {
			cut = i;
			break;
		}
	}
	if (cut) {
		memmove(sf->k, sf->k + cut, (sf->kn - cut) * sizeof(sf->k[0]));
		if (f->l)
			memmove(f->l->k, f->l->k + cut, (sf->kn - cut) * sizeof(f->l->k[0]));
		sf->kn -= cut;
	}
	if (key->ctx == WK_CTX_HARDIRQ)
		hardirq_name(key->irq, sf->k, sf->kn, f->sub, sizeof(f->sub));
	else if (key->ctx == WK_CTX_SOFTIRQ && key->irq >= 0)
		snprintf(f->sub, sizeof(f->sub), "%s", irqctx_softirq_name(key->irq));
	snprintf(f->label, sizeof(f->label), "[%s%s%s]", irqctx_name(key->ctx),
		 f->sub[0] ? " " : "", f->sub);
}

/* Identical once resolved: same who, whom and frames.  Stacks that
 * differ only below an interrupt's entry (cut by resolve()) merge here. */
static int ident_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	struct wakers_key kx = x->key, ky = y->key;
	int r;

	/* what is printed: not the stack ids, nor the image of the waker */
	kx.kstack = kx.ustack = ky.kstack = ky.ustack = 0;
	kx.waker_exec_id = ky.waker_exec_id = 0;
	r = memcmp(&kx, &ky, sizeof(kx));
	return r ? r : stack_frames_cmp(&x->f->s, &y->f->s);
}

/* Resolve every entry's frames, then merge the identical ones */
static void resolve_all(struct stacksym *sym, struct stackstore *st, struct wakeups *c)
{
	size_t out = 0;

	for (size_t i = 0; i < c->n; i++) {
		c->e[i].f = malloc(sizeof(struct frames));
		if (!c->e[i].f) {
			msg_warn("out of memory");
			exit(EXIT_UNSUPPORTED);
		}
		c->e[i].f->l = env.s.pprof || env.s.svg ? xmalloc(sizeof(struct stack_locs)) : NULL;
		resolve(sym, st, &c->e[i].key, c->e[i].dwarf, c->e[i].f);
	}
	if (c->n)	/* nothing recorded: c->e may be NULL, which qsort may not be given */
		qsort(c->e, c->n, sizeof(*c->e), ident_cmp);
	for (size_t i = 0; i < c->n; i++) {
		struct entry *d = &c->e[out - (out ? 1 : 0)];

		if (out && !ident_cmp(d, &c->e[i])) {
			d->val.count += c->e[i].val.count;
			d->val.blocked_ns += c->e[i].val.blocked_ns;
			d->val.blocked_known += c->e[i].val.blocked_known;
			hist_merge(&d->latency, &c->e[i].latency);
			free(c->e[i].f->l);
			free(c->e[i].f);
			continue;
		}
		c->e[out++] = c->e[i];
	}
	c->n = out;
	if (c->n)	/* nothing recorded: c->e may be NULL, which qsort may not be given */
		qsort(c->e, c->n, sizeof(*c->e), entry_cmp);
}

static void collected_free(struct wakeups *c)
{
	for (size_t i = 0; i < c->n; i++) {
		if (c->e[i].f)
			free(c->e[i].f->l);
		free(c->e[i].f);
	}
	free(c->e);
}

/* The waker or sender: a task, or an interrupt context and its label */
static void emit_waker(struct emit *o, const char *role, const struct wakers_key *k,
		       const struct frames *f)
{
	bool task = k->ctx == WK_CTX_TASK;

	emit_obj_begin(o, role);
	emit_text(o, "    -                %s ", role);
	emit_str(o, "context", NULL, irqctx_name(k->ctx));
	emit_str(o, "comm", "%s", task ? k->waker_comm : f->label);
	emit_u64(o, "pid", task ? " (%llu" : NULL, k->waker_pid);
	emit_u64(o, "tid", task ? "/%llu)" : NULL, k->waker_tid);
	emit_text(o, "\n");
	emit_i64(o, "irq", NULL, task ? -1 : k->irq);
	emit_str(o, "irq_name", NULL, f->sub[0] ? f->sub : NULL);
	emit_obj_end(o);
}

static void emit_target(struct emit *o, const char *fmt, const struct wakers_key *k)
{
	emit_obj_begin(o, "target");
	emit_str(o, "comm", fmt, k->target_comm);
	emit_u64(o, "pid", " (%llu", k->target_pid);
	emit_u64(o, "tid", "/%llu)", k->target_tid);
	emit_obj_end(o);
}

static void emit_signal(struct emit *o, const struct frames *f, const struct entry *e)
{
	const struct wakers_key *k = &e->key;
	bool known = (size_t)k->sig_result < ARRAY_SIZE(sig_results);
	char sig[32];

	signal_name(k->sig, sig, sizeof(sig));
	emit_waker(o, "sender", k, f);
	emit_str(o, "name", "    -                %s", sig);
	emit_i64(o, "signal", " (%lld) to ", k->sig);
	emit_target(o, "%s", k);
	emit_flag(o, "group", ", process-wide", k->sig_group);
	emit_u64(o, "count", "\n        %llu", e->val.count);
	emit_text(o, " signal%s, ", e->val.count == 1 ? "" : "s");
	emit_str(o, "result", known ? "%s\n\n" : "%s result\n\n",
		 known ? sig_results[k->sig_result] : "unknown");
}

static void emit_wakeup(struct emit *o, const struct frames *f, const struct entry *e)
{
	const struct wakers_key *k = &e->key;
	const struct hist *h = &e->latency;
	char a[32], b[32], c[32];

	emit_waker(o, "waker", k, f);
	emit_target(o, "    -                woke %s", k);
	emit_u64(o, "count", "\n        %llu", e->val.count);
	emit_text(o, " wakeup%s", e->val.count == 1 ? "" : "s");
	emit_u64(o, "blocked_us", NULL, e->val.blocked_ns / 1000);
	emit_u64(o, "blocked_known", NULL, e->val.blocked_known);
	fmt_dur(a, sizeof(a), e->val.blocked_ns, DUR_CELL);
	if (e->val.blocked_known == e->val.count)
		emit_text(o, ", after %s blocked in all\n", a);
	else if (e->val.blocked_known)
		emit_text(o, ", %llu of them after %s blocked in all (the others had "
			  "blocked before tracing began)\n",
			  (unsigned long long)e->val.blocked_known, a);
	else
		emit_text(o, ", ending sleeps that began before tracing did\n");
	if (emit_json(o)) {
		json_key(o->j, "latency");
		json_obj_begin(o->j);
		json_kv_u64(o->j, "count", h->count);
		json_kv_u64(o->j, "sum_ns", h->sum);
		json_kv_u64(o->j, "max_ns", h->max);
		hist_json_percentiles(o->j, h);
		json_obj_end(o->j);
	} else if (h->count) {
		fmt_dur(a, sizeof(a), hist_percentile(h, 0.50), DUR_CELL);
		fmt_dur(b, sizeof(b), hist_percentile(h, 0.99), DUR_CELL);
		fmt_dur(c, sizeof(c), h->max, DUR_CELL);
		emit_text(o, "        ran after: p50 %s  p99 %s  max %s\n", a, b, c);
	}
	emit_text(o, "\n");
}

/* One entry, as text or as a JSON object */
static void print_one(struct emit *o, const struct frames *f, const struct entry *e)
{
	emit_obj_begin(o, NULL);
	stack_frames_emit(o, &f->s, false);
	if (e->key.type == WK_SIGNAL)
		emit_signal(o, f, e);
	else
		emit_wakeup(o, f, e);
	emit_obj_end(o);
}

/* --diff: the earlier run's folded stacks, read before the start */
static struct folddiff *diff;

static const char *diff_unit(void)
{
	return env.time ? "us" : "wakeups";
}

static void json_tail(struct json *j, const struct wakeups *c, struct stacksym *sym,
		      const __u64 losses[LOSS_KINDS], __u32 ctx_src)
{
	json_arr_end(j);
	json_key(j, "totals");
	json_obj_begin(j);
	json_kv_u64(j, "wakeups", c->wakeups);
	json_kv_u64(j, "signals", c->signals);
	/* wakeups without a latency (latency.count is the others) */
	json_kv_u64(j, "wakeups_without_latency",
		    c->wakeups > c->latency.count ? c->wakeups - c->latency.count : 0);
	json_obj_end(j);
	json_key(j, "latency");
	hist_json(j, &c->latency);
	json_kv_str(j, "context_source", irqctx_source_name(ctx_src));
	if (diff)
		folddiff_json(diff, j, env.s.diff, FOLDDIFF_TOP);
	envelope_losses(j, losses);
	json_key(j, "frames");
	stacksym_json_stats(j, sym);
	envelope_end(j);
}

/* An entry's value in folded output and --svg: its wakeups (--time:
 * microseconds blocked); 0 for a signal, which neither holds */
static __u64 folded_value(const struct entry *e)
{
	if (e->key.type != WK_WAKEUP)
		return 0;
	return env.time ? e->val.blocked_ns / 1000 : e->val.count;
}

/* An entry's folded line (malloc'ed; NULL when it has no value: a
 * signal), its value in *v */
static char *entry_line(struct frames *f, const struct entry *e, __u64 *v)
{
	const char *u[1];
	char sub[140];

	*v = folded_value(e);
	if (!*v)
		return NULL;
	if (e->key.ctx == WK_CTX_TASK)
		return folded_line(e->key.waker_comm, f->s.u, f->s.un, f->s.k, f->s.kn);
	/* "[softirq];[NET_RX];kernel frames" */
	snprintf(sub, sizeof(sub), "[%s]", f->sub);
	u[0] = sub;
	return folded_line(irqctx_label(e->key.ctx), u, f->sub[0] ? 1 : 0, f->s.k, f->s.kn);
}

static void folded_entry(struct folded *fo, struct frames *f, const struct entry *e)
{
	__u64 v;
	char *line = entry_line(f, e, &v);

	if (line)
		folded_add_line(fo, line, v);
}

/* This run's folded lines into diff */
static void diff_add_all(const struct wakeups *c)
{
	for (size_t i = 0; i < c->n; i++) {
		__u64 v;
		char *line = entry_line(c->e[i].f, &c->e[i], &v);

		if (line)
			folddiff_add(diff, line, v);
		free(line);
	}
}

/* --pprof: where the profile goes (opened before the start) */
static FILE *pprof_out;
/* --svg: the same for the flame graph */
static FILE *svg_out;

/* The wakeups as a flame graph, the values and frames of folded output
 * (an interrupt context: its label, then its name) */
static void svg_report(const struct stacksym *sym, const struct wakeups *c)
{
	struct flamesvg *g = flamesvg_new();
	char sub[140];

	for (size_t i = 0; i < c->n; i++) {
		const struct entry *e = &c->e[i];
		const struct frames *f = e->f;
		__u64 v = folded_value(e);

		if (!v)
			continue;
		if (e->key.ctx == WK_CTX_TASK) {
			flamesvg_add_stack(g, sym, e->key.waker_comm, NULL, &f->s, f->l, v);
			continue;
		}
		sub[0] = 0;
		if (f->sub[0])
			snprintf(sub, sizeof(sub), "[%s]", f->sub);
		flamesvg_add_stack(g, sym, irqctx_label(e->key.ctx), sub, &f->s, f->l, v);
	}
	/* with --diff: the differential graph (diff_add_all() first) */
	flamesvg_finish_run(folddiff_graph(diff, env.s.diff, g), svg_out, "wakers", env.time ? "time blocked before the wakeups" :
			    "wakeups", env.time ? "us" : "wakeups", &env.c);
}

static const char *const pprof_types[][2] = {
	{ "wakeups", "count" },
	{ "blocked", "nanoseconds" },
};

/* A wakeup's sample: the waker's stack and labels, the woken thread's as
 * target_pid, target_tid, target_comm; in interrupt context the comm
 * is the interrupt's label ("[softirq NET_RX]") */
static void pprof_entry(struct pprof *pp, const struct frames *f, const struct entry *e)
{
	const struct wakers_key *k = &e->key;
	struct pprof_label lb[PPROF_LABELS];
	int64_t v[2] = { (int64_t)e->val.count, (int64_t)e->val.blocked_ns };
	int n;

	if (k->type != WK_WAKEUP)
		return;
	n = pprof_task_labels(lb, k->waker_pid, k->waker_tid,
			      k->ctx == WK_CTX_TASK ? k->waker_comm : f->label);
	lb[n++] = (struct pprof_label){ .key = "target_pid", .num = k->target_pid };
	lb[n++] = (struct pprof_label){ .key = "target_tid", .num = k->target_tid };
	lb[n++] = (struct pprof_label){ .key = "target_comm", .str = k->target_comm };
	pprof_add(pp, &f->s, f->l, v, lb, n);
}

/* All the wakeups in a profile, written to pprof_out */
static void pprof_report(const struct wakeups *c)
{
	struct pprof *pp = pprof_run_new(pprof_types, env.time ? 2 : 1);

	for (size_t i = 0; i < c->n; i++)
		pprof_entry(pp, c->e[i].f, &c->e[i]);
	pprof_finish(pp, pprof_out);
	pprof_free(pp);
}

static void report(struct wakers_bpf *skel, struct stackstore *st, struct stacksym *sym,
		   struct wakeups *c, const __u64 losses[LOSS_KINDS])
{
	__u32 ctx_src = skel->bss->ctx_source;
	struct folded *fo = NULL;
	bool in_signals = false;
	struct emit o;
	struct json j;

	resolve_all(sym, st, c);
	if (diff)
		diff_add_all(c);
	if (pprof_out)
		pprof_report(c);
	if (svg_out)
		svg_report(sym, c);
	/* --pprof -: stdout is the profile's alone */
	if (pprof_out == stdout) {
		folddiff_free(diff);
		diff = NULL;
		return;
	}
	if (env.c.folded) {
		fo = folded_new();
	} else if (env.c.json) {
		envelope_begin(&j);
		envelope_duration(&j);
		json_key(&j, "wakeups");
		json_arr_begin(&j);
	}
	o = env.c.json ? emit_to_json(&j) : emit_to_text(stdout);
	for (size_t i = 0; i < c->n; i++) {
		const struct entry *e = &c->e[i];
		struct frames *f = e->f;

		if (fo) {
			folded_entry(fo, f, e);
			continue;
		}
		if (e->key.type == WK_SIGNAL && !in_signals) {
			emit_arr_end(&o);
			emit_arr_begin(&o, "signals");
			emit_text(&o, "Signals sent to the traced threads:\n\n");
			in_signals = true;
		}
		print_one(&o, f, e);
		if (ferror(stdout))
			break;
	}
	if (fo) {
		folded_print(fo, stdout);
		folded_free(fo);
	} else if (env.c.json) {
		if (!in_signals) {
			json_arr_end(&j);
			json_key(&j, "signals");
			json_arr_begin(&j);
		}
		json_tail(&j, c, sym, losses, ctx_src);
	} else {
		printf("%llu wakeups and %llu signals of the traced threads.\n",
		       (unsigned long long)c->wakeups, (unsigned long long)c->signals);
		if (c->latency.count) {
			printf("Wakeup latency (from the wakeup until the woken thread ran)");
			if (c->latency.count < c->wakeups)
				printf(", of %llu wakeups: the other %llu have none (their thread "
				       "had not run when tracing stopped, or it ran unseen: "
				       "see the losses on stderr)",
				       (unsigned long long)c->latency.count,
				       (unsigned long long)(c->wakeups - c->latency.count));
			printf(":\n");
			hist_print(stdout, &c->latency, "    ");
			if (c->latency.slots[0])
				printf("    (0ns: %llu wakeup%s of a thread that had not left its "
				       "CPU yet: no wait)\n",
				       (unsigned long long)c->latency.slots[0],
				       c->latency.slots[0] == 1 ? "" : "s");
		}
		if (diff)
			folddiff_print(diff, stdout, env.s.diff, diff_unit(), FOLDDIFF_TOP);
	}
	folddiff_free(diff);
	diff = NULL;
	if (verbose)
		msg_warn("interrupt context read from %s", irqctx_source_name(ctx_src));
}

/* ---- events ---- */

/* A process whose user stacks were recorded: what names its frames, and
 * with --dwarf its modules, read while it lives */
static int on_announce(void *sym, void *data, size_t size)
{
	const struct announce_event *a = data;

	if (tool.dw && size >= sizeof(*a) && a->type == ANNOUNCE_EV_NEW_PROCESS)
		dwunw_cache_pid(tool.dw, a->tgid);
	return stacksym_on_announce(sym, data, size);
}

static const char *const loss_hints[LOSS_KINDS] = {
	STACK_LOSS_HINTS,
	[LOSS_START_FULL] = "raise --max-entries (blocked time and latency of some wakeups missed)",
	[LOSS_HIST_FULL] = "raise --max-entries",
	[LOSS_NOMEM] = "latency samples lost",
	[LOSS_RINGBUF] = STACK_HINT_DWARF_RINGBUF,
};

/* ---- the lifecycle's hooks ---- */

LIFECYCLE_TOOL(wakers, .what = "wakeups", .loss_hints = loss_hints,
	       .attach_what = "attaching to sched_waking, sched_switch and signal_generate");

int wakers_configure(struct lifecycle *lc)
{
	struct wakers_bpf *skel = lc->skel;

	skel->rodata->want_signals = !env.no_signals;
	skel->rodata->dwarf_mode = env.s.dwarf;
	skel->rodata->ustack_copy_size = env.s.stack_copy;
	/* tests: switch-ins the kernel does not report (bpf/schedinfo.bpf.h) */
	skel->rodata->hide_switch_in_every = testenv_hide_switch_in();
	lifecycle_size_stacks(lc, &env.s);
	if (!getenv("SUITE_WAKERS_IRQ_EVENTS"))
		skel->rodata->pc_by_rq = irqctx_percpu_layout(&skel->rodata->pc_from_rq,
							      &skel->rodata->cpu_from_rq);
	map_resize_opt(skel->maps.agg_a, env.s.max_entries, "--max-entries", env.s.max_entries);
	map_resize_opt(skel->maps.agg_b, env.s.max_entries, "--max-entries", env.s.max_entries);
	map_resize_opt(skel->maps.latency_a, env.s.max_entries, "--max-entries", env.s.max_entries);
	map_resize_opt(skel->maps.latency_b, env.s.max_entries, "--max-entries", env.s.max_entries);
	map_resize_opt(skel->maps.tstates, env.s.max_entries, "--max-entries", env.s.max_entries);
	if (env.no_signals) {
		bpf_program__set_autoload(skel->progs.signal_generate_btf, false);
		bpf_program__set_autoload(skel->progs.signal_generate_raw, false);
	}
	return 0;
}

/* Two drains of one key's latency: slots added, max and min kept */
static void latency_combine(void *dst, const void *src)
{
	hist_merge(dst, src);
}

int wakers_setup(struct lifecycle *lc)
{
	struct wakers_bpf *skel = lc->skel;
	int err = lifecycle_agg(lc, &skel->bss->agg_slot);

	if (err)
		return err;
	tool.agg = agg_add(lc->agg, skel->maps.agg_a, skel->maps.agg_b, NULL);
	tool.latency = agg_add(lc->agg, skel->maps.latency_a, skel->maps.latency_b,
			       latency_combine);
	/* the targets' own threads are the likeliest wakers */
	tool.sym = stacksym_for(&env.s);
	stacksym_set_dwarf_hint(tool.sym, !env.s.dwarf);
	stacksym_want_kernel(tool.sym);
	stacksym_cache_targets(tool.sym, &env.c);
	if (env.s.dwarf) {
		tool.dw = dwunw_new();
		tool.dw_recs = hashmap_new(sizeof(struct wakers_key), sizeof(struct dw_rec));
		tool.dw_woken = hashmap_new(sizeof(__u32), sizeof(struct dw_woken));
		dwunw_cache_targets(tool.dw, &env.c);
	}
	return lifecycle_stack_rings(lc, env.s.dwarf, on_announce, tool.sym,
				     on_dwarf_event, NULL);
}

int wakers_collect(struct lifecycle *lc)
{
	collect(tool.agg, tool.latency, &tool.c);
	return 0;
}

void wakers_report(struct lifecycle *lc)
{
	report(lc->skel, lc->stacks, tool.sym, &tool.c, lc->losses);
}

int wakers_finish(struct lifecycle *lc)
{
	char who[420];

	stacksym_report(tool.sym);
	stackstore_report(lc->stacks);
	if (verbose)
		msg_warn("aggregation maps drained %llu times", (unsigned long long)agg_drains(lc->agg));
	if (tool.dw)
		dwunw_report(tool.dw);
	common_opts_target(&env.c, who, sizeof(who));
	if (!tool.c.n)
		msg_warn("no wakeup or signal of %s was seen", who);
	return lifecycle_check_exit(lc, tool.c.n);
}

void wakers_cleanup(struct lifecycle *lc)
{
	stacksym_free(tool.sym);
	collected_free(&tool.c);
	dwunw_free(tool.dw);
	hashmap_free(tool.dw_recs);
	hashmap_free(tool.dw_woken);
}

int main(int argc, char **argv)
{
	static const struct argp argp = { options, parse_arg, NULL, doc, NULL, NULL, NULL };

	lifecycle_options("wakers", &argp, argc, argv, &env.c);
	if (env.time && !env.c.folded && !env.s.pprof && !env.s.svg && !env.s.diff)
		die_usage("--time goes with -f/--folded, --pprof, --svg or --diff");
	stack_opts_finish(&env.s);
	if (env.s.pprof)
		pprof_out = pprof_open(env.s.pprof, &env.c);
	if (env.s.svg)
		svg_out = flamesvg_open(env.s.svg);
	diff = folddiff_for(env.s.diff, env.c.folded);
	return lifecycle_run(&wakers_ops, &env.c, &tool);
}
