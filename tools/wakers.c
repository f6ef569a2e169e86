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

#include "common.h"
#include "mapmem.h"
#include "opts.h"
#include "run.h"
#include "json.h"
#include "histogram.h"
#include "stacks.h"
#include "escape.h"
#include "bpfutil.h"
#include "silence.h"	/* silence_softirq_name() */
#include "announce.h"
#include "dwarf.h"
#include "kmap.h"
#include "preempt.h"
#include "hist.bpf.h"	/* hist_add_local(), for --dwarf records */
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
"\n"
"EXAMPLES:\n"
"    wakers -p 185              # who wakes process 185, until Ctrl-C\n"
"    wakers -t 188 -d 10        # who wakes thread 188, for 10 seconds\n"
"    wakers -d 5                # every wakeup on the machine, for 5 seconds\n"
"    wakers -p 185 -f -d 10 > wakers.folded   # for flamegraph.pl\n"
"    wakers -p 185 -f --time -d 10   # weighted by time blocked (us)\n"
"    wakers -t 188 -j -d 5      # JSON\n"
"    wakers -t 188 --check -d 5 # exit 1 if thread 188 was woken at all\n"
"    wakers --dwarf -p 185 -f -d 5   # whole stacks, no frame pointers\n";

static const struct argp_option options[] = {
	OPTS_PID,
	OPTS_TID,
	OPTS_CPU("Count only wakeups and signals sent from these CPUs"),
	OPTS_DURATION,
	OPTS_FOLDED,
	{ "time", OPT_TIME, NULL, 0, "With -f: the value is the microseconds the woken "
	  "thread had been blocked, not the number of wakeups", 0 },
	OPTS_JSON,
	OPTS_CHECK("Exit 1 if a traced thread was woken or signalled at all"),
	{ "no-signals", OPT_NO_SIGNALS, NULL, 0, "Do not trace signal_generate", 0 },
	{ "stack-storage-size", OPT_STACK_STORAGE, "N", 0, "Room for N unique stacks (default 16384)", 0 },
	{ "max-entries", OPT_MAX_ENTRIES, "N", 0, "Room for N (waker, stacks, target) "
	  "records and N traced threads (default 10240)", 0 },
	{ "dwarf", OPT_DWARF, NULL, 0, "Unwind the wakers' user stacks with DWARF (.eh_frame) in user "
	  "space: whole stacks through code built without frame pointers (costlier)", 0 },
	{ "stack-copy-size", OPT_STACK_COPY, "BYTES", 0, "--dwarf: bytes of user stack copied per "
	  "wakeup (default 8192, max 32768)", 0 },
	OPTS_VERBOSE,
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
		if (stack_parse_opt(key, arg, &env.s) != ARGP_ERR_UNKNOWN)
			break;
		return common_parse_opt(key, arg, state, &env.c);
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
	const char *u[MAX_STACK_DEPTH + 1], *k[MAX_STACK_DEPTH + 1];
	int un, kn;
	char label[160];	/* interrupt context: "[softirq NET_RX]" */
	char sub[128];		/* its name alone: "NET_RX", or "" */
};

struct entry {
	struct wakers_key key;
	struct wakers_val val;
	struct hist latency;
	struct frames *f;	/* resolved, see resolve_all() */
	bool dwarf;		/* key.ustack is a dwunw stack id */
};

struct collected {
	struct entry *e;
	size_t n, cap;
	__u64 wakeups, signals;
	struct hist latency;	/* every wakeup, merged */
};

/* --dwarf: the records that came with a user-stack sample, aggregated
 * here by key (key.ustack: the unwound stack's id, or WK_USTACK_LOST) */
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

static struct dwunw *dw;
static struct kmap *dw_recs, *dw_woken;

