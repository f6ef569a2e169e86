// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* pfwatch: page faults of a process after its warm-up, by thread, user
 * stack and mapping, with the memory-locking state of the process; and
 * with --check, the proof that there were none.
 *
 * Faults come from the software perf events page-faults-maj and -min
 * (sample_period 1) carrying a BPF program.  With -p/-t the events are
 * opened on the target's threads (inherited by the threads they create),
 * so no other process pays anything; without, one per CPU. */
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
#include "perfev.h"
#include "vmas.h"
#include "memlock.h"
#include "announce.h"
#include "dwarf.h"
#include "kmap.h"
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
"USAGE: pfwatch [-p PID | -t TID] [-d SECS] [--warmup SECS] [-f | -j] [--check] [--dwarf]\n"
"\n"
"EXAMPLES:\n"
"    pfwatch -p 185                   # faults of process 185 until Ctrl-C\n"
"    pfwatch -p 185 -d 10 --warmup 3  # faults after the first 3 s only\n"
"    pfwatch -p 185 -d 10 --check     # exit 1 if process 185 took any fault\n"
"    pfwatch -t 188 -d 5              # thread 188 only\n"
"    pfwatch -d 5                     # every process, for 5 seconds\n"
"    pfwatch -p 185 -f -d 10 > out.folded   # for flamegraph.pl\n"
"    pfwatch -p 185 -j -d 5           # JSON\n"
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
	{ "stack-storage-size", OPT_STACK_STORAGE, "N", 0, "Room for N unique stacks (default 16384)", 0 },
	{ "max-entries", OPT_MAX_ENTRIES, "N", 0, "Room for N (thread, stack, mapping) entries (default 32768)", 0 },
	{ "lines", OPT_LINES, NULL, 0, "Show file:line of user frames where debug info exists (slower)", 0 },
	{ "dwarf", OPT_DWARF, NULL, 0, "Unwind user stacks with DWARF (.eh_frame) in user space: whole "
	  "stacks through code built without frame pointers (costlier)", 0 },
	{ "stack-copy-size", OPT_STACK_COPY, "BYTES", 0, "--dwarf: bytes of user stack copied per "
	  "fault (default 8192, max 32768)", 0 },
	OPTS_VERBOSE,
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case OPT_WARMUP:
		env.warmup = opt_seconds("--warmup", arg);
		break;
	case OPT_PER_CPU:
		env.per_cpu = true;
		break;
	default:
		if (stack_parse_opt(key, arg, &env.s) != ARGP_ERR_UNKNOWN)
			break;
		return common_parse_opt(key, arg, state, &env.c);
	}
	return 0;
}

/* ---- the targets and their memory locking ---- */

struct target {
	__u32 pid;
	char comm[TASK_COMM_LEN];
	struct memlock start, last;
	bool ended;		/* gone: last is what was seen last */
};

struct targets {
	struct target *t;
	size_t n;
	__u64 last_refresh_ns;
};

static void targets_init(struct targets *ts)
{
	size_t n = env.c.pids.n + env.c.tids.n;

	ts->t = calloc(n ? n : 1, sizeof(*ts->t));
	if (!ts->t) {
		msg_warn("out of memory");
		exit(EXIT_UNSUPPORTED);
	}
	for (size_t i = 0; i < n; i++) {
		__u32 pid = i < env.c.pids.n ? env.c.pids.ids[i]
					     : env.c.tids.who[i - env.c.pids.n].tgid;
		bool dup = false;

		for (size_t k = 0; k < ts->n; k++)
			dup |= ts->t[k].pid == pid;
		if (!pid || dup)
			continue;
		ts->t[ts->n].pid = pid;
		task_comm(pid, ts->t[ts->n].comm, sizeof(ts->t[ts->n].comm));
		memlock_read(pid, &ts->t[ts->n].start);
		ts->t[ts->n].last = ts->t[ts->n].start;
		ts->n++;
	}
}

/* The last state seen: VmLck every 250 ms while tracing (cheap), the
 * mappings (smaps walks the page tables, under the target's mmap lock)
 * when VmLck changed, and everything at the end */
static void targets_refresh(struct targets *ts, bool final)
{
	__u64 now = now_ns();

	if (!final && now - ts->last_refresh_ns < 250000000ull)
		return;
	ts->last_refresh_ns = now;
	for (size_t i = 0; i < ts->n; i++) {
		struct target *t = &ts->t[i];
		struct memlock m = t->last;

		if (t->ended)
			continue;
		if (!pid_alive(t->pid) || !memlock_read_status(t->pid, &m)) {
			t->ended = true;
			continue;
		}
		if ((final || m.vmlck_kb != t->last.vmlck_kb) && !memlock_read(t->pid, &m)) {
			t->ended = true;
			continue;
		}
		t->last = m;
	}
}

