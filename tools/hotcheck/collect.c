// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* hotcheck's records into the timeline and the verdict's rows. */
#include "collect.h"
#include "clock.h"
#include "escape.h"
#include "event.h"
#include "hashmap.h"
#include "histogram.h"
#include "irqctx.h"
#include "stacks.h"
#include "stackstore.h"
#include "syscalls.h"
#include "xalloc.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const hc_check_names[HCK_N] = {
	[HCK_SYSCALLS] = "syscalls",
	[HCK_FAULTS] = "page faults",
	[HCK_BLOCKS] = "blocks",
	[HCK_PREEMPTIONS] = "preemptions",
	[HCK_MIGRATIONS] = "migrations",
	[HCK_SIGNALS] = "signals",
	[HCK_INTRUDERS] = "cpu intruders",
	[HCK_IRQS] = "irqs",
	[HCK_SOFTIRQS] = "softirqs",
	[HCK_TIMERS] = "timers",
	[HCK_IPIS] = "ipis",
	[HCK_ISOLATION] = "isolation",
};

/* What the hot threads do themselves.  Preemptions are the CPU's: a
 * thread is preempted because another task shares its CPU. */
bool hc_check_thread_level(enum hc_check_id id)
{
	return id <= HCK_SIGNALS && id != HCK_PREEMPTIONS;
}

static bool in_window(const struct hc_run *r, const struct hc_rec *rec);

static bool is_tick(const struct hc_rec *rec)
{
	return rec->type == HCR_VECTOR && rec->nr == HCV_LOCAL_TIMER;
}

/* The bytes of a name after its NUL are whatever the BPF side's buffer
 * held before: zeroed, so that one name is one identity */
static void name_clean(char *s, size_t n)
{
	size_t len = strnlen(s, n);

	if (len < n)
		memset(s + len, 0, n - len);
}

/* The identity of a record: what it says once the fields that differ from
 * one event to the next without changing what it reads as are zeroed
 * (times, CPU, a syscall's return value, a fault's address, a block's
 * state; the hot thread's tid, except for blocks, whose profile is by
 * thread) */
static void identity_of(const struct hc_rec *rec, struct hc_rec *k)
{
	*k = *rec;
	k->ts = k->dur = 0;
	k->cpu = 0;
	name_clean(k->comm, sizeof(k->comm));
	name_clean(k->actor, sizeof(k->actor));
	switch (rec->type) {
	case HCR_SYSCALL:
	case HCR_FAULT:
		k->aux = 0;
		k->flags = 0;
		k->tid = 0;
		break;
	case HCR_BLOCK:
		k->aux = 0;
		break;
	case HCR_SIGNAL:
		k->aux = 0;
		/* fall through */
	case HCR_PREEMPT:
	case HCR_MIGRATE:
		k->tid = 0;
		break;
	case HCR_TASK:
		k->flags &= ~HCR_F_RUNNABLE;
		break;
	default:
		break;
	}
}

static struct hc_agg *agg_add_n(struct hc_run *r, const struct hc_rec *key, uint64_t count,
				uint64_t dur, uint32_t tid)
{
	bool created;
	struct hc_agg *a;

	if (!r->agg)
		r->agg = hashmap_new(sizeof(struct hc_rec), sizeof(struct hc_agg));
	a = hashmap_get(r->agg, key, &created);
	if (created || !a->tid)
		a->tid = tid;
	a->count += count;
	a->time_ns += dur;
	return a;
}

static struct hc_agg *agg_add(struct hc_run *r, const struct hc_rec *key, uint64_t dur,
			      uint32_t tid)
{
	return agg_add_n(r, key, 1, dur, tid);
}

/* A record of the CPUs' (rec, counted in a): when it came, for the
 * cadence of its cause, unless it resumes a task preempted before */
static void arrival(struct hc_run *r, struct hc_agg *a, const struct hc_rec *rec)
{
	if (rec->type < HCR_TASK)
		return;
	if (!a->resumes)
		cadence_add(&a->arrivals, rec->ts, &r->arrivals_kept);
	a->resumes = rec->type == HCR_TASK && (rec->flags & HCR_F_RUNNABLE);
}

void hc_sys_val_combine(void *dst, const void *src)
{
	struct hc_sys_val *d = dst;
	const struct hc_sys_val *s = src;

	d->count += s->count;
	d->time_ns += s->time_ns;
	if (!d->tid)
		d->tid = s->tid;
}

/* One identity the kernel counted: the record it stands for */
static void kernel_one(const void *key, void *val, void *arg)
{
	const struct hc_sys_key *k = key;
	const struct hc_sys_val *v = val;
	struct hc_run *r = arg;
	struct hc_rec rec;

	if (!v->count)
		return;
	memset(&rec, 0, sizeof(rec));
	rec.type = HCR_SYSCALL;
	rec.pid = k->pid;
	rec.nr = k->nr;
	rec.ustack = k->ustack;
	rec.image = k->image;
	rec.kstack = STACK_NONE;
	memcpy(rec.comm, k->comm, sizeof(rec.comm));
	name_clean(rec.comm, sizeof(rec.comm));
	agg_add_n(r, &rec, v->count, v->time_ns, (uint32_t)v->tid);
	r->kernel_counted += v->count;
}

void hc_collect_kernel(struct hc_run *r, struct hashmap *sys_agg, uint64_t first_unsent_ns)
{
	uint64_t unsent = r->stats[HCS_SYS_UNSENT];

	if (sys_agg)
		hashmap_each(sys_agg, kernel_one, r);
	r->outside_window += r->stats[HCS_SYS_OUTSIDE];
	if (!unsent)
		return;
	/* the kernel's, counted above, not in the timeline */
	if (!r->not_kept || first_unsent_ns < r->first_not_kept_ns)
		r->first_not_kept_ns = first_unsent_ns;
	r->events += unsent;
	r->not_kept += unsent;
}

