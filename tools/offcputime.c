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

#include "common.h"
#include "mapmem.h"
#include "opts.h"
#include "run.h"
#include "json.h"
#include "stacks.h"
#include "escape.h"
#include "bpfutil.h"
#include "dwarf.h"
#include "offcputime.h"
#include "offcputime.skel.h"

static struct env {
	struct common_opts c;
	bool user_only, kernel_only;
	bool all_states;
	__u32 state_mask;
	bool runnable;
	__u64 min_us, max_us;
	struct stack_opts s;	/* sizes, --lines, --dwarf */
} env = {
	.all_states = true,
	.min_us = 1,
	.max_us = ~0ULL / 1000,
	.s = { .stack_storage = 16384, .max_entries = 32768, .stack_copy = 8192 },
};

enum {
	OPT_STATE = OPT_TOOL_BASE,
};

static const char doc[] =
"Summarize off-CPU time by thread, user stack and kernel stack.\n"
"\n"
"USAGE: offcputime [-p PID | -t TID] [-u | -k] [-m MIN_US] [-M MAX_US]\n"
"                  [--state MASK] [-f | -j] [-d SECS | duration]\n"
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
"    offcputime --dwarf -p 185  # whole user stacks without frame pointers\n";

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
	{ "stack-storage-size", OPT_STACK_STORAGE, "N", 0, "Room for N unique stacks (default 16384)", 0 },
	{ "max-entries", OPT_MAX_ENTRIES, "N", 0, "Room for N (thread, stack) entries and N threads off-CPU at once (default 32768)", 0 },
	{ "lines", OPT_LINES, NULL, 0, "Show file:line of user frames where debug info exists (slower)", 0 },
	{ "dwarf", OPT_DWARF, NULL, 0, "Unwind user stacks with DWARF (.eh_frame) in user space: whole stacks "
	  "for code built without frame pointers (costlier)", 0 },
	{ "stack-copy-size", OPT_STACK_COPY, "BYTES", 0, "--dwarf: bytes of user stack copied per sample (default 8192, max 32768)", 0 },
	OPTS_VERBOSE,
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
	case ARGP_KEY_ARG:
		if (state->arg_num > 0)
			die_usage("unexpected argument '%s'", arg);
		if (env.c.duration)
			die_usage("duration given twice (-d and '%s')", arg);
		env.c.duration = opt_seconds("duration", arg);
		break;
	default:
		if (stack_parse_opt(key, arg, &env.s) != ARGP_ERR_UNKNOWN)
			break;
		return common_parse_opt(key, arg, state, &env.c);
	}
	return 0;
}

/* ---- collection ---- */

struct entry {
	struct offcpu_key key;
	__u64 total_ns;
	__u64 count;
	/* --dwarf: the unwound user stack (leaf first), owned by dw_agg */
	bool dwarf;		/* key.ustack is a dwunw stack id */
};

struct collected {
	struct entry *e;
	size_t n, cap;
	size_t still_blocked;
	/* --dwarf: key -> index in e, while intervals arrive */
	ssize_t *idx;
	size_t idx_cap;
};

static struct dwunw *dw;	/* --dwarf only */

static void collect_add(struct collected *c, const struct offcpu_key *k,
			__u64 ns, __u64 count)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 1024;
		struct entry *p = realloc(c->e, cap * sizeof(*p));

		if (!p) {
			msg_warn("out of memory");
			exit(EXIT_UNSUPPORTED);
		}
		c->e = p;
		c->cap = cap;
	}
	memset(&c->e[c->n], 0, sizeof(c->e[c->n]));
	c->e[c->n].key = *k;
	c->e[c->n].total_ns = ns;
	c->e[c->n].count = count;
	c->n++;
}