static int on_dwarf_event(void *vctx, void *data, size_t size)
{
	__u32 type = size >= sizeof(__u32) ? *(__u32 *)data : 0;

	if (type == USTACK_EV_SAMPLE && size >= offsetof(struct ustack_sample, stack)) {
		dwunw_add_sample(dw, data);
	} else if (type == WK_EV_RECORD && size >= sizeof(struct wakers_record)) {
		const struct wakers_record *r = data;
		struct wakers_key key = r->key;
		int id = dwunw_take(dw, r->seq);
		struct dw_rec *d;

		key.ustack = id >= 0 ? id : WK_USTACK_LOST;
		d = kmap_get(dw_recs, &key, NULL);
		d->dwarf = id >= 0;
		d->val.count++;
		if (r->blocked_known) {
			d->val.blocked_ns += r->blocked_ns;
			d->val.blocked_known++;
		}
		if (key.type == WK_WAKEUP) {
			struct dw_woken *w = kmap_get(dw_woken, &key.target_tid, NULL);

			w->seq = r->seq;
			w->key = key;
		}
	} else if (type == WK_EV_LATENCY && size >= sizeof(struct wakers_latency)) {
		const struct wakers_latency *l = data;
		struct dw_woken *w = kmap_find(dw_woken, &l->tid);
		struct dw_rec *d;

		if (w && w->seq == l->seq && (d = kmap_find(dw_recs, &w->key))) {
			hist_add_local(&d->latency, l->latency_ns);
			w->seq = 0;
		}
	}
	return 0;
}

static int entry_add(struct collected *c, const struct wakers_key *k,
		     const struct wakers_val *v, const struct hist *lat, bool dwarf)
{
	struct entry *e;

	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		struct entry *p = realloc(c->e, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		c->e = p;
		c->cap = cap;
	}
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
	return 0;
}

static void collect_dwarf_one(const void *key, void *val, void *arg)
{
	struct collected *c = arg;
	const struct dw_rec *d = val;

	if (entry_add(c, key, &d->val, &d->latency, d->dwarf)) {
		msg_warn("out of memory");
		exit(EXIT_UNSUPPORTED);
	}
}

static int collect(int fd, int lat_fd, struct collected *c)
{
	struct wakers_key k, next, *prev = NULL;
	int err;

	while (!(err = bpf_map_get_next_key(fd, prev, &next))) {
		if (c->n == c->cap) {
			size_t cap = c->cap ? c->cap * 2 : 64;
			struct entry *p = realloc(c->e, cap * sizeof(*p));

			if (!p)
				return -ENOMEM;
			c->e = p;
			c->cap = cap;
		}
		if (!bpf_map_lookup_elem(fd, &next, &c->e[c->n].val)) {
			struct entry *e = &c->e[c->n++];

			e->key = next;
			e->f = NULL;
			e->dwarf = false;
			if (bpf_map_lookup_elem(lat_fd, &next, &e->latency))
				memset(&e->latency, 0, sizeof(e->latency));
			if (next.type == WK_WAKEUP) {
				c->wakeups += e->val.count;
				hist_merge(&c->latency, &e->latency);
			} else {
				c->signals += e->val.count;
			}
		}
		k = next;
		prev = &k;
	}
	if (dw_recs && err == -ENOENT)
		kmap_each(dw_recs, collect_dwarf_one, c);
	return err == -ENOENT ? 0 : err;
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

static void resolve(struct stacksym *sym, int stacks_fd, const struct wakers_key *key,
		    bool dwarf, struct frames *f)
{
	__u64 ips[MAX_STACK_DEPTH];
	int cut = 0;

	f->un = f->kn = 0;
	f->label[0] = f->sub[0] = 0;
	/* -1: not taken (kernel thread, interrupt); other negatives: lost */
	if (key->kstack >= 0 && !bpf_map_lookup_elem(stacks_fd, &key->kstack, ips))
		f->kn = stacksym_kernel(sym, ips, MAX_STACK_DEPTH, f->k);
	else if (key->kstack != -1)
		f->k[f->kn++] = FRAME_KERNEL_LOST;
	if (dwarf) {
		enum dwunw_end end;
		int n;
		const __u64 *dips = dwunw_stack(dw, key->ustack, &n, &end);
		const char *mark = dwunw_end_frame(end);

		/* a stack cut short says so at its root end */
		if (mark)
			f->u[f->un++] = mark;
		if (n > MAX_STACK_DEPTH)
			n = MAX_STACK_DEPTH;
		f->un += stacksym_user_image(sym, key->waker_pid, key->waker_exec_id,
					     dips, n, f->u + f->un);
	} else if (key->ustack >= 0 && !bpf_map_lookup_elem(stacks_fd, &key->ustack, ips))
		f->un = stacksym_user_image(sym, key->waker_pid, key->waker_exec_id,
					    ips, MAX_STACK_DEPTH, f->u);
	else if (key->ustack != -1)
		f->u[f->un++] = FRAME_USER_LOST;
	if (key->ctx == WK_CTX_TASK)
		return;

	/* An interrupt's frames below its entry (asm_*) belong to whatever
	 * it interrupted: they are dropped, so that nothing is blamed on it
	 * and identical interrupt paths merge. */
	for (int i = f->kn - 1; i >= 0; i--) {
		if (!strncmp(f->k[i], "asm_", 4)) {
			cut = i;
			break;
		}
	}
	if (cut) {
		memmove(f->k, f->k + cut, (f->kn - cut) * sizeof(f->k[0]));
		f->kn -= cut;
	}
	if (key->ctx == WK_CTX_HARDIRQ)
		hardirq_name(key->irq, f->k, f->kn, f->sub, sizeof(f->sub));
	else if (key->ctx == WK_CTX_SOFTIRQ && key->irq >= 0)
		snprintf(f->sub, sizeof(f->sub), "%s", silence_softirq_name(key->irq));
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

	kx.kstack = kx.ustack = ky.kstack = ky.ustack = 0;
	r = memcmp(&kx, &ky, sizeof(kx));
	if (r)
		return r;
	if (x->f->kn != y->f->kn)
		return x->f->kn < y->f->kn ? -1 : 1;
	if (x->f->un != y->f->un)
		return x->f->un < y->f->un ? -1 : 1;
	/* frame names are interned: equal names are equal pointers */
	r = memcmp(x->f->k, y->f->k, x->f->kn * sizeof(x->f->k[0]));
	if (!r)
		r = memcmp(x->f->u, y->f->u, x->f->un * sizeof(x->f->u[0]));
	return r;
}

/* Resolve every entry's frames, then merge the identical ones */
static void resolve_all(struct stacksym *sym, int stacks_fd, struct collected *c)
{
	size_t out = 0;

	for (size_t i = 0; i < c->n; i++) {
		c->e[i].f = malloc(sizeof(struct frames));
		if (!c->e[i].f) {
			msg_warn("out of memory");
			exit(EXIT_UNSUPPORTED);
		}
		resolve(sym, stacks_fd, &c->e[i].key, c->e[i].dwarf, c->e[i].f);
	}
	qsort(c->e, c->n, sizeof(*c->e), ident_cmp);
	for (size_t i = 0; i < c->n; i++) {
		struct entry *d = &c->e[out - (out ? 1 : 0)];

		if (out && !ident_cmp(d, &c->e[i])) {
			d->val.count += c->e[i].val.count;
			d->val.blocked_ns += c->e[i].val.blocked_ns;
			d->val.blocked_known += c->e[i].val.blocked_known;
			hist_merge(&d->latency, &c->e[i].latency);
			free(c->e[i].f);
			continue;
		}
		c->e[out++] = c->e[i];
	}
	c->n = out;
	qsort(c->e, c->n, sizeof(*c->e), entry_cmp);
}

static void collected_free(struct collected *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->e[i].f);
	free(c->e);
}