/* ---- events: processes and mappings to capture while they live ---- */

static struct dwunw *dw;	/* --dwarf only */

struct tracer;
static void tracer_tick(struct tracer *tr);

struct ctx {
	struct tracer *tr;
	struct ring_buffer *rb;
	struct stacksym *sym;
	struct vmas *vmas;
	struct targets *targets;
};

static int on_event(void *vctx, void *data, size_t size)
{
	struct ctx *ctx = vctx;
	const struct announce_event *a = data;
	const struct pf_event *e = data;

	if (size >= sizeof(*a) && a->type == ANNOUNCE_EV_NEW_PROCESS) {
		stacksym_cache_image(ctx->sym, a->tgid, a->exec_id);
		vmas_capture(ctx->vmas, a->tgid, a->exec_id);
		if (dw)
			dwunw_cache_pid(dw, a->tgid);
	} else if (size >= sizeof(*e) && e->type == PF_EV_NEW_REGION) {
		/* a fault in a region not seen before: name its mapping now */
		if (!vmas_find(ctx->vmas, e->tgid, e->exec_id, e->addr))
			vmas_capture(ctx->vmas, e->tgid, e->exec_id);
	}
	return 0;
}

static int poll_events(void *vctx, int timeout_ms)
{
	struct ctx *ctx = vctx;
	int err = ring_buffer__poll(ctx->rb, timeout_ms);

	targets_refresh(ctx->targets, false);
	tracer_tick(ctx->tr);
	return err < 0 ? err : 0;
}

/* ---- perf events ---- */

enum { TAG_MAJOR, TAG_MINOR };

static void fault_attr(struct perf_event_attr *a, bool major, bool inherit)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_SOFTWARE;
	a->config = major ? PERF_COUNT_SW_PAGE_FAULTS_MAJ : PERF_COUNT_SW_PAGE_FAULTS_MIN;
	a->sample_period = 1;
	a->sample_type = PERF_SAMPLE_ADDR;
	/* -p: threads created later are followed, child processes not */
	a->inherit = inherit;
	a->inherit_thread = inherit;
}

static int open_thread(struct pfwatch_bpf *skel, struct perfev_set *s,
		       __u32 tid, bool inherit)
{
	struct perf_event_attr a;
	int err;

	fault_attr(&a, true, inherit);
	err = perfev_open_thread(s, &a, tid, skel->progs.pf_major, TAG_MAJOR, tid);
	if (err)
		return err;
	fault_attr(&a, false, inherit);
	return perfev_open_thread(s, &a, tid, skel->progs.pf_minor, TAG_MINOR, tid);
}

static size_t count_threads(void)
{
	struct id_list none = { 0 }, all = { 0 };
	size_t n;

	for (size_t i = 0; i < env.c.pids.n; i++)
		perfev_list_threads(env.c.pids.ids[i], &none, &all);
	n = all.n + env.c.tids.n;
	id_list_free(&all);
	return n;
}

/* The per-thread events.  Every thread of a -p process present at the
 * start gets an event that its future threads inherit.  A thread that
 * shows up only in a second listing was created while the events were
 * being opened: it may or may not have inherited one.  It gets its own,
 * not inherited (so no thread ever holds two inherited copies), the
 * program counts one event per thread (dedupe), and from then on the
 * processes are listed again every poll, for threads whose creator had no
 * event. */
struct tracer {
	struct pfwatch_bpf *skel;
	struct perfev_set *pev;
	struct id_list done;	/* threads given an event of their own */
	bool relist;		/* some thread was found late */
	size_t late;		/* threads found late */
	__u64 last_list_ns;
};

static int open_late(struct tracer *tr, bool initial)
{
	int err = 0;

	for (size_t i = 0; i < env.c.pids.n && !err; i++) {
		struct id_list todo = { 0 };

		if (perfev_list_threads(env.c.pids.ids[i], &tr->done, &todo) || !todo.n) {
			id_list_free(&todo);
			continue;
		}
		tr->skel->bss->dedupe = true;
		tr->relist = true;
		for (size_t k = 0; k < todo.n && !err; k++) {
			err = open_thread(tr->skel, tr->pev, todo.ids[k], false);
			if (err == -ESRCH)
				err = 0;
			id_list_add(&tr->done, todo.ids[k]);
			tr->late += !initial;
		}
		id_list_free(&todo);
	}
	return err;
}