static __u64 key_hash(const struct offcpu_key *k)
{
	const unsigned char *b = (const void *)k;
	__u64 h = 1469598103934665603ULL;

	for (size_t i = 0; i < sizeof(*k); i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

/* --dwarf: one closed interval with its unwound stack (id < 0: lost) */
static void dwarf_add(struct collected *c, struct offcpu_key key, int id, __u64 ns)
{
	size_t i;

	key.ustack = id >= 0 ? id : OFFCPU_USTACK_LOST;
	if (2 * (c->n + 1) > c->idx_cap) {
		size_t cap = c->idx_cap ? c->idx_cap * 2 : 4096;
		ssize_t *idx = malloc(cap * sizeof(*idx));

		if (!idx) {
			msg_warn("out of memory");
			exit(EXIT_UNSUPPORTED);
		}
		memset(idx, -1, cap * sizeof(*idx));
		for (size_t k = 0; k < c->n; k++) {
			if (!c->e[k].dwarf && c->e[k].key.ustack != OFFCPU_USTACK_LOST)
				continue;
			for (i = key_hash(&c->e[k].key) & (cap - 1); idx[i] >= 0; i = (i + 1) & (cap - 1))
				;
			idx[i] = k;
		}
		free(c->idx);
		c->idx = idx;
		c->idx_cap = cap;
	}
	for (i = key_hash(&key) & (c->idx_cap - 1); c->idx[i] >= 0; i = (i + 1) & (c->idx_cap - 1)) {
		struct entry *e = &c->e[c->idx[i]];

		if (!memcmp(&e->key, &key, sizeof(key))) {
			e->total_ns += ns;
			e->count++;
			return;
		}
	}
	c->idx[i] = c->n;
	collect_add(c, &key, ns, 1);
	c->e[c->n - 1].dwarf = id >= 0;
}

static int collect_counts(int fd, struct collected *c)
{
	struct offcpu_key k, next, *prev = NULL;
	struct offcpu_val v;
	int err;

	while (!(err = bpf_map_get_next_key(fd, prev, &next))) {
		if (!bpf_map_lookup_elem(fd, &next, &v))
			collect_add(c, &next, v.total_ns, v.count);
		k = next;
		prev = &k;
	}
	return err == -ENOENT ? 0 : err;
}

/* Threads still off-CPU at the stop time count up to it */
static int collect_in_flight(int fd, struct collected *c, __u64 stop_ns)
{
	__u32 k, next, *prev = NULL;
	struct offcpu_start s;
	int err;

	while (!(err = bpf_map_get_next_key(fd, prev, &next))) {
		if (!bpf_map_lookup_elem(fd, &next, &s) && stop_ns > s.ts &&
		    pid_alive(next)) {
			__u64 d = stop_ns - s.ts;

			if (d >= env.min_us * 1000 && d <= env.max_us * 1000) {
				if (s.seq)
					dwarf_add(c, s.key, dwunw_peek(dw, s.seq), d);
				else
					collect_add(c, &s.key, d, 1);
				c->still_blocked++;
			}
		}
		k = next;
		prev = &k;
	}
	return err == -ENOENT ? 0 : err;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	return memcmp(&x->key, &y->key, sizeof(x->key));
}

/* ---- output ---- */

struct frames {
	const char *u[MAX_STACK_DEPTH + 2], *k[MAX_STACK_DEPTH + 1];
	int un, kn;
	bool ulost, klost;
};

static void resolve(struct stacksym *sym, int stacks_fd, const struct offcpu_key *key,
		    bool dwarf, struct frames *f)
{
	__u64 ips[MAX_STACK_DEPTH];

	f->un = f->kn = 0;
	f->ulost = f->klost = false;
	/* -1: not taken (kernel thread, -u/-k); other negatives: lost */
	if (key->kstack >= 0 && !bpf_map_lookup_elem(stacks_fd, &key->kstack, ips))
		f->kn = stacksym_kernel(sym, ips, MAX_STACK_DEPTH, f->k);
	else
		f->klost = key->kstack != -1;
	if (dwarf) {
		enum dwunw_end end;
		int n;
		const __u64 *dips = dwunw_stack(dw, key->ustack, &n, &end);
		const char *mark = dwunw_end_frame(end);

		/* a stack cut short says so at its root end */
		if (mark)
			f->u[f->un++] = mark;
		f->un += stacksym_user_image(sym, key->tgid, key->exec_id, dips, n,
					     f->u + f->un);
	} else if (key->ustack >= 0 && !bpf_map_lookup_elem(stacks_fd, &key->ustack, ips)) {
		f->un = stacksym_user_image(sym, key->tgid, key->exec_id, ips,
					    MAX_STACK_DEPTH, f->u);
	} else {
		f->ulost = key->ustack != -1;
	}
	if (f->ulost)
		f->u[f->un++] = FRAME_USER_LOST;
	if (f->klost)
		f->k[f->kn++] = FRAME_KERNEL_LOST;
}

static void print_plain(const struct frames *f, const struct entry *e)
{
	stack_print_frames(stdout, "    ", f->k, f->kn);
	if (f->un)
		printf("    --\n");
	stack_print_frames(stdout, "    ", f->u, f->un);
	printf("    -                %s (%u/%u)\n", ESC(e->key.comm), e->key.tgid,
	       e->key.tid);
	printf("        %llu us in %llu interval%s\n\n",
	       (unsigned long long)(e->total_ns / 1000),
	       (unsigned long long)e->count, e->count == 1 ? "" : "s");
}

static void print_json_entry(struct json *j, const struct frames *f,
			     const struct entry *e)
{
	json_obj_begin(j);
	json_kv_str(j, "comm", e->key.comm);
	json_kv_u64(j, "pid", e->key.tgid);
	json_kv_u64(j, "tid", e->key.tid);
	json_kv_u64(j, "total_us", e->total_ns / 1000);
	json_kv_u64(j, "count", e->count);
	json_kv_strs(j, "user_stack", f->u, f->un);
	json_kv_strs(j, "kernel_stack", f->k, f->kn);
	json_obj_end(j);
}

static void report(struct offcputime_bpf *skel, struct stacksym *sym,
		   struct collected *c, const __u64 losses[LOSS_KINDS])
{
	int stacks_fd = bpf_map__fd(skel->maps.stacks);
	struct folded *fo = NULL;
	struct frames *f = calloc(1, sizeof(*f));
	struct json j;

	if (!f) {
		msg_warn("out of memory");
		return;
	}
	qsort(c->e, c->n, sizeof(*c->e), entry_cmp);
	if (env.c.folded) {
		fo = folded_new();
	} else if (env.c.json) {
		json_init(&j, stdout);
		json_obj_begin(&j);
		json_kv_str(&j, "tool", "offcputime");
		json_kv_str(&j, "version", SUITE_VERSION);
		json_kv_double(&j, "duration_s", (run_end_ns - run_start_ns) / 1e9);
		json_kv_str(&j, "unit", "us");
		json_key(&j, "stacks");
		json_arr_begin(&j);
	}
	for (size_t i = 0; i < c->n; i++) {
		const struct entry *e = &c->e[i];

		resolve(sym, stacks_fd, &e->key, e->dwarf, f);
		if (fo) {
			/* flamegraph widths are whole microseconds */
			if (e->total_ns >= 1000)
				folded_add(fo, e->key.comm, f->u, f->un, f->k, f->kn,
					   e->total_ns / 1000);
		} else if (env.c.json) {
			print_json_entry(&j, f, e);
		} else {
			print_plain(f, e);
		}
		if (ferror(stdout))
			break;
	}
	if (fo) {
		folded_print(fo, stdout);
		folded_free(fo);
	} else if (env.c.json) {
		json_arr_end(&j);
		json_kv_u64(&j, "still_blocked", c->still_blocked);
		json_key(&j, "losses");
		losses_json(&j, losses);
		json_key(&j, "frames");
		stacksym_json_stats(&j, sym);
		json_obj_end(&j);
		json_finish(&j);
	}
	free(f);
}

/* ---- events ---- */

struct dctx {
	struct collected *c;
};

static int on_dwarf_event(void *vctx, void *data, size_t size)
{
	struct dctx *ctx = vctx;
	__u32 type = size >= sizeof(__u32) ? *(__u32 *)data : 0;

	if (type == USTACK_EV_SAMPLE && size >= offsetof(struct ustack_sample, stack)) {
		dwunw_add_sample(dw, data);
	} else if (type == OFFCPU_EV_INTERVAL && size >= sizeof(struct offcpu_interval)) {
		const struct offcpu_interval *ev = data;
		int id = dwunw_take(dw, ev->seq);

		if (ev->in_range)
			dwarf_add(ctx->c, ev->key, id, ev->delta_ns);
	}
	return 0;
}

/* --check: "1234567 us off-CPU in 12 intervals by pid 42 in 5 s", on
 * stdout after the plain report (the other tools' verdict line), on
 * stderr with -f or -j, whose stdout is the document alone */
static void print_verdict(const struct collected *c, enum run_end end)
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
	if (env.c.folded || env.c.json)
		msg_warn("%s", line);
	else
		printf("%s%s\n", c->n ? "" : "No off-CPU time recorded.\n\n", line);
}

static const char *const loss_hints[LOSS_KINDS] = {
	[LOSS_STACK_COLLISION] = "raise --stack-storage-size",
	[LOSS_STACK_FULL] = "raise --stack-storage-size",
	[LOSS_AGG_FULL] = "raise --max-entries",
	[LOSS_START_FULL] = "raise --max-entries",
	[LOSS_RINGBUF] = "--dwarf: lower --stack-copy-size",
	[LOSS_USTACK] = "shown as " FRAME_USER_LOST,
	[LOSS_KSTACK] = "shown as " FRAME_KERNEL_LOST,
};

int main(int argc, char **argv)
{
	static const struct argp argp = { options, parse_arg, args_doc, doc, NULL, NULL, NULL };
	struct offcputime_bpf *skel = NULL;
	struct ring_buffer *rb = NULL;
	struct stacksym *sym = NULL;
	struct collected c = { 0 };
	struct dctx dctx = { &c };
	__u64 losses[LOSS_KINDS];
	enum run_end end;
	int err = 0;

	suite_init("offcputime");
	argp_parse(&argp, argc, argv, 0, NULL, NULL);
	common_opts_finish(&env.c);
	if (env.user_only && env.kernel_only)
		die_usage("-u and -k exclude each other");
	stack_opts_finish(&env.s);
	if (env.min_us > env.max_us)
		die_usage("-m %llu is above -M %llu", (unsigned long long)env.min_us,
			  (unsigned long long)env.max_us);
	bpf_env_check();
	run_install_signals();

	skel = offcputime_bpf__open();
	if (!skel) {
		err = bpf_fail("opening the BPF object", errno);
		goto cleanup;
	}
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
	map_resize(skel->maps.ustack_rb, env.s.dwarf ? 32 << 20 : 4096);
	map_resize(skel->maps.ustack_scratch, env.s.dwarf ? ncpus_possible() : 1);
	filter_configure(&skel->rodata->tfilter, skel->maps.target_tgids,
			 skel->maps.target_tids, skel->maps.target_cpus, &env.c);
	map_resize_opt(skel->maps.stacks, env.s.stack_storage, "--stack-storage-size", env.s.stack_storage);
	map_resize_opt(skel->maps.start, env.s.max_entries, "--max-entries", env.s.max_entries);
	map_resize_opt(skel->maps.counts, env.s.max_entries, "--max-entries", env.s.max_entries);
	bpf_pick_tp_flavour(skel->obj);
	map_mem_check(skel->obj);

	err = offcputime_bpf__load(skel);
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
	sym = stacksym_new(env.s.lines);
	stacksym_cache_targets(sym, &env.c);
	rb = ring_buffer__new(bpf_map__fd(skel->maps.announce_rb), stacksym_on_announce, sym, NULL);
	if (!rb) {
		err = bpf_fail("creating the ring buffer", errno);
		goto cleanup;
	}
	if (env.s.dwarf) {
		dw = dwunw_new();
		err = ring_buffer__add(rb, bpf_map__fd(skel->maps.ustack_rb), on_dwarf_event, &dctx);
		if (err) {
			err = bpf_fail("adding the stack-sample ring buffer", err);
			goto cleanup;
		}
	}
	err = offcputime_bpf__attach(skel);
	if (err) {
		err = bpf_fail("attaching to sched_switch", err);
		goto cleanup;
	}

	run_say_tracing("off-CPU time", &env.c);

	end = run_loop(&(struct run_opts){
		.duration = env.c.duration,
		.pids = &env.c.pids,
		.tids = &env.c.tids,
		.poll = run_poll_ringbuf,
		.ctx = rb,
	});
	/* stop recording before reading, so the report is one instant */
	offcputime_bpf__detach(skel);
	ring_buffer__consume(rb);
	run_report_end(end);

	err = collect_counts(bpf_map__fd(skel->maps.counts), &c);
	if (!err)
		err = collect_in_flight(bpf_map__fd(skel->maps.start), &c, run_end_ns);
	if (err) {
		msg_warn("reading the maps failed: %s", strerror(-err));
		err = EXIT_UNSUPPORTED;
		goto cleanup;
	}
	losses_read(skel->maps.losses, losses);
	report(skel, sym, &c, losses);
	if (env.c.check)
		print_verdict(&c, end);
	fflush(stdout);
	losses_report(losses, loss_hints);
	stacksym_report(sym);
	if (dw)
		dwunw_report(dw);
	if (c.still_blocked)
		msg_warn("%zu threads were still off-CPU at the end; counted up "
			 "to the stop time", c.still_blocked);
	err = (env.c.check && c.n) ? EXIT_FOUND : EXIT_REPORTED;

cleanup:
	ring_buffer__free(rb);
	offcputime_bpf__destroy(skel);
	stacksym_free(sym);
	dwunw_free(dw);
	free(c.idx);
	free(c.e);
	return err;
}