static void print_waker(const char *role, const struct wakers_key *k,
			const struct frames *f)
{
	if (k->ctx == WK_CTX_TASK)
		printf("    -                %s %s (%u/%u)\n", role, ESC(k->waker_comm),
		       k->waker_pid, k->waker_tid);
	else
		printf("    -                %s %s\n", role, ESC(f->label));
}

static void print_plain(const struct frames *f, const struct entry *e)
{
	const struct wakers_key *k = &e->key;
	char a[32], b[32], c[32], sig[32];

	stack_print_frames(stdout, "    ", f->k, f->kn);
	if (f->un)
		printf("    --\n");
	stack_print_frames(stdout, "    ", f->u, f->un);
	if (k->type == WK_SIGNAL) {
		signal_name(k->sig, sig, sizeof(sig));
		print_waker("sender", k, f);
		printf("    -                %s (%d) to %s (%u/%u)%s\n", sig, k->sig,
		       ESC(k->target_comm), k->target_pid, k->target_tid,
		       k->sig_group ? ", process-wide" : "");
		printf("        %llu signal%s, %s\n\n", (unsigned long long)e->val.count,
		       e->val.count == 1 ? "" : "s",
		       (size_t)k->sig_result < ARRAY_SIZE(sig_results) ?
		       sig_results[k->sig_result] : "unknown result");
		return;
	}
	print_waker("waker", k, f);
	printf("    -                woke %s (%u/%u)\n", ESC(k->target_comm),
	       k->target_pid, k->target_tid);
	fmt_ns(a, sizeof(a), e->val.blocked_ns);
	printf("        %llu wakeup%s", (unsigned long long)e->val.count,
	       e->val.count == 1 ? "" : "s");
	if (e->val.blocked_known == e->val.count)
		printf(", after %s blocked in all\n", a);
	else if (e->val.blocked_known)
		printf(", %llu of them after %s blocked in all (the others had "
		       "blocked before tracing began)\n",
		       (unsigned long long)e->val.blocked_known, a);
	else
		printf(", ending sleeps that began before tracing did\n");
	if (e->latency.count) {
		fmt_ns(a, sizeof(a), hist_percentile(&e->latency, 0.50));
		fmt_ns(b, sizeof(b), hist_percentile(&e->latency, 0.99));
		fmt_ns(c, sizeof(c), e->latency.max);
		printf("        ran after: p50 %s  p99 %s  max %s\n", a, b, c);
	}
	printf("\n");
}