static int open_task_events(struct tracer *tr)
{
	int err = 0;

	for (size_t i = 0; i < env.c.pids.n && !err; i++) {
		struct id_list todo = { 0 };

		perfev_list_threads(env.c.pids.ids[i], &tr->done, &todo);
		for (size_t k = 0; k < todo.n && !err; k++) {
			err = open_thread(tr->skel, tr->pev, todo.ids[k], true);
			if (err == -ESRCH)
				err = 0;
			id_list_add(&tr->done, todo.ids[k]);
		}
		id_list_free(&todo);
	}
	for (size_t i = 0; i < env.c.tids.n && !err; i++) {
		if (id_list_has(&tr->done, env.c.tids.ids[i]))
			continue;
		err = open_thread(tr->skel, tr->pev, env.c.tids.ids[i], false);
		if (err == -ESRCH)
			err = 0;
		id_list_add(&tr->done, env.c.tids.ids[i]);
	}
	/* threads created meanwhile */
	return err ? err : open_late(tr, true);
}

/* Every poll: the end of the warm-up (the program then reads no clock),
 * and, once some thread was found late, the threads of the processes */
static void tracer_tick(struct tracer *tr)
{
	__u64 now = now_ns();
	int err;

	if (tr->skel->bss->warmup_end_ns && now >= tr->skel->bss->warmup_end_ns)
		tr->skel->bss->warmup_end_ns = 0;
	if (!tr->relist || now - tr->last_list_ns < 100000000ull)
		return;
	tr->last_list_ns = now;
	err = open_late(tr, false);
	if (err)
		msg_warn("opening a perf event on a new thread: %s", perfev_strerror(err));
}

static int open_cpu_events(struct pfwatch_bpf *skel, struct perfev_set *s)
{
	struct perf_event_attr a;
	int err;

	fault_attr(&a, true, false);
	err = perfev_open_cpus(s, &a, skel->progs.pf_major, TAG_MAJOR);
	if (err)
		return err;
	fault_attr(&a, false, false);
	return perfev_open_cpus(s, &a, skel->progs.pf_minor, TAG_MINOR);
}

/* ---- collection ---- */

struct entry {
	struct pf_key key;
	struct pf_val val;
	bool dwarf;		/* key.ustack is a dwunw stack id */
};

struct collected {
	struct entry *e;
	size_t n, cap;
	/* totals: [0] after warm-up, [1] warm-up */
	__u64 major[2], minor[2];
	size_t stacks[2];
};

/* One entry: the per-CPU values added up */
static void sum_cpus(const struct pf_val *pc, int ncpu, struct pf_val *v)
{
	memset(v, 0, sizeof(*v));
	for (int i = 0; i < ncpu; i++) {
		v->major += pc[i].major;
		v->minor += pc[i].minor;
		if (pc[i].addr_min && (!v->addr_min || pc[i].addr_min < v->addr_min))
			v->addr_min = pc[i].addr_min;
		if (pc[i].addr_max > v->addr_max)
			v->addr_max = pc[i].addr_max;
		if (!v->comm[0] && pc[i].comm[0])
			memcpy(v->comm, pc[i].comm, sizeof(v->comm));
	}
}

/* --dwarf: the faults that came with a user-stack sample, counted here
 * by key (key.ustack: the unwound stack's id, or PF_USTACK_LOST) */
struct dw_rec {
	struct pf_val val;
	bool dwarf;
};

static struct kmap *dw_recs;

static int on_dwarf_event(void *vctx, void *data, size_t size)
{
	__u32 type = size >= sizeof(__u32) ? *(__u32 *)data : 0;

	if (type == USTACK_EV_SAMPLE && size >= offsetof(struct ustack_sample, stack)) {
		dwunw_add_sample(dw, data);
	} else if (type == PF_EV_FAULT && size >= sizeof(struct pf_fault)) {
		const struct pf_fault *f = data;
		struct pf_key key = f->key;
		int id = dwunw_take(dw, f->seq);
		struct dw_rec *d;
		bool created;

		key.ustack = id >= 0 ? id : PF_USTACK_LOST;
		d = kmap_get(dw_recs, &key, &created);
		if (created) {
			d->dwarf = id >= 0;
			d->val.addr_min = d->val.addr_max = f->addr;
			memcpy(d->val.comm, f->comm, sizeof(d->val.comm));
		}
		if (f->major)
			d->val.major++;
		else
			d->val.minor++;
		if (f->addr < d->val.addr_min)
			d->val.addr_min = f->addr;
		if (f->addr > d->val.addr_max)
			d->val.addr_max = f->addr;
	}
	return 0;
}

static struct entry *entry_new(struct collected *c)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 1024;
		struct entry *p = realloc(c->e, cap * sizeof(*p));

		if (!p)
			return NULL;
		c->e = p;
		c->cap = cap;
	}
	return &c->e[c->n++];
}

static void entry_count(struct collected *c, const struct entry *e)
{
	c->major[e->key.warmup ? 1 : 0] += e->val.major;
	c->minor[e->key.warmup ? 1 : 0] += e->val.minor;
	c->stacks[e->key.warmup ? 1 : 0]++;
}