static void count_rec(struct hc_run *r, const struct hc_rec *rec)
{
	struct hc_rec k;

	identity_of(rec, &k);
	arrival(r, agg_add(r, &k, rec->dur, rec->tid), rec);
}

/* A tick of rec->cpu: the hrtimer callbacks pending on its CPU ran inside
 * it (name its cause, not counted again) or before it (counted alone).
 * The ring buffer keeps each CPU's records in the order they were sent,
 * and a callback inside a tick is sent before the tick's end. */
static void tick_place(struct hc_run *r, const struct hc_rec *tick)
{
	struct hc_rec k;
	__u64 *slot[HC_TICK_CALLBACKS];
	size_t keep = 0;

	identity_of(tick, &k);
	k.wustack = k.wkstack = k.image = k.wimage = 0;
	slot[0] = &k.wustack;
	slot[1] = &k.wkstack;
	slot[2] = &k.image;
	slot[3] = &k.wimage;
	for (size_t i = 0; i < r->pending.n; i++) {
		const struct hc_rec *cb = &r->pending.v[i];

		if (cb->cpu != tick->cpu) {
			r->pending.v[keep++] = *cb;
			continue;
		}
		if (cb->ts >= tick->ts && cb->ts + cb->dur <= tick->ts + tick->dur) {
			__u64 addr = (__u64)cb->aux;

			for (int j = 0; j < HC_TICK_CALLBACKS; j++) {
				if (*slot[j] == addr)
					break;
				if (!*slot[j]) {
					*slot[j] = addr;
					break;
				}
			}
			/* an address 0 names "0x0": one slot marks it */
			if (!addr)
				k.flags |= 0x80000000u;
		} else {
			count_rec(r, cb);
		}
	}
	r->pending.n = keep;
	arrival(r, agg_add(r, &k, tick->dur, 0), tick);
}

int hc_on_record(void *ctx, void *data, size_t size)
{
	struct hc_run *r = ctx;
	const struct hc_rec *rec = data;
	size_t max = r->timeline_max ? r->timeline_max : HC_TIMELINE_DEFAULT;
	bool cpu_level;

	r->records++;
	if (size < sizeof(*rec) || !rec->type || rec->type >= HCR_TYPES) {
		r->bad_records++;
		return 0;
	}
	if (rec->type == HCR_ONCPU || rec->type == HCR_EXIT) {
		/* marks, not events: a first switch-in before the window
		 * tells how the window found the thread */
		if (!r->window_end_ns || rec->ts <= r->window_end_ns)
			vec_push(&r->marks, ((struct hc_mark){
					.tid = rec->tid, .ts_ns = rec->ts,
					.kind = rec->type == HCR_EXIT ? HC_MARK_EXIT : HC_MARK_ONCPU }));
		return 0;
	}
	if (!in_window(r, rec)) {
		r->outside_window++;
		return 0;
	}
	r->events++;
	/* the hot threads' own events and their CPUs' each have the cap: a
	 * busy CPU does not crowd the threads out of the timeline */
	cpu_level = rec->type >= HCR_TASK;
	if (r->kept_class[cpu_level] < max) {
		r->kept_class[cpu_level]++;
		vec_push(&r->kept, *rec);
	} else {
		if (!r->not_kept || rec->ts < r->first_not_kept_ns)
			r->first_not_kept_ns = rec->ts;
		r->not_kept++;
	}
	if (rec->type == HCR_SYSCALL && (rec->flags & HCR_F_COUNTED))
		;	/* counted in the kernel (hc_collect_kernel) */
	else if (rec->type == HCR_TIMER)
		vec_push(&r->pending, *rec);
	else if (is_tick(rec))
		tick_place(r, rec);
	else
		count_rec(r, rec);
	return 0;
}

void hc_collect_hists(struct hc_run *r, const struct hist *percpu, int ncpus)
{
	for (long nr = 0; nr < HC_SYSCALLS; nr++) {
		struct hc_syscall_hist s = { .nr = nr };

		for (int c = 0; c < ncpus; c++)
			hist_merge(&s.h, &percpu[nr * ncpus + c]);
		if (s.h.count)
			vec_push(&r->sys, s);
	}
}

/* ---- strings ---- */

static const char *intern(struct hc_run *r, const char *s)
{
	void *v = hashmap_get_blob(r->strings, s, strlen(s) + 1, NULL);

	return hashmap_key(r->strings, v);
}

/* A name from the kernel or a traced task (n bytes at most), escaped */
static const char *intern_name(struct hc_run *r, const char *s, size_t n)
{
	char raw[HC_NAME_LEN + 1], esc[4 * HC_NAME_LEN + 8];

	if (n > HC_NAME_LEN)
		n = HC_NAME_LEN;
	memcpy(raw, s, n);
	raw[n] = 0;
	return intern(r, esc_str(esc, sizeof(esc), raw));
}