static void json_entry(struct json *j, const struct frames *f, const struct entry *e)
{
	const struct wakers_key *k = &e->key;
	const struct hist *h = &e->latency;
	char sig[32];

	json_obj_begin(j);
	json_key(j, k->type == WK_SIGNAL ? "sender" : "waker");
	json_obj_begin(j);
	json_kv_str(j, "context", irqctx_name(k->ctx));
	json_kv_str(j, "comm", k->ctx == WK_CTX_TASK ? k->waker_comm : f->label);
	json_kv_u64(j, "pid", k->waker_pid);
	json_kv_u64(j, "tid", k->waker_tid);
	json_kv_i64(j, "irq", k->ctx == WK_CTX_TASK ? -1 : k->irq);
	json_key(j, "irq_name");
	if (f->sub[0])
		json_str(j, f->sub);
	else
		json_null(j);
	json_obj_end(j);
	json_key(j, "target");
	json_obj_begin(j);
	json_kv_str(j, "comm", k->target_comm);
	json_kv_u64(j, "pid", k->target_pid);
	json_kv_u64(j, "tid", k->target_tid);
	json_obj_end(j);
	json_kv_u64(j, "count", e->val.count);
	if (k->type == WK_SIGNAL) {
		signal_name(k->sig, sig, sizeof(sig));
		json_kv_i64(j, "signal", k->sig);
		json_kv_str(j, "name", sig);
		json_kv_str(j, "result", (size_t)k->sig_result < ARRAY_SIZE(sig_results) ?
			    sig_results[k->sig_result] : "unknown");
		json_kv_bool(j, "group", k->sig_group);
	} else {
		json_kv_u64(j, "blocked_us", e->val.blocked_ns / 1000);
		json_kv_u64(j, "blocked_known", e->val.blocked_known);
		json_key(j, "latency");
		json_obj_begin(j);
		json_kv_u64(j, "count", h->count);
		json_kv_u64(j, "sum_ns", h->sum);
		json_kv_u64(j, "max_ns", h->max);
		hist_json_percentiles(j, h);
		json_obj_end(j);
	}
	json_kv_strs(j, "user_stack", f->u, f->un);
	json_kv_strs(j, "kernel_stack", f->k, f->kn);
	json_obj_end(j);
}

static void json_tail(struct json *j, const struct collected *c, struct stacksym *sym,
		      const __u64 losses[LOSS_KINDS], __u32 ctx_src)
{
	json_arr_end(j);
	json_key(j, "totals");
	json_obj_begin(j);
	json_kv_u64(j, "wakeups", c->wakeups);
	json_kv_u64(j, "signals", c->signals);
	json_obj_end(j);
	json_key(j, "latency");
	hist_json(j, &c->latency);
	json_kv_str(j, "context_source", irqctx_source_name(ctx_src));
	json_key(j, "losses");
	losses_json(j, losses);
	json_key(j, "frames");
	stacksym_json_stats(j, sym);
	json_obj_end(j);
	json_finish(j);
}

static void folded_entry(struct folded *fo, struct frames *f, const struct entry *e)
{
	__u64 v = env.time ? e->val.blocked_ns / 1000 : e->val.count;
	const char *u[1];
	char sub[140];

	if (e->key.type != WK_WAKEUP || !v)
		return;
	if (e->key.ctx == WK_CTX_TASK) {
		folded_add(fo, e->key.waker_comm, f->u, f->un, f->k, f->kn, v);
		return;
	}
	/* "[softirq];[NET_RX];kernel frames" */
	snprintf(sub, sizeof(sub), "[%s]", f->sub);
	u[0] = sub;
	folded_add(fo, irqctx_label(e->key.ctx), u, f->sub[0] ? 1 : 0, f->k, f->kn, v);
}