static void collect_dwarf_one(const void *key, void *val, void *arg)
{
	struct collected *c = arg;
	const struct dw_rec *d = val;
	struct entry *e = entry_new(c);

	if (!e) {
		msg_warn("out of memory");
		exit(EXIT_UNSUPPORTED);
	}
	memcpy(&e->key, key, sizeof(e->key));
	e->val = d->val;
	e->dwarf = d->dwarf;
	entry_count(c, e);
}

static int collect(int fd, struct collected *c)
{
	int ncpu = ncpus_possible(), err;
	struct pf_val *pc = calloc(ncpu, sizeof(*pc));
	struct pf_key k, next, *prev = NULL;

	if (!pc)
		return -ENOMEM;
	while (!(err = bpf_map_get_next_key(fd, prev, &next))) {
		if (!bpf_map_lookup_elem(fd, &next, pc)) {
			struct entry *e = entry_new(c);

			if (!e) {
				free(pc);
				return -ENOMEM;
			}
			e->key = next;
			e->dwarf = false;
			sum_cpus(pc, ncpu, &e->val);
			entry_count(c, e);
		}
		k = next;
		prev = &k;
	}
	free(pc);
	if (dw_recs && err == -ENOENT)
		kmap_each(dw_recs, collect_dwarf_one, c);
	return err == -ENOENT ? 0 : err;
}

/* warm-up last, then most faults first */
static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	__u64 nx = x->val.major + x->val.minor, ny = y->val.major + y->val.minor;

	if (x->key.warmup != y->key.warmup)
		return x->key.warmup - y->key.warmup;
	if (nx != ny)
		return nx < ny ? 1 : -1;
	return memcmp(&x->key, &y->key, sizeof(x->key));
}

/* ---- output ---- */

struct frames {
	const char *u[MAX_STACK_DEPTH + 1], *k[MAX_STACK_DEPTH + 1];
	int un, kn;
};

static void resolve(struct stacksym *sym, int stacks_fd, const struct pf_key *key,
		    bool dwarf, struct frames *f)
{
	__u64 ips[MAX_STACK_DEPTH];

	f->un = f->kn = 0;
	/* kstack -1: a fault taken in user mode has no kernel stack */
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
		f->un += stacksym_user_image(sym, key->tgid, key->exec_id, dips, n,
					     f->u + f->un);
	} else if (key->ustack >= 0 && !bpf_map_lookup_elem(stacks_fd, &key->ustack, ips))
		f->un = stacksym_user_image(sym, key->tgid, key->exec_id, ips,
					    MAX_STACK_DEPTH, f->u);
	else if (key->ustack != -1)
		f->u[f->un++] = FRAME_USER_LOST;
}

/* The mappings holding an entry's lowest and highest addresses */
static void entry_vmas(const struct vmas *v, const struct entry *e,
		       const struct vma_ent **lo, const struct vma_ent **hi)
{
	*lo = vmas_find(v, e->key.tgid, e->key.exec_id, e->val.addr_min);
	*hi = vmas_find(v, e->key.tgid, e->key.exec_id, e->val.addr_max);
}

static const char *vma_name(const struct vma_ent *m)
{
	return m ? m->name : "[unknown]";
}

/* seconds into the tracing when m was read (negative: before it) */
static double since_start(const struct memlock *m)
{
	return ((double)m->at_ns - (double)run_start_ns) / 1e9;
}

static void print_memlock_line(FILE *f, const char *when, const struct memlock *m)
{
	if (!m->valid) {
		fprintf(f, "  %s unknown (/proc could not be read)\n", when);
		return;
	}
	if (!m->vmlck_kb && !m->locked) {
		fprintf(f, "  %s VmLck 0 kB: memory is not locked (VmRSS %llu kB)\n", when,
			(unsigned long long)m->vmrss_kb);
		return;
	}
	fprintf(f, "  %s VmLck %llu kB of VmRSS %llu kB; %u of %u mappings locked: %s\n",
		when, (unsigned long long)m->vmlck_kb, (unsigned long long)m->vmrss_kb,
		m->locked, m->vmas, memlock_verdict(m));
}

static void print_memlock(FILE *f, const struct targets *ts)
{
	char when[64];

	for (size_t i = 0; i < ts->n; i++) {
		const struct target *t = &ts->t[i];

		fprintf(f, "Memory locking of process %u (%s):\n", t->pid, ESC(t->comm));
		print_memlock_line(f, "at start:", &t->start);
		if (t->ended)
			snprintf(when, sizeof(when), "last seen (%.1f s, then it exited):",
				 since_start(&t->last));
		else
			snprintf(when, sizeof(when), "at end:  ");
		print_memlock_line(f, when, &t->last);
	}
	if (ts->n)
		fputc('\n', f);
}