static const char *internf(struct hc_run *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static const char *internf(struct hc_run *r, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return intern(r, buf);
}

struct stack_key {
	__u64 kstack, ustack, image;
	__u32 pid;
	__u32 nosched;
	const char *comm;	/* interned: one pointer per name */
};

/* The folded stack as docs/CLI.md has it: the comm (already escaped),
 * user frames root first, then kernel frames with "_[k]", escaped; ""
 * if no stack was taken */
static const char *stack_name(struct hc_run *r, const char *comm, __u64 kstack, __u64 ustack,
			      __u32 pid, __u64 image, bool nosched)
{
	struct stack_key key = { kstack, ustack, image, pid, nosched, comm };
	static struct stack_frames f;
	const char **v;
	bool created;
	char *buf;
	size_t len = 0, cap = 8192;

	if (kstack == STACK_NONE && ustack == STACK_NONE)
		return "";
	v = hashmap_get(r->stack_names, &key, &created);
	if (!created)
		return *v;
	stack_frames_resolve(r->sym, r->stacks,
			     &(struct stack_ref){ .kstack = kstack, .ustack = ustack, .pid = pid,
						  .image = image, .kernel_nosched = nosched }, &f);
	buf = xmalloc(cap);
	len = (size_t)snprintf(buf, cap, "%.*s", (int)(cap / 2), comm[0] ? comm : "[unknown]");
	for (int i = 0; i < f.un + f.kn; i++) {
		const char *name = i < f.un ? f.u[i] : f.k[i - f.un];
		char esc[512];

		esc_str(esc, sizeof(esc), name ? name : "[unknown]");
		if (len + strlen(esc) + 8 >= cap)
			buf = xrealloc(buf, cap *= 2, 1);
		len += sprintf(buf + len, ";%s%s", esc, i < f.un ? "" : "_[k]");
	}
	*v = intern(r, buf);
	free(buf);
	return *v;
}

const char *hc_block_stack(struct hc_run *r, const struct hc_rec *rec)
{
	return stack_name(r, intern_name(r, rec->comm, sizeof(rec->comm)), rec->kstack,
			  rec->ustack, rec->pid, rec->image, true);
}

/* The function a folded stack ends in (event.h: the last user frame,
 * else the last kernel frame; "" if none) */
static const char *stack_leaf(struct hc_run *r, const char *stack)
{
	size_t n;
	const char *leaf = hc_stack_leaf(stack, &n);
	char buf[512];

	snprintf(buf, sizeof(buf), "%.*s", (int)n, leaf ? leaf : "");
	return intern(r, buf);
}

/* ---- events ---- */

static const char *vector_name(long v)
{
	static const char *const names[HCV_KINDS] = {
		[HCV_LOCAL_TIMER] = "local_timer",
		[HCV_RESCHEDULE] = "reschedule",
		[HCV_CALL_FUNCTION] = "call_function",
		[HCV_CALL_FUNCTION_SINGLE] = "call_function_single",
		[HCV_IRQ_WORK] = "irq_work",
	};

	return v >= 0 && v < HCV_KINDS ? names[v] : "vector";
}

static const char *signal_name(struct hc_run *r, long sig)
{
	const char *abbrev = sig > 0 && sig < NSIG ? sigabbrev_np((int)sig) : NULL;

	return abbrev ? internf(r, "SIG%s", abbrev) : internf(r, "signal %ld", sig);
}

static const char *kernel_func(struct hc_run *r, __u64 addr)
{
	const char *name = NULL;

	if (addr && stacksym_kernel(r->sym, &addr, 1, &name) == 1 && name)
		return intern_name(r, name, strlen(name));
	return internf(r, "0x%llx", (unsigned long long)addr);
}

/* Who acted (a waker, a sender): a task's comm, or the interrupt's label */
static const char *actor_of(struct hc_run *r, const struct hc_rec *rec)
{
	if (rec->actor_ctx != IRQCTX_TASK)
		return intern(r, irqctx_label(rec->actor_ctx));
	return intern_name(r, rec->actor, sizeof(rec->actor));
}

/* The event's actor (waker, sender, the one who moved it) */
static void set_actor(struct hc_run *r, struct hc_event *e, const struct hc_rec *rec)
{
	e->actor = actor_of(r, rec);
	e->actor_tid = rec->actor_tid;
}

/* The stacks the actor was in, named */
static const char *actor_stack(struct hc_run *r, const struct hc_event *e,
			       const struct hc_rec *rec)
{
	return stack_name(r, e->actor, rec->wkstack, rec->wustack, rec->actor_pid, rec->wimage,
			  false);
}

/* What each record is on the timeline, and its what where it is fixed */
static const struct {
	enum hc_kind kind;
	const char *what;
} rec_kinds[HCR_TYPES] = {
	[HCR_SYSCALL] = { HC_SYSCALL },
	[HCR_FAULT] = { HC_FAULT },
	[HCR_BLOCK] = { HC_BLOCK },
	[HCR_PREEMPT] = { HC_PREEMPT, "preempted" },
	[HCR_MIGRATE] = { HC_MIGRATE },
	[HCR_SIGNAL] = { HC_SIGNAL },
	[HCR_TASK] = { HC_INTRUDER, "task" },
	[HCR_IRQ] = { HC_INTRUDER, "irq" },
	[HCR_SOFTIRQ] = { HC_INTRUDER, "softirq" },
	[HCR_TIMER] = { HC_INTRUDER, "timer" },
	[HCR_VECTOR] = { HC_INTRUDER },
};

static void event_of(struct hc_run *r, const struct hc_rec *rec, struct hc_event *e)
{
	const char *comm;
	char buf[64];

	memset(e, 0, sizeof(*e));
	e->tid = rec->tid;
	e->cpu = rec->cpu;
	e->start_ns = rec->ts;
	e->dur_ns = rec->dur;
	e->what = e->actor = e->stack = e->waker_stack = "";
	comm = intern_name(r, rec->comm, sizeof(rec->comm));
	if (rec->type < HCR_TYPES) {
		e->kind = rec_kinds[rec->type].kind;
		if (rec_kinds[rec->type].what)
			e->what = rec_kinds[rec->type].what;
	}
	switch (rec->type) {
	case HCR_SYSCALL:
		e->what = intern(r, syscall_name_fmt(rec->nr, buf, sizeof(buf)));
		e->stack = stack_name(r, comm, rec->kstack, rec->ustack, rec->pid, rec->image, false);
		break;
	case HCR_FAULT:
		e->what = rec->nr ? "major" : "minor";
		e->stack = stack_name(r, comm, rec->kstack, rec->ustack, rec->pid, rec->image, false);
		break;
	case HCR_BLOCK:
		e->what = rec->nr >= 0 ? intern(r, syscall_name_fmt(rec->nr, buf, sizeof(buf)))
				       : "off-cpu";
		e->stack = stack_name(r, comm, rec->kstack, rec->ustack, rec->pid, rec->image, true);
		if (rec->actor_ctx != IRQCTX_TASK || rec->actor_tid)
			set_actor(r, e, rec);
		e->waker_stack = actor_stack(r, e, rec);
		break;
	case HCR_PREEMPT:
		e->stack = comm;	/* no stack is taken: the thread alone */
		set_actor(r, e, rec);	/* the task that took the CPU */
		break;
	case HCR_MIGRATE:
		e->what = internf(r, "cpu %lld -> %lld", (long long)rec->aux, (long long)rec->nr);
		set_actor(r, e, rec);
		break;
	case HCR_SIGNAL:
		e->what = signal_name(r, rec->nr);
		set_actor(r, e, rec);
		e->waker_stack = actor_stack(r, e, rec);
		break;
	case HCR_TASK:
		set_actor(r, e, rec);
		break;
	case HCR_IRQ:
		e->actor = intern_name(r, rec->actor, sizeof(rec->actor));
		e->actor_tid = (uint32_t)rec->nr;
		break;
	case HCR_SOFTIRQ:
		e->actor = intern(r, irqctx_softirq_name((__u32)rec->nr));
		e->actor_tid = (uint32_t)rec->nr;
		break;
	case HCR_TIMER:
		e->actor = kernel_func(r, (__u64)rec->aux);
		break;
	case HCR_VECTOR:
		e->what = rec->nr == HCV_LOCAL_TIMER ? "tick" : "ipi";
		e->actor = vector_name(rec->nr);
		e->actor_tid = (uint32_t)rec->nr;
		break;
	}
}

static int event_cmp(const void *a, const void *b)
{
	const struct hc_event *x = a, *y = b;

	return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

/* ---- the checks ---- */

struct cause_key {
	const char *cause, *stack;
};

static struct hc_cause *cause_add_n(struct hc_run *r, struct hashmap *idx, enum hc_check_id c,
				     const char *cause, const char *stack,
				     const char *waker_stack, uint64_t count, uint64_t time_ns,
				     uint32_t id, bool kthread)
{
	struct cause_key key = { cause, stack };
	bool created;
	size_t *i = hashmap_get(idx, &key, &created);
	struct hc_cause *k;

	if (created) {
		vec_push(&r->causes[c], ((struct hc_cause){ .cause = cause, .stack = stack,
							      .waker_stack = waker_stack,
							      .id = id, .kthread = kthread }));
		*i = r->causes[c].n - 1;
	}
	k = &r->causes[c].v[*i];
	k->count += count;
	k->time_ns += time_ns;
	r->checks[c].count += count;
	r->checks[c].time_ns += time_ns;
	return k;
}

static void cause_add(struct hc_run *r, struct hashmap *idx, enum hc_check_id c,
		      const char *cause, const char *stack, const char *waker_stack,
		      uint64_t dur, uint32_t id, bool kthread)
{
	cause_add_n(r, idx, c, cause, stack, waker_stack, 1, dur, id, kthread);
}

static enum hc_check_id check_of(const struct hc_rec *rec)
{
	switch (rec->type) {
	case HCR_SYSCALL: return HCK_SYSCALLS;
	case HCR_FAULT: return HCK_FAULTS;
	case HCR_BLOCK: return HCK_BLOCKS;
	case HCR_PREEMPT: return HCK_PREEMPTIONS;
	case HCR_MIGRATE: return HCK_MIGRATIONS;
	case HCR_SIGNAL: return HCK_SIGNALS;
	case HCR_TASK: return HCK_INTRUDERS;
	case HCR_IRQ: return HCK_IRQS;
	case HCR_SOFTIRQ: return HCK_SOFTIRQS;
	case HCR_TIMER: return HCK_TIMERS;
	case HCR_VECTOR: return rec->nr == HCV_LOCAL_TIMER ? HCK_TIMERS : HCK_IPIS;
	}
	return HCK_N;
}

/* The cause an event counts under, in its check */
static const char *cause_of(struct hc_run *r, const struct hc_rec *rec,
			    const struct hc_event *e)
{
	switch (rec->type) {
	case HCR_SYSCALL:
	case HCR_FAULT:
		return e->what;
	case HCR_BLOCK:
		if (!e->actor[0])
			return internf(r, "%s, waker not seen", e->what);
		if (e->actor_tid)
			return internf(r, "%s, woken by %s (tid %u)", e->what, e->actor,
				       e->actor_tid);
		return internf(r, "%s, woken by %s", e->what, e->actor);
	case HCR_MIGRATE:
		return e->what;
	case HCR_SIGNAL:
		if (e->actor_tid)
			return internf(r, "%s from %s (tid %u)", e->what, e->actor, e->actor_tid);
		return internf(r, "%s from %s", e->what, e->actor);
	case HCR_PREEMPT:
	case HCR_TASK:
		return internf(r, "%s (tid %u)", e->actor, e->actor_tid);
	case HCR_IRQ:
		return internf(r, "irq %u %s", e->actor_tid, e->actor);
	default:
		return e->actor;
	}
}

static int cause_cmp(const void *a, const void *b)
{
	const struct hc_cause *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->time_ns != y->time_ns)
		return x->time_ns > y->time_ns ? -1 : 1;
	if (strcmp(x->cause, y->cause))
		return strcmp(x->cause, y->cause);
	return strcmp(x->stack, y->stack);
}

static int sys_cmp(const void *a, const void *b)
{
	const struct hc_syscall_hist *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->nr < y->nr ? -1 : x->nr > y->nr;
}

/* The online CPUs outside the hot ones, as a list ("" if none) */
static void cpus_outside(const struct hc_run *r, const struct cpu_list *hot, char *buf,
			 size_t size)
{
	struct cpu_list on = { 0 }, rest = { 0 };
	char err[128];

	buf[0] = 0;
	if (!parse_cpu_list(r->cfg.online, MAX_CPUS_SUPPORTED, &on, err, sizeof(err)))
		cpu_list_minus(&on, hot, &rest);
	cpu_list_str(&rest, buf, size);
	cpu_list_free(&on);
	cpu_list_free(&rest);
}

/* Unpinned: the CPU to give the hot thread (the last online one) */
static uint32_t cpu_to_pin(const struct hc_run *r)
{
	struct cpu_list on = { 0 };
	char err[128];
	uint32_t cpu = 0;

	if (!parse_cpu_list(r->cfg.online, MAX_CPUS_SUPPORTED, &on, err, sizeof(err)) && on.n)
		cpu = on.cpus[on.n - 1];
	cpu_list_free(&on);
	return cpu;
}

/* The fix of a task that took a hot CPU (an intruder, or the taker of a
 * preemption): move it off, naming its tid and the CPUs it can go to */
static const char *fix_taker(struct hc_run *r, enum hc_check_id c, const struct hc_cause *k)
{
	char hot[256], others[256];
	struct cpu_list one = { 0 };
	const struct cpu_list *hotl = r->cpus;
	const char *tail;
	uint32_t pin = 0;

	if (r->unpinned) {
		pin = cpu_to_pin(r);
		cpu_list_add(&one, pin);
		hotl = &one;
	}
	cpu_list_str(hotl, hot, sizeof(hot));
	cpus_outside(r, hotl, others, sizeof(others));
	cpu_list_free(&one);
	if (r->unpinned && c == HCK_PREEMPTIONS && k->tid && others[0])
		tail = internf(r, "the hot threads are not pinned: first pin thread %u to a CPU of "
			       "its own (taskset -pc %u %u), then ", k->tid, pin, k->tid);
	else
		tail = "";
	if (!others[0] && k->id) {
		if (c == HCK_PREEMPTIONS && k->tid)
			return internf(r, "no CPU outside CPU %s is online on this machine: tid %u "
				       "cannot be moved off it; give the hot thread priority over "
				       "it instead (chrt -f -p 50 %u), or run on a machine with a "
				       "CPU to spare", hot, k->id, k->tid);
		return internf(r, "no CPU outside CPU %s is online on this machine: %s %u "
			       "cannot be kept off it; run on a machine with a CPU to spare", hot,
			       k->kthread ? "kernel thread" : "tid", k->id);
	}
	if (k->kthread)
		return internf(r, "%sa kernel thread (tid %u) takes CPU %s: boot with "
			       "isolcpus=domain,managed_irq,%s nohz_full=%s rcu_nocbs=%s to keep "
			       "most of them away (now isolated = %s)", tail, k->id, hot, hot, hot,
			       hot, isol_or_none(r->cfg.isolated));
	if (!k->id)
		return internf(r, "%swhat took CPU %s has no thread id to move: keep every other "
			       "task off it with isolcpus=%s or a cpuset (now isolated = %s)", tail,
			       hot, hot, isol_or_none(r->cfg.isolated));
	return internf(r, "%smove tid %u off CPU %s (taskset -pc %s %u) and keep every other "
		       "task off with isolcpus=%s or a cpuset (now isolated = %s)", tail, k->id, hot,
		       others, k->id, hot, isol_or_none(r->cfg.isolated));
}

/* The fix of the top cause of check c, on this machine.  The stacks are
 * not in it: the table prints them below, a frame a line, and JSON has
 * them in "causes" */
static const char *fix_of(struct hc_run *r, enum hc_check_id c, const struct hc_cause *k)
{
	uint32_t cpu = r->cpus->n ? r->cpus->cpus[0] : 0;
	char buf[1024], aff[SYSCONF_STR], eff[SYSCONF_STR], path[64];
	size_t n;
	const char *leaf = hc_stack_leaf(k->stack, &n);
	char at[300] = "";

	if (leaf)
		snprintf(at, sizeof(at), " in %.*s", (int)(n > 256 ? 256 : n), leaf);
	switch (c) {
	case HCK_SYSCALLS:
		return internf(r, "take the calls off the hot path (batch them, or hand them to "
			       "another thread); made%s", at[0] ? at : " from an unknown place");
	case HCK_FAULTS:
		return internf(r, "%s%s: mlockall(MCL_CURRENT|MCL_FUTURE) and touch the memory "
			       "(heap, stacks, buffers) before the hot loop; faulted%s",
			       r->memlock.valid ? "" : "memory locking unknown",
			       r->memlock.valid ? memlock_verdict(&r->memlock) : "",
			       at[0] ? at : " at an unknown place");
	case HCK_BLOCKS:
		return internf(r, "busy-poll instead, or move the wait to another thread; it "
			       "waits%s", at[0] ? at : " at an unknown place");
	case HCK_PREEMPTIONS:
	case HCK_INTRUDERS:
		return fix_taker(r, c, k);
	case HCK_MIGRATIONS:
		if (k->tid)
			return internf(r, "pin thread %u to one CPU: taskset -pc %u %u (the CPU "
				       "it moved to), or sched_setaffinity in the application",
				       k->tid, k->id, k->tid);
		return internf(r, "pin the hot thread to one CPU: taskset -pc %u, or "
			       "sched_setaffinity in the application", k->id);
	case HCK_SIGNALS:
		return internf(r, "stop the sender, or block the signal in the hot thread "
			       "(pthread_sigmask) and take it on another thread");
	case HCK_IRQS:
		snprintf(path, sizeof(path), "/proc/irq/%u/smp_affinity_list", k->id);
		isol_read_trimmed(path, aff, sizeof(aff));
		snprintf(path, sizeof(path), "/proc/irq/%u/effective_affinity_list", k->id);
		isol_read_trimmed(path, eff, sizeof(eff));
		isol_fix_irq(k->id, aff[0] ? aff : NULL, eff, cpu, r->cpus, r->cfg.online,
				buf, sizeof(buf));
		return intern(r, buf);
	case HCK_SOFTIRQS:
		isol_fix_softirq(k->cause, cpu, &r->cfg, buf, sizeof(buf));
		return intern(r, buf);
	case HCK_TIMERS: {
		/* "local_timer", "local_timer: CALLBACKS" or a callback alone */
		const char *cb = k->cause;

		if (!strncmp(cb, "local_timer", 11))
			cb = cb[11] == ':' ? cb + 13 : NULL;
		if (!cb || strstr(cb, "tick"))
			isol_fix_tick(&r->cfg, cpu, buf, sizeof(buf));
		else
			isol_fix_hrtimer(cb, cpu, buf, sizeof(buf));
		return intern(r, buf);
	}
	case HCK_IPIS:
		isol_fix_ipi(k->cause, cpu, buf, sizeof(buf));
		return intern(r, buf);
	default:
		return "";
	}
}

/* The configuration of the hot CPUs: one cause per missing setting */
static void check_isolation(struct hc_run *r, struct hashmap *idx)
{
	char list[SYSCONF_STR], fix[1024];

	for (size_t i = 0; i < r->cpus->n; i++) {
		uint32_t cpu = r->cpus->cpus[i];
		struct hc_cause *k;

		if (!isol_in_list(r->cfg.isolated, cpu))
			cause_add(r, idx, HCK_ISOLATION,
				  internf(r, "CPU %u not in isolcpus (isolated = %s)", cpu,
					  isol_or_none(r->cfg.isolated)), "", "", 0, cpu, false);
		if (!isol_in_list(r->cfg.nohz_full, cpu))
			cause_add(r, idx, HCK_ISOLATION,
				  internf(r, "CPU %u not nohz_full (nohz_full = %s)", cpu,
					  isol_or_none(r->cfg.nohz_full)), "", "", 0, cpu, false);
		snprintf(list, sizeof(list), "%s", r->cfg.cmd[CMD_RCU_NOCBS].val);
		if (!r->cfg.cmd[CMD_RCU_NOCBS].has || !isol_in_list(list, cpu))
			cause_add(r, idx, HCK_ISOLATION,
				  internf(r, "CPU %u not rcu_nocbs (rcu_nocbs = %s)", cpu,
					  isol_rcu_nocbs(&r->cfg)), "", "", 0, cpu, false);
		for (size_t n = 0; n < r->irq_after.n; n++) {
			const struct irq_line *l = &r->irq_after.lines[n];
			char path[64], aff[SYSCONF_STR];
			char *end;
			unsigned long irq = strtoul(l->id, &end, 10);

			if (end == l->id || *end)
				continue;	/* LOC, RES, ...: per-CPU, not movable */
			snprintf(path, sizeof(path), "/proc/irq/%lu/smp_affinity_list", irq);
			isol_read_trimmed(path, aff, sizeof(aff));
			if (!aff[0] || !isol_in_list(aff, cpu))
				continue;
			cause_add(r, idx, HCK_ISOLATION,
				  internf(r, "IRQ %lu may run on CPU %u (smp_affinity_list = %s)",
					  irq, cpu, aff), "", "", 0, (uint32_t)irq, false);
		}
		(void)k;
	}
	if (r->causes[HCK_ISOLATION].n) {
		char hot[256], others[256];
		size_t len, irqs = 0;

		cpu_list_str(r->cpus, hot, sizeof(hot));
		cpus_outside(r, r->cpus, others, sizeof(others));
		len = (size_t)snprintf(fix, sizeof(fix), "boot with isolcpus=domain,managed_irq,%s "
				       "nohz_full=%s rcu_nocbs=%s", hot, hot, hot);
		for (size_t i = 0; i < r->causes[HCK_ISOLATION].n; i++) {
			const struct hc_cause *k = &r->causes[HCK_ISOLATION].v[i];

			if (strncmp(k->cause, "IRQ ", 4) || len + 16 >= sizeof(fix))
				continue;
			if (!others[0]) {
				if (!irqs)
					len += (size_t)snprintf(fix + len, sizeof(fix) - len,
						"; IRQ %u and the others cannot be moved: no CPU "
						"outside CPU %s is online on this machine", k->id,
						hot);
			} else {
				len += (size_t)snprintf(fix + len, sizeof(fix) - len, "%s%u",
							irqs ? " " : "; and move the IRQs: for i in ",
							k->id);
			}
			irqs++;
		}
		if (irqs && others[0] && len + 64 < sizeof(fix))
			snprintf(fix + len, sizeof(fix) - len,
				 "; do echo %s > /proc/irq/$i/smp_affinity_list; done", others);
		r->checks[HCK_ISOLATION].fix = intern(r, fix);
	}
}

/* Whether a record belongs to the window [window_start_ns, window_end_ns]
 * (0: open on that side).  An interrupt, a softirq, a timer callback or a
 * vector by its entry, the way /proc/interrupts counts it between its two
 * readings; a span of a task (a syscall, a block, a preemption, another
 * task on the CPU) when it overlaps the window.  Outside it are the events
 * of the attach and detach themselves (enabling a tracepoint patches the
 * kernel's text, and each patch sends function-call IPIs to every CPU). */
static bool in_window(const struct hc_run *r, const struct hc_rec *rec)
{
	__u64 end = rec->ts;

	switch (rec->type) {
	case HCR_IRQ:
	case HCR_SOFTIRQ:
	case HCR_TIMER:
	case HCR_VECTOR:
		break;
	default:
		end = rec->ts + rec->dur;
	}
	return !(r->window_start_ns && end < r->window_start_ns) &&
	       !(r->window_end_ns && rec->ts > r->window_end_ns);
}

/* The timer row counts each timer interrupt once.  The local timer
 * vector (the tick) runs hrtimer callbacks inside it (tick_nohz_handler,
 * hrtimer_wakeup, ...): those are not interrupts of their own, but what
 * the tick did, so they name its cause ("local_timer: tick_nohz_handler")
 * instead of counting again (hc_on_record places them as they come).  A
 * callback outside any local_timer span (in the HRTIMER softirq, or one
 * whose tick began before the window) counts by itself.  The cause of a
 * tick identity: its callbacks' names, in the order first seen. */
static const char *tick_callbacks(struct hc_run *r, const struct hc_rec *k)
{
	const __u64 slot[HC_TICK_CALLBACKS] = { k->wustack, k->wkstack, k->image, k->wimage };
	const char *c = NULL;

	if (k->flags & 0x80000000u)
		c = kernel_func(r, 0);
	for (int j = 0; j < HC_TICK_CALLBACKS && slot[j]; j++) {
		const char *name = kernel_func(r, slot[j]);

		if (!c)
			c = name;
		else if (!strstr(c, name))
			c = internf(r, "%s+%s", c, name);
	}
	return c;
}

struct build {
	struct hc_run *r;
	struct hashmap **idx;
	struct hashmap *folds;		/* struct fold_key -> index in fold */
	VEC(struct hc_fold) fold;
};

struct fold_key {
	const char *stack;	/* interned */
	int kind;
	int waker;
};

static void fold_add(struct build *b, enum hc_kind kind, bool waker, const char *stack,
		     uint64_t count, uint64_t time_ns)
{
	struct fold_key key = { stack, kind, waker };
	bool created;
	size_t *i = hashmap_get(b->folds, &key, &created);

	if (created) {
		vec_push(&b->fold, ((struct hc_fold){ .kind = kind, .waker = waker,
						      .stack = stack }));
		*i = b->fold.n - 1;
	}
	b->fold.v[*i].count += count;
	b->fold.v[*i].time_ns += time_ns;
}

/* One identity: its cause, its syscall row, its folded lines */
static void build_one(const void *key, void *val, void *arg)
{
	const struct hc_rec *k = key;
	struct hc_agg *a = val;
	struct build *b = arg;
	struct hc_run *r = b->r;
	enum hc_check_id c = check_of(k);
	struct hc_event e;
	struct hc_cause *cause;
	const char *stack, *name, *cb;
	uint32_t id;

	if (c == HCK_N)
		return;
	event_of(r, k, &e);
	stack = c == HCK_SYSCALLS || c == HCK_FAULTS || c == HCK_BLOCKS ? e.stack : "";
	cb = is_tick(k) ? tick_callbacks(r, k) : NULL;
	name = cb ? internf(r, "%s: %s", e.actor, cb) : cause_of(r, k, &e);
	id = k->type == HCR_IRQ ? (uint32_t)k->nr :
	     k->type == HCR_MIGRATE ? (uint32_t)k->nr : e.actor_tid;
	cause = cause_add_n(r, b->idx[c], c, name, stack, e.waker_stack, a->count, a->time_ns, id,
			    k->flags & HCR_F_KTHREAD);
	if (!cause->tid) {
		cause->tid = a->tid;
		cause->pid = k->pid;
	}
	/* identities that read as one cause (a task's comm and flags, a tick's
	 * callbacks) arrive as one */
	cadence_take(&cause->arrivals, &a->arrivals);
	if (k->type == HCR_SYSCALL) {
		struct hc_syscall_hist *s = NULL;

		for (size_t j = 0; j < r->sys.n && !s; j++)
			if (r->sys.v[j].nr == k->nr)
				s = &r->sys.v[j];
		if (!s) {
			vec_push(&r->sys, ((struct hc_syscall_hist){ .nr = k->nr }));
			s = &r->sys.v[r->sys.n - 1];
		}
		s->count += a->count;
	}
	if (e.kind <= HC_SIGNAL) {
		fold_add(b, e.kind, false, e.stack[0] ? e.stack : "[no stack]", a->count,
			 a->time_ns);
		if (e.kind == HC_BLOCK)
			fold_add(b, e.kind, true,
				 e.waker_stack[0] ? e.waker_stack :
				 e.actor[0] ? e.actor : "[waker unknown]", a->count, a->time_ns);
	}
}

/* The rows of the CPUs: not checked when the hot threads may run on every
 * CPU (the whole machine would be their "intruders") */
static bool check_of_cpus(enum hc_check_id c)
{
	return c >= HCK_INTRUDERS;
}

/* The steps of stolen time into the timeline, and what it cannot say */
static void steal_events(struct hc_run *r)
{
	const char *unknown = NULL;

	for (size_t i = 0; i < r->steal_steps.n; i++) {
		const struct hc_steal_step *s = &r->steal_steps.v[i];
		struct hc_event *e = &r->tl.ev[r->tl.n++];

		*e = (struct hc_event){ .kind = HC_STEAL, .cpu = (int32_t)s->cpu,
					.start_ns = s->from_ts, .dur_ns = s->to_ts - s->from_ts,
					.stolen_ns = s->stolen, .what = "steal", .actor = "",
					.stack = "", .waker_stack = "" };
	}
	for (size_t i = 0; r->stolen && i < r->cpus->n; i++) {
		if (r->stolen[i].status == STEAL_NOT_REPORTED && !unknown)
			unknown = "steal time is not reported by the hypervisor on this machine";
		else if (r->stolen[i].status == STEAL_UNAVAILABLE)
			unknown = internf(r, "steal time is not available on this kernel (%s)",
					  steal_unavailable_why());
	}
	if (r->unpinned)
		unknown = "steal time was not read: the hot threads are not pinned";
	else if (!r->stolen && r->cpus && r->cpus->n)
		unknown = "steal time was not read";
	r->tl.steal_unknown = unknown;
	r->tl.steal_reported = !unknown && r->stolen;
}

void hc_collect_build(struct hc_run *r)
{
	struct hashmap *idx[HCK_N];
	struct build b = { .r = r, .idx = idx };

	r->strings = hashmap_new(0, 1);
	r->stack_names = hashmap_new(sizeof(struct stack_key), sizeof(const char *));
	b.folds = hashmap_new(sizeof(struct fold_key), sizeof(size_t));
	for (int c = 0; c < HCK_N; c++) {
		idx[c] = hashmap_new(sizeof(struct cause_key), sizeof(size_t));
		r->checks[c] = (struct hc_check){ .name = hc_check_names[c], .top_cause = "",
						   .fix = "" };
	}
	/* the callbacks no tick of their CPU took: each counts by itself */
	for (size_t i = 0; i < r->pending.n; i++)
		count_rec(r, &r->pending.v[i]);
	r->pending.n = 0;
	if (r->agg)
		hashmap_each(r->agg, build_one, &b);
	r->tl.ev = xcalloc(r->kept.n + r->steal_steps.n + 1, sizeof(*r->tl.ev));
	for (size_t i = 0; i < r->kept.n; i++)
		event_of(r, &r->kept.v[i], &r->tl.ev[r->tl.n++]);
	steal_events(r);
	if (r->tl.n)
		qsort(r->tl.ev, r->tl.n, sizeof(*r->tl.ev), event_cmp);
	r->tl.realtime_offset_ns = r->realtime_offset_ns;
	r->tl.window_start_ns = r->window_start_ns;
	r->tl.window_end_ns = r->window_end_ns;
	r->tl.events_dropped = r->losses[LOSS_RINGBUF] + r->bad_records;
	r->tl.events_not_kept = r->not_kept;
	r->tl.complete_until_ns = r->not_kept ? r->first_not_kept_ns : 0;
	r->tl.marks = r->marks.v;
	r->tl.n_marks = r->marks.n;
	if (r->losses[LOSS_RINGBUF] || r->bad_records)
		r->tl.offcpu_incomplete = "events were lost";
	else if (r->losses[LOSS_START_FULL] || r->losses[LOSS_END_UNSEEN])
		r->tl.offcpu_incomplete = "off-CPU intervals were lost";
	r->tl.folds = b.fold.v;
	r->tl.n_folds = b.fold.n;
	if (!r->unpinned)
		check_isolation(r, idx[HCK_ISOLATION]);
	for (int c = 0; c < HCK_N; c++) {
		struct hc_check *k = &r->checks[c];

		if (r->causes[c].n)	/* v is NULL when empty, which qsort may not be given */
			qsort(r->causes[c].v, r->causes[c].n, sizeof(*r->causes[c].v), cause_cmp);
		k->silent = !k->count;
		if (r->unpinned && check_of_cpus(c)) {
			k->skipped = c == HCK_INTRUDERS ?
				internf(r, "not checked: the hot threads are not pinned (CPUs %.40s, "
					"as any task); pin them (taskset) or give their CPUs with -C",
					r->affinity ? r->affinity : "?") :
				"not checked: the hot threads are not pinned (see cpu intruders)";
			k->silent = true;
			continue;
		}
		if (!k->silent) {
			const struct hc_cause *top = &r->causes[c].v[0];
			char t[40];

			if (top->time_ns) {
				t[0] = ' ';
				t[1] = '(';
				fmt_dur(t + 2, sizeof(t) - 3, top->time_ns, DUR_CELL);
				strcat(t, ")");
			} else {
				t[0] = 0;
			}
			if (c == HCK_ISOLATION)
				k->top_cause = r->causes[c].n > 1 ?
					internf(r, "%s (and %zu more)", top->cause,
						r->causes[c].n - 1) : top->cause;
			else if (stack_leaf(r, top->stack)[0])
				k->top_cause = internf(r, "%s x%llu%s in %s", top->cause,
						       (unsigned long long)top->count, t,
						       stack_leaf(r, top->stack));
			else
				k->top_cause = internf(r, "%s x%llu%s", top->cause,
						       (unsigned long long)top->count, t);
			if (c != HCK_ISOLATION)
				k->fix = fix_of(r, c, top);
		}
		hashmap_free(idx[c]);
		idx[c] = NULL;
	}
	for (int c = 0; c < HCK_N; c++)
		hashmap_free(idx[c]);
	hashmap_free(b.folds);
	for (size_t j = 0; j < r->sys.n; j++) {
		char buf[64];

		r->sys.v[j].name = intern(r, syscall_name_fmt(r->sys.v[j].nr, buf, sizeof(buf)));
	}
	if (r->sys.n)
		qsort(r->sys.v, r->sys.n, sizeof(*r->sys.v), sys_cmp);
	r->tl.checks = r->checks;
	r->tl.n_checks = HCK_N;
}

const struct hc_timeline *hc_timeline(const struct hc_run *r)
{
	return &r->tl;
}

static void agg_free(const void *key, void *val, void *arg)
{
	(void)key;
	(void)arg;
	cadence_free(&((struct hc_agg *)val)->arrivals);
}

void hc_run_free(struct hc_run *r)
{
	if (r->agg)
		hashmap_each(r->agg, agg_free, NULL);
	hashmap_free(r->agg);
	free(r->kept.v);
	free(r->marks.v);
	free(r->pending.v);
	free(r->tl.ev);
	free(r->tl.folds);
	for (int c = 0; c < HCK_N; c++) {
		for (size_t i = 0; i < r->causes[c].n; i++)
			cadence_free(&r->causes[c].v[i].arrivals);
		free(r->causes[c].v);
	}
	free(r->sys.v);
	free(r->stolen);
	free(r->steal_steps.v);
	hashmap_free(r->stack_names);
	hashmap_free(r->strings);
	irq_snap_free(&r->irq_before);
	irq_snap_free(&r->irq_after);
	memset(r, 0, sizeof(*r));
}