static void report(struct wakers_bpf *skel, struct stacksym *sym,
		   struct collected *c, const __u64 losses[LOSS_KINDS])
{
	int stacks_fd = bpf_map__fd(skel->maps.stacks);
	__u32 ctx_src = skel->bss->ctx_source;
	struct folded *fo = NULL;
	bool in_signals = false;
	struct json j;

	resolve_all(sym, stacks_fd, c);
	if (env.c.folded) {
		fo = folded_new();
	} else if (env.c.json) {
		json_init(&j, stdout);
		json_obj_begin(&j);
		json_kv_str(&j, "tool", "wakers");
		json_kv_str(&j, "version", SUITE_VERSION);
		json_kv_double(&j, "duration_s", (run_end_ns - run_start_ns) / 1e9);
		json_key(&j, "wakeups");
		json_arr_begin(&j);
	}
	for (size_t i = 0; i < c->n; i++) {
		const struct entry *e = &c->e[i];
		struct frames *f = e->f;

		if (fo) {
			folded_entry(fo, f, e);
			continue;
		}
		if (env.c.json) {
			if (e->key.type == WK_SIGNAL && !in_signals) {
				json_arr_end(&j);
				json_key(&j, "signals");
				json_arr_begin(&j);
				in_signals = true;
			}
			json_entry(&j, f, e);
		} else {
			if (e->key.type == WK_SIGNAL && !in_signals) {
				printf("Signals sent to the traced threads:\n\n");
				in_signals = true;
			}
			print_plain(f, e);
		}
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
			printf("Wakeup latency (from the wakeup until the woken thread ran):\n");
			hist_print(stdout, &c->latency, "    ");
		}
	}
	if (verbose)
		msg_warn("interrupt context read from %s", irqctx_source_name(ctx_src));
}

/* ---- events ---- */

/* A process whose user stacks were recorded: what names its frames, and
 * with --dwarf its modules, read while it lives */
static int on_announce(void *sym, void *data, size_t size)
{
	const struct announce_event *a = data;

	if (dw && size >= sizeof(*a) && a->type == ANNOUNCE_EV_NEW_PROCESS)
		dwunw_cache_pid(dw, a->tgid);
	return stacksym_on_announce(sym, data, size);
}

struct ctx {
	struct ring_buffer *rb;
	struct stacksym *sym;
};

static int poll_events(void *vctx, int timeout_ms)
{
	struct ctx *ctx = vctx;
	int err = ring_buffer__poll(ctx->rb, timeout_ms);

	return err < 0 ? err : 0;
}

static const char *const loss_hints[LOSS_KINDS] = {
	[LOSS_STACK_COLLISION] = "raise --stack-storage-size",
	[LOSS_STACK_FULL] = "raise --stack-storage-size",
	[LOSS_AGG_FULL] = "raise --max-entries",
	[LOSS_START_FULL] = "raise --max-entries (blocked time and latency of some wakeups missed)",
	[LOSS_HIST_FULL] = "raise --max-entries",
	[LOSS_NOMEM] = "latency samples lost",
	[LOSS_RINGBUF] = "--dwarf: lower --stack-copy-size",
	[LOSS_USTACK] = "shown as " FRAME_USER_LOST,
	[LOSS_KSTACK] = "shown as " FRAME_KERNEL_LOST,
};