static void print_plain(const struct vmas *v, const struct frames *f,
			const struct entry *e)
{
	const struct vma_ent *lo, *hi;

	entry_vmas(v, e, &lo, &hi);
	stack_print_frames(stdout, "    ", f->k, f->kn);
	if (f->kn && f->un)
		printf("    --\n");
	stack_print_frames(stdout, "    ", f->u, f->un);
	printf("    -                %s (%u/%u)\n", ESC(e->val.comm), e->key.tgid, e->key.tid);
	printf("        %llu fault%s (%llu major, %llu minor) in %s mode\n",
	       (unsigned long long)(e->val.major + e->val.minor),
	       e->val.major + e->val.minor == 1 ? "" : "s",
	       (unsigned long long)e->val.major, (unsigned long long)e->val.minor,
	       e->key.kernel_mode ? "kernel" : "user");
	printf("        at %#llx..%#llx in ", (unsigned long long)e->val.addr_min,
	       (unsigned long long)e->val.addr_max);
	esc_fputs(vma_name(lo), stdout);
	if (lo && lo == hi)
		printf(" (%llx-%llx)", (unsigned long long)lo->start,
		       (unsigned long long)lo->end);
	else if (lo != hi) {
		printf(" .. ");
		esc_fputs(vma_name(hi), stdout);
	}
	printf("\n\n");
}

static void json_vma(struct json *j, const struct vma_ent *m)
{
	json_obj_begin(j);
	json_kv_str(j, "name", vma_name(m));
	if (m) {
		json_kv_hex(j, "start", m->start);
		json_kv_hex(j, "end", m->end);
	}
	json_obj_end(j);
}

static void json_entry(struct json *j, const struct vmas *v, const struct frames *f,
		       const struct entry *e)
{
	const struct vma_ent *lo, *hi;

	entry_vmas(v, e, &lo, &hi);
	json_obj_begin(j);
	json_kv_str(j, "comm", e->val.comm);
	json_kv_u64(j, "pid", e->key.tgid);
	json_kv_u64(j, "tid", e->key.tid);
	json_kv_u64(j, "count", e->val.major + e->val.minor);
	json_kv_u64(j, "major", e->val.major);
	json_kv_u64(j, "minor", e->val.minor);
	json_kv_str(j, "mode", e->key.kernel_mode ? "kernel" : "user");
	json_kv_str(j, "mapping", vma_name(lo));
	json_key(j, "mappings");
	json_arr_begin(j);
	json_vma(j, lo);
	if (lo != hi)
		json_vma(j, hi);
	json_arr_end(j);
	json_kv_hex(j, "addr_min", e->val.addr_min);
	json_kv_hex(j, "addr_max", e->val.addr_max);
	json_kv_strs(j, "user_stack", f->u, f->un);
	json_kv_strs(j, "kernel_stack", f->k, f->kn);
	json_obj_end(j);
}

static void json_memlock(struct json *j, const char *key, const struct memlock *m)
{
	json_key(j, key);
	if (!m->valid) {
		json_null(j);
		return;
	}
	json_obj_begin(j);
	json_kv_u64(j, "vmlck_kb", m->vmlck_kb);
	json_kv_u64(j, "vmrss_kb", m->vmrss_kb);
	json_kv_u64(j, "mappings", m->vmas);
	json_kv_u64(j, "locked_mappings", m->locked);
	json_kv_bool(j, "locked", m->vmlck_kb || m->locked);
	json_kv_bool(j, "mlockall", memlock_all(m));
	json_kv_str(j, "verdict", memlock_verdict(m));
	json_kv_double(j, "at_s", since_start(m));
	json_obj_end(j);
}

struct report_in {
	struct pfwatch_bpf *skel;
	struct stacksym *sym;
	struct vmas *vmas;
	struct targets *targets;
	struct collected *c;
	__u64 losses[LOSS_KINDS];
	__u64 stats[PF_STATS];
	__u64 kernel_count;	/* the events' own count */
	bool kernel_count_valid;	/* ... comparable with what BPF saw */
	__u64 missed;
	bool task_mode;
};

static void json_head(struct json *j, const struct report_in *r)
{
	json_kv_str(j, "tool", "pfwatch");
	json_kv_str(j, "version", SUITE_VERSION);
	json_kv_double(j, "duration_s", (run_end_ns - run_start_ns) / 1e9);
	json_kv_double(j, "warmup_s", env.warmup);
	json_kv_str(j, "events", r->task_mode ? "per-thread" : "per-cpu");
	json_key(j, "targets");
	json_arr_begin(j);
	for (size_t i = 0; i < r->targets->n; i++) {
		const struct target *t = &r->targets->t[i];

		json_obj_begin(j);
		json_kv_u64(j, "pid", t->pid);
		json_kv_str(j, "comm", t->comm);
		json_kv_bool(j, "exited", t->ended);
		json_memlock(j, "memlock_start", &t->start);
		json_memlock(j, "memlock_end", &t->last);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "totals");
	json_obj_begin(j);
	json_kv_u64(j, "faults", r->c->major[0] + r->c->minor[0]);
	json_kv_u64(j, "major", r->c->major[0]);
	json_kv_u64(j, "minor", r->c->minor[0]);
	json_kv_u64(j, "warmup_faults", r->c->major[1] + r->c->minor[1]);
	json_kv_u64(j, "warmup_major", r->c->major[1]);
	json_kv_u64(j, "warmup_minor", r->c->minor[1]);
	json_obj_end(j);
}