int main(int argc, char **argv)
{
	static const struct argp argp = { options, parse_arg, NULL, doc, NULL, NULL, NULL };
	struct wakers_bpf *skel = NULL;
	struct ctx ctx = { 0 };
	struct collected c = { 0 };
	__u64 losses[LOSS_KINDS];
	enum run_end end;
	int err = 0;
	char who[420];

	suite_init("wakers");
	argp_parse(&argp, argc, argv, 0, NULL, NULL);
	common_opts_finish(&env.c);
	if (env.time && !env.c.folded)
		die_usage("--time goes with -f/--folded");
	stack_opts_finish(&env.s);
	bpf_env_check();
	run_install_signals();

	skel = wakers_bpf__open();
	if (!skel) {
		err = bpf_fail("opening the BPF object", errno);
		goto cleanup;
	}
	skel->rodata->want_signals = !env.no_signals;
	skel->rodata->dwarf_mode = env.s.dwarf;
	skel->rodata->ustack_copy_size = env.s.stack_copy;
	map_resize(skel->maps.ustack_rb, env.s.dwarf ? 32 << 20 : 4096);
	map_resize(skel->maps.ustack_scratch, env.s.dwarf ? ncpus_possible() : 1);
	if (!getenv("SUITE_WAKERS_IRQ_EVENTS"))
		skel->rodata->pc_by_rq = irqctx_percpu_layout(&skel->rodata->pc_from_rq,
							      &skel->rodata->cpu_from_rq);
	filter_configure(&skel->rodata->tfilter, skel->maps.target_tgids,
			 skel->maps.target_tids, skel->maps.target_cpus, &env.c);
	map_resize_opt(skel->maps.stacks, env.s.stack_storage, "--stack-storage-size", env.s.stack_storage);
	map_resize_opt(skel->maps.agg, env.s.max_entries, "--max-entries", env.s.max_entries);
	map_resize_opt(skel->maps.latency, env.s.max_entries, "--max-entries", env.s.max_entries);
	map_resize_opt(skel->maps.tstates, env.s.max_entries, "--max-entries", env.s.max_entries);
	if (env.no_signals) {
		bpf_program__set_autoload(skel->progs.signal_generate_btf, false);
		bpf_program__set_autoload(skel->progs.signal_generate_raw, false);
	}
	bpf_pick_tp_flavour(skel->obj);
	map_mem_check(skel->obj);

	err = wakers_bpf__load(skel);
	if (err) {
		err = bpf_fail("loading the BPF programs", err);
		goto cleanup;
	}
	err = filter_fill(skel->maps.target_tgids, skel->maps.target_tids,
			  skel->maps.target_cpus, &env.c);
	if (err) {
		err = bpf_fail("filling the target filter", err);
		goto cleanup;
	}
	ctx.sym = stacksym_new(false);
	/* the targets' own threads are the likeliest wakers */
	stacksym_cache_targets(ctx.sym, &env.c);
	ctx.rb = ring_buffer__new(bpf_map__fd(skel->maps.announce_rb), on_announce,
				  ctx.sym, NULL);
	if (!ctx.rb) {
		err = bpf_fail("creating the ring buffer", errno);
		goto cleanup;
	}
	if (env.s.dwarf) {
		dw = dwunw_new();
		dw_recs = kmap_new(sizeof(struct wakers_key), sizeof(struct dw_rec));
		dw_woken = kmap_new(sizeof(__u32), sizeof(struct dw_woken));
		/* the targets' own threads are the likeliest wakers */
		dwunw_cache_targets(dw, &env.c);
		err = ring_buffer__add(ctx.rb, bpf_map__fd(skel->maps.ustack_rb), on_dwarf_event, NULL);
		if (err) {
			err = bpf_fail("adding the stack-sample ring buffer", err);
			goto cleanup;
		}
	}
	err = wakers_bpf__attach(skel);
	if (err) {
		err = bpf_fail("attaching to sched_waking, sched_switch and signal_generate", err);
		goto cleanup;
	}

	common_opts_target(&env.c, who, sizeof(who));
	run_say_tracing("wakeups", &env.c);

	end = run_loop(&(struct run_opts){
		.duration = env.c.duration,
		.pids = &env.c.pids,
		.tids = &env.c.tids,
		.poll = poll_events,
		.ctx = &ctx,
	});
	/* stop recording before reading, so the report is one instant */
	wakers_bpf__detach(skel);
	ring_buffer__consume(ctx.rb);
	run_report_end(end);

	err = collect(bpf_map__fd(skel->maps.agg), bpf_map__fd(skel->maps.latency), &c);
	if (err) {
		msg_warn("reading the maps failed: %s", strerror(-err));
		err = EXIT_UNSUPPORTED;
		goto cleanup;
	}
	losses_read(skel->maps.losses, losses);
	report(skel, ctx.sym, &c, losses);
	fflush(stdout);
	losses_report(losses, loss_hints);
	stacksym_report(ctx.sym);
	if (dw)
		dwunw_report(dw);
	if (!c.n)
		msg_warn("no wakeup or signal of %s was seen", who);
	err = (env.c.check && c.n) ? EXIT_FOUND : EXIT_REPORTED;

cleanup:
	ring_buffer__free(ctx.rb);
	wakers_bpf__destroy(skel);
	stacksym_free(ctx.sym);
	collected_free(&c);
	dwunw_free(dw);
	kmap_free(dw_recs);
	kmap_free(dw_woken);
	return err;
}