static void json_tail(struct json *j, const struct report_in *r)
{
	json_key(j, "losses");
	json_obj_begin(j);
	losses_json_fields(j, r->losses);
	json_kv_u64(j, "faults_not_seen", r->missed);
	json_obj_end(j);
	json_key(j, "faults_counted_by_kernel");	/* null: not comparable */
	if (r->kernel_count_valid)
		json_u64(j, r->kernel_count);
	else
		json_null(j);
	json_kv_u64(j, "duplicates_skipped", r->stats[PF_STAT_DUP]);
	json_key(j, "frames");
	stacksym_json_stats(j, r->sym);
}

static void plain_totals(const struct report_in *r)
{
	const struct collected *c = r->c;

	if (env.warmup > 0)
		printf("Warm-up (first %g s): %llu faults (%llu major, %llu minor), "
		       "not violations\n", env.warmup,
		       (unsigned long long)(c->major[1] + c->minor[1]),
		       (unsigned long long)c->major[1], (unsigned long long)c->minor[1]);
	printf("%s: %llu faults (%llu major, %llu minor)", env.warmup > 0 ?
	       "After warm-up" : "Page faults",
	       (unsigned long long)(c->major[0] + c->minor[0]),
	       (unsigned long long)c->major[0], (unsigned long long)c->minor[0]);
	if (c->stacks[0])
		printf(" from %zu stack%s:\n\n", c->stacks[0], c->stacks[0] == 1 ? "" : "s");
	else
		printf("\n\n");
}

/* The last image of tgid seen in the entries */
static __u64 last_image(const struct collected *c, __u32 tgid)
{
	__u64 image = 0;

	for (size_t i = 0; i < c->n; i++)
		if (c->e[i].key.tgid == tgid && c->e[i].key.exec_id > image)
			image = c->e[i].key.exec_id;
	return image;
}

/* Addresses in mappings made after the last capture (the process mapped
 * them in a region it had faulted in before, or after an exec): read the
 * maps of the processes still alive once more, for their last image only
 * (an older one is no longer there to read) */
static void name_late_mappings(struct vmas *v, const struct collected *c)
{
	struct id_list done = { 0 };

	for (size_t i = 0; i < c->n; i++) {
		const struct entry *e = &c->e[i];

		if (id_list_has(&done, e->key.tgid) ||
		    (vmas_find(v, e->key.tgid, e->key.exec_id, e->val.addr_min) &&
		     vmas_find(v, e->key.tgid, e->key.exec_id, e->val.addr_max)) ||
		    e->key.exec_id != last_image(c, e->key.tgid))
			continue;
		id_list_add(&done, e->key.tgid);
		if (pid_alive(e->key.tgid))
			vmas_capture(v, e->key.tgid, e->key.exec_id);
	}
	id_list_free(&done);
}

static void report(const struct report_in *r)
{
	int stacks_fd = bpf_map__fd(r->skel->maps.stacks);
	struct collected *c = r->c;
	struct folded *fo = NULL;
	struct frames *f = calloc(1, sizeof(*f));
	bool in_warmup = false;
	struct json j;

	if (!f) {
		msg_warn("out of memory");
		return;
	}
	qsort(c->e, c->n, sizeof(*c->e), entry_cmp);
	name_late_mappings(r->vmas, c);
	if (env.c.folded) {
		fo = folded_new();
		print_memlock(stderr, r->targets);
	} else if (env.c.json) {
		json_init(&j, stdout);
		json_obj_begin(&j);
		json_head(&j, r);
		json_key(&j, "faults");
		json_arr_begin(&j);
	} else {
		print_memlock(stdout, r->targets);
		plain_totals(r);
	}
	for (size_t i = 0; i < c->n; i++) {
		const struct entry *e = &c->e[i];

		if (e->key.warmup && !in_warmup) {
			in_warmup = true;
			if (fo)
				break;	/* folded: violations only */
			if (env.c.json) {
				json_arr_end(&j);
				json_key(&j, "warmup_faults");
				json_arr_begin(&j);
			} else {
				printf("Warm-up faults:\n\n");
			}
		}
		resolve(r->sym, stacks_fd, &e->key, e->dwarf, f);
		if (fo)
			folded_add(fo, e->val.comm, f->u, f->un, f->k, f->kn,
				   e->val.major + e->val.minor);
		else if (env.c.json)
			json_entry(&j, r->vmas, f, e);
		else
			print_plain(r->vmas, f, e);
		if (ferror(stdout))
			break;
	}
	if (fo) {
		folded_print(fo, stdout);
		folded_free(fo);
	} else if (env.c.json) {
		json_arr_end(&j);
		if (!in_warmup) {
			json_key(&j, "warmup_faults");
			json_arr_begin(&j);
			json_arr_end(&j);
		}
		json_tail(&j, r);
		json_obj_end(&j);
		json_finish(&j);
	}
	free(f);
}

static const char *const loss_hints[LOSS_KINDS] = {
	[LOSS_STACK_COLLISION] = "raise --stack-storage-size",
	[LOSS_STACK_FULL] = "raise --stack-storage-size",
	[LOSS_AGG_FULL] = "raise --max-entries",
	[LOSS_RINGBUF] = "mapping names, or --dwarf stack samples (lower --stack-copy-size)",
	[LOSS_USTACK] = "shown as " FRAME_USER_LOST,
	[LOSS_KSTACK] = "shown as " FRAME_KERNEL_LOST,
};

static void read_stats(struct bpf_map *m, __u64 out[PF_STATS])
{
	int n = ncpus_possible();
	__u64 *vals = calloc(n, sizeof(__u64));

	memset(out, 0, PF_STATS * sizeof(__u64));
	if (!vals)
		return;
	for (__u32 k = 0; k < PF_STATS; k++) {
		if (bpf_map__lookup_elem(m, &k, sizeof(k), vals, n * sizeof(__u64), 0))
			continue;
		for (int i = 0; i < n; i++)
			out[k] += vals[i];
	}
	free(vals);
}

int main(int argc, char **argv)
{
	static const struct argp argp = { options, parse_arg, NULL, doc, NULL, NULL, NULL };
	struct pfwatch_bpf *skel = NULL;
	struct perfev_set *pev = NULL;
	struct targets targets = { 0 };
	struct tracer tr = { 0 };
	struct ctx ctx = { .targets = &targets, .tr = &tr };
	struct collected c = { 0 };
	struct report_in r = { .c = &c };
	enum run_end end;
	char who[512], dur[64];
	int err = 0;

	suite_init("pfwatch");
	argp_parse(&argp, argc, argv, 0, NULL, NULL);
	common_opts_finish(&env.c);
	if (env.c.duration && env.warmup >= env.c.duration)
		die_usage("--warmup %g is not shorter than -d %g: nothing would be "
			  "checked", env.warmup, env.c.duration);
	stack_opts_finish(&env.s);
	bpf_env_check();
	run_install_signals();

	r.task_mode = (env.c.pids.n || env.c.tids.n) && !env.per_cpu;
	if (r.task_mode) {
		size_t threads = count_threads();

		if (threads * 4 + 64 > perfev_fd_room()) {
			msg_warn("%zu threads need more file descriptors than ulimit -n "
				 "allows; using per-CPU events", threads);
			r.task_mode = false;
		}
	}

	skel = pfwatch_bpf__open();
	if (!skel) {
		err = bpf_fail("opening the BPF object", errno);
		goto cleanup;
	}
	filter_configure(&skel->rodata->tfilter, skel->maps.target_tgids,
			 skel->maps.target_tids, skel->maps.target_cpus, &env.c);
	map_resize_opt(skel->maps.stacks, env.s.stack_storage, "--stack-storage-size", env.s.stack_storage);
	map_resize_opt(skel->maps.counts, env.s.max_entries, "--max-entries", env.s.max_entries);
	skel->rodata->dwarf_mode = env.s.dwarf;
	skel->rodata->ustack_copy_size = env.s.stack_copy;
	map_resize(skel->maps.ustack_rb, env.s.dwarf ? 32 << 20 : 4096);
	map_resize(skel->maps.ustack_scratch, env.s.dwarf ? ncpus_possible() : 1);
	bpf_pick_tp_flavour(skel->obj);
	map_mem_check(skel->obj);

	err = pfwatch_bpf__load(skel);
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
	ctx.sym = stacksym_new(env.s.lines);
	ctx.vmas = vmas_new();
	targets_init(&targets);
	for (size_t i = 0; i < targets.n; i++) {
		stacksym_cache_pid(ctx.sym, targets.t[i].pid);
		vmas_capture(ctx.vmas, targets.t[i].pid, 0);
	}
	ctx.rb = ring_buffer__new(bpf_map__fd(skel->maps.announce_rb), on_event, &ctx, NULL);
	if (!ctx.rb) {
		err = bpf_fail("creating the ring buffer", errno);
		goto cleanup;
	}
	if (env.s.dwarf) {
		dw = dwunw_new();
		dw_recs = kmap_new(sizeof(struct pf_key), sizeof(struct dw_rec));
		for (size_t i = 0; i < targets.n; i++)
			dwunw_cache_pid(dw, targets.t[i].pid);
		err = ring_buffer__add(ctx.rb, bpf_map__fd(skel->maps.ustack_rb), on_dwarf_event, NULL);
		if (err) {
			err = bpf_fail("adding the stack-sample ring buffer", err);
			goto cleanup;
		}
	}
	err = pfwatch_bpf__attach(skel);
	if (err) {
		err = bpf_fail("attaching to sched_process_exec", err);
		goto cleanup;
	}

	if (env.warmup > 0)
		skel->bss->warmup_end_ns = now_ns() + (__u64)(env.warmup * 1e9);
	pev = perfev_new();
	tr.skel = skel;
	tr.pev = pev;
	err = r.task_mode ? open_task_events(&tr) : open_cpu_events(skel, pev);
	if (err) {
		msg_warn("opening the page-fault perf events: %s", perfev_strerror(err));
		err = EXIT_UNSUPPORTED;
		goto cleanup;
	}
	if (!perfev_size(pev)) {
		/* nothing watched must not pass for "no fault" */
		msg_warn("every traced process or thread exited before tracing began");
		err = EXIT_USAGE;
		goto cleanup;
	}

	common_opts_target(&env.c, who, sizeof(who));
	snprintf(dur, sizeof(dur), " for %g s", env.c.duration);
	msg_warn("tracing page faults of %s%s (%zu %s events)%s", who,
		 env.c.duration ? dur : "", perfev_size(pev),
		 r.task_mode ? "per-thread" : "per-CPU", env.c.duration ? "" : "; Ctrl-C to end");
	if (env.warmup > 0)
		msg_warn("faults in the first %g s are warm-up, not violations", env.warmup);

	end = run_loop(&(struct run_opts){
		.duration = env.c.duration,
		.pids = &env.c.pids,
		.tids = &env.c.tids,
		.poll = poll_events,
		.ctx = &ctx,
	});
	/* stop recording before reading, so the report is one instant */
	perfev_disable(pev);
	ring_buffer__consume(ctx.rb);
	targets_refresh(&targets, true);
	run_report_end(end);

	err = collect(bpf_map__fd(skel->maps.counts), &c);
	if (err) {
		msg_warn("reading the maps failed: %s", strerror(-err));
		err = EXIT_UNSUPPORTED;
		goto cleanup;
	}
	losses_read(skel->maps.losses, r.losses);
	read_stats(skel->maps.stats, r.stats);
	/* every event of ours ran the program: what it did not count was lost
	 * (per-CPU events with a filter also count other processes) */
	if (r.task_mode || (!env.c.pids.n && !env.c.tids.n)) {
		__u64 seen = r.stats[PF_STAT_MAJOR] + r.stats[PF_STAT_MINOR] +
			     r.stats[PF_STAT_DUP];

		r.kernel_count = perfev_count(pev, TAG_MAJOR) + perfev_count(pev, TAG_MINOR);
		r.kernel_count_valid = true;
		r.missed = r.kernel_count > seen ? r.kernel_count - seen : 0;
	}
	r.skel = skel;
	r.sym = ctx.sym;
	r.vmas = ctx.vmas;
	r.targets = &targets;
	report(&r);
	fflush(stdout);
	losses_report(r.losses, loss_hints);
	if (r.missed)
		msg_warn("%llu page faults counted by the kernel were not seen by the "
			 "BPF program", (unsigned long long)r.missed);
	stacksym_report(ctx.sym);
	if (dw)
		dwunw_report(dw);
	if (tr.late)
		msg_warn("%zu threads were found by listing the process's threads again "
			 "(a thread was created while the events were being opened): "
			 "faults they took before that may be missing", tr.late);
	err = (env.c.check && c.major[0] + c.minor[0]) ? EXIT_FOUND : EXIT_REPORTED;
	/* a fault counted but not recorded may have been a violation */
	if (env.c.check && err == EXIT_REPORTED && r.missed + r.losses[LOSS_AGG_FULL]) {
		msg_warn("--check: some faults were not recorded: there may have been "
			 "violations");
		err = EXIT_FOUND;
	}

cleanup:
	perfev_free(pev);
	ring_buffer__free(ctx.rb);
	pfwatch_bpf__destroy(skel);
	stacksym_free(ctx.sym);
	vmas_free(ctx.vmas);
	free(targets.t);
	id_list_free(&tr.done);
	free(c.e);
	dwunw_free(dw);
	kmap_free(dw_recs);
	return err;
}
