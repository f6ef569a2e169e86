// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* schedsilence's verdict logic, fed with the BPF records (see silence.h).
 *
 * What intrudes on a watched CPU:
 * - a switch to a task that is neither idle (pid 0) nor allowed; it
 *   intrudes until the next switch on that CPU.  A task found running
 *   when tracing began (the first switch away from it) counts once, from
 *   the start.  Switches to allowed tasks or to idle are silence.
 * - every span: hard IRQ, softirq, x86 vector (the local timer is the
 *   tick; the IPI vectors are "ipi"), work item, hrtimer callback;
 * - a task (not allowed) migrated onto the CPU.
 * Wakeups and IPIs sent to the CPU are not counted themselves: they are
 * causes, kept to name who woke a task and who sent the IPIs. */
#include "model.h"
#include "irqctx.h"
#include "xalloc.h"
#include "hashmap.h"
#include "vec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[SK_KINDS] = {
	[SK_TASK] = "task",
	[SK_IRQ] = "irq",
	[SK_SOFTIRQ] = "softirq",
	[SK_TIMER_TICK] = "timer_tick",
	[SK_IPI] = "ipi",
	[SK_WORKQUEUE] = "workqueue",
	[SK_HRTIMER] = "hrtimer",
	[SK_MIGRATION] = "migration",
};

static const char *const vector_names[SS_VEC_KINDS] = {
	[SS_VEC_LOCAL_TIMER] = "local_timer",
	[SS_VEC_RESCHEDULE] = "reschedule",
	[SS_VEC_CALL_FUNCTION] = "call_function",
	[SS_VEC_CALL_FUNCTION_SINGLE] = "call_function_single",
	[SS_VEC_IRQ_WORK] = "irq_work",
	[SS_VEC_X86_PLATFORM_IPI] = "x86_platform_ipi",
	[SS_VEC_ERROR_APIC] = "error_apic",
	[SS_VEC_SPURIOUS_APIC] = "spurious_apic",
	[SS_VEC_THERMAL_APIC] = "thermal_apic",
	[SS_VEC_DEFERRED_ERROR_APIC] = "deferred_error_apic",
	[SS_VEC_THRESHOLD_APIC] = "threshold_apic",
};

/* include/linux/tick.h, TICK_DEP_BIT_* */
static const char *const tick_dep_names[] = {
	"POSIX_TIMER", "PERF_EVENTS", "SCHED", "CLOCK_UNSTABLE", "RCU", "RCU_EXP",
};

const char *silence_kind_name(enum silence_kind k)
{
	return k < SK_KINDS ? kind_names[k] : "unknown";
}

const char *silence_vector_name(uint32_t vec)
{
	return vec < SS_VEC_KINDS ? vector_names[vec] : "vector";
}

void silence_tick_deps_str(uint32_t deps, char *buf, size_t size)
{
	size_t off = 0;

	buf[0] = 0;
	for (size_t b = 0; b < 32 && off < size; b++) {
		if (!(deps & (1u << b)))
			continue;
		if (b < sizeof(tick_dep_names) / sizeof(tick_dep_names[0]))
			off += snprintf(buf + off, size - off, "%s%s", off ? "," : "",
					tick_dep_names[b]);
		else
			off += snprintf(buf + off, size - off, "%sbit%zu", off ? "," : "", b);
	}
}

/* Rows are found by (cpu, kind, id, addr) */
struct row_key {
	uint32_t cpu, kind, id, pad;
	uint64_t addr;
};

struct silence *silence_new(const struct silence_cfg *cfg)
{
	struct silence *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->cfg = *cfg;
	s->ncpus = cfg->cpus ? cfg->cpus->n : 0;
	s->cpus = calloc(s->ncpus ? s->ncpus : 1, sizeof(*s->cpus));
	s->row_of = hashmap_new(sizeof(struct row_key), sizeof(size_t));
	if (!s->cpus) {
		silence_free(s);
		return NULL;
	}
	for (size_t i = 0; i < s->ncpus; i++) {
		s->cpus[i].cpu = cfg->cpus->cpus[i];
		s->cpus[i].cur_tl = SIZE_MAX;
	}
	return s;
}

void silence_free(struct silence *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nrows; i++)
		cadence_free(&s->rows[i].arrivals);
	free(s->rows);
	hashmap_free(s->row_of);
	free(s->timeline);
	free(s->senders);
	free(s->cpus);
	free(s);
}

size_t silence_timeline_cap(const struct silence_cfg *cfg)
{
	return cfg->timeline_keep > cfg->timeline_max ? cfg->timeline_keep : cfg->timeline_max;
}

struct silence_cpu *silence_cpu_state(struct silence *s, uint32_t cpu)
{
	for (size_t i = 0; i < s->ncpus; i++)
		if (s->cpus[i].cpu == cpu)
			return &s->cpus[i];
	return NULL;
}

bool silence_allowed(const struct silence_cfg *cfg, uint32_t pid, uint64_t start,
		     const char *comm)
{
	const struct id_list *l = cfg->allow_tids;

	for (size_t i = 0; l && i < l->n; i++) {
		uint64_t lo, hi;

		if (l->ids[i] != pid)
			continue;
		if (!l->who)
			return true;
		/* the thread named, not a later one given its number */
		task_id_start_ns(&l->who[i], &lo, &hi);
		if (start >= lo && start < hi)
			return true;
	}
	for (size_t i = 0; i < cfg->n_allow_comms; i++)
		if (!strncmp(cfg->allow_comms[i], comm, SILENCE_COMM_LEN))
			return true;
	return false;
}

/* ---- rows, found through a map on (cpu, kind, id, addr) ---- */

static struct row_key row_key(uint32_t cpu, enum silence_kind kind, uint32_t id,
			      uint64_t addr)
{
	return (struct row_key){ .cpu = cpu, .kind = kind, .id = id, .addr = addr };
}

/* the index of the rows by key, again (after they moved) */
static void rows_reindex(struct silence *s)
{
	hashmap_free(s->row_of);
	s->row_of = hashmap_new(sizeof(struct row_key), sizeof(size_t));
	for (size_t i = 0; i < s->nrows; i++) {
		const struct intruder *r = &s->rows[i];
		struct row_key k = row_key(r->cpu, r->kind, r->id, r->addr);

		*(size_t *)hashmap_get(s->row_of, &k, NULL) = i;
	}
}

static size_t row_get(struct silence *s, uint32_t cpu, enum silence_kind kind,
		      uint32_t id, uint64_t addr, const char *name)
{
	struct row_key k = row_key(cpu, kind, id, addr);
	bool created;
	size_t *idx = hashmap_get(s->row_of, &k, &created);
	struct intruder *r;

	if (!created) {
		r = &s->rows[*idx];
		if (name && name[0])	/* a task may rename itself */
			snprintf(r->name, sizeof(r->name), "%s", name);
		return *idx;
	}
	*idx = s->nrows;
	array_reserve(s->rows, s->cap, s->nrows + 1);
	r = &s->rows[s->nrows];
	memset(r, 0, sizeof(*r));
	r->cpu = cpu;
	r->kind = kind;
	r->id = id;
	r->addr = addr;
	snprintf(r->name, sizeof(r->name), "%s", name ? name : "");
	return s->nrows++;
}

/* One intruding event that began at ts and lasted dur (unknown yet for a
 * task: closed by task_close()); returns its timeline index or SIZE_MAX */
static size_t intrude(struct silence *s, size_t row, uint64_t ts, uint64_t dur)
{
	struct intruder *r = &s->rows[row];
	bool resumed = r->left_runnable;

	if (!r->count || ts < r->first_ts)
		r->first_ts = ts;
	if (ts > r->last_ts)
		r->last_ts = ts;
	r->count++;
	/* an arrival, unless it resumes a task after a preemption */
	if (!r->left_runnable)
		cadence_add(&r->arrivals, ts, &s->arrivals_kept);
	r->left_runnable = false;
	r->total_ns += dur;
	if (dur > r->max_ns)
		r->max_ns = dur;
	if (s->ntimeline < silence_timeline_cap(&s->cfg)) {
		array_reserve(s->timeline, s->timeline_cap, s->ntimeline + 1);
		s->timeline[s->ntimeline] = (struct timeline_ev){ ts, dur, row, resumed };
		return s->ntimeline++;
	}
	s->timeline_dropped++;
	return SIZE_MAX;
}

static void task_close(struct silence *s, struct silence_cpu *c, uint64_t ts)
{
	struct intruder *r = &s->rows[c->cur_row];
	uint64_t d = ts > c->since ? ts - c->since : 0;

	r->total_ns += d;
	if (d > r->max_ns)
		r->max_ns = d;
	if (c->cur_tl != SIZE_MAX)
		s->timeline[c->cur_tl].dur = d;
	c->cur_intruder = false;
	c->cur_tl = SIZE_MAX;
}

static void on_switch(struct silence *s, struct silence_cpu *c, const struct ss_event *e)
{
	char next[SILENCE_COMM_LEN], prev[SILENCE_COMM_LEN];

	snprintf(next, sizeof(next), "%.*s", SILENCE_COMM_LEN - 1, e->name);
	snprintf(prev, sizeof(prev), "%.*s", SILENCE_COMM_LEN - 1, e->name2);
	if (c->cur_intruder && c->cur_pid == e->pid2) {
		if (e->kind || !e->id) {	/* preempted, or left the CPU runnable */
			s->rows[c->cur_row].preempted++;
			s->rows[c->cur_row].left_runnable = true;
		}
		task_close(s, c, e->ts);
	} else if (!c->known && e->pid2 && !silence_allowed(&s->cfg, e->pid2, e->start2, prev)) {
		/* it was on the CPU when tracing began */
		uint64_t t0 = s->cfg.start_ts && s->cfg.start_ts < e->ts ? s->cfg.start_ts : e->ts;
		size_t row = row_get(s, c->cpu, SK_TASK, e->pid2, 0, prev);

		s->rows[row].kthread = e->flags2 & SS_TASK_KTHREAD;
		s->rows[row].running_at_start = true;
		intrude(s, row, t0, e->ts - t0);
	} else if (c->cur_intruder) {
		/* a switch was lost: close what was open at this switch */
		task_close(s, c, e->ts);
	}
	c->known = true;
	c->cur_pid = e->pid;
	if (!e->pid) {
		c->idle_switch_ins++;
		return;
	}
	if (silence_allowed(&s->cfg, e->pid, e->start, next)) {
		c->allowed_switch_ins++;
		return;
	}
	c->cur_row = row_get(s, c->cpu, SK_TASK, e->pid, 0, next);
	s->rows[c->cur_row].kthread = e->flags & SS_TASK_KTHREAD;
	c->cur_tl = intrude(s, c->cur_row, e->ts, 0);
	c->cur_intruder = true;
	c->since = e->ts;
}

static void on_wakeup(struct silence *s, struct silence_cpu *c, const struct ss_event *e)
{
	char comm[SILENCE_COMM_LEN];
	struct intruder *r;
	size_t row;

	snprintf(comm, sizeof(comm), "%.*s", SILENCE_COMM_LEN - 1, e->name);
	if (!e->pid || silence_allowed(&s->cfg, e->pid, e->start, comm))
		return;
	row = row_get(s, c->cpu, SK_TASK, e->pid, 0, comm);	/* may move rows */
	r = &s->rows[row];
	r->kthread = e->flags & SS_TASK_KTHREAD;
	r->wakeups++;
	r->waker_ctx = e->kind;
	if (e->kind != IRQCTX_TASK) {
		r->waker_pid = 0;
		snprintf(r->waker, sizeof(r->waker), "%s", irqctx_label(e->kind));
		return;
	}
	r->waker_pid = e->pid2;
	snprintf(r->waker, sizeof(r->waker), "%.*s", SILENCE_COMM_LEN - 1, e->name2);
}

static void on_migrate(struct silence *s, struct silence_cpu *c, const struct ss_event *e)
{
	char comm[SILENCE_COMM_LEN];
	size_t row;

	snprintf(comm, sizeof(comm), "%.*s", SILENCE_COMM_LEN - 1, e->name);
	if (!e->pid || silence_allowed(&s->cfg, e->pid, e->start, comm))
		return;
	row = row_get(s, c->cpu, SK_MIGRATION, e->pid, 0, comm);
	s->rows[row].kthread = e->flags & SS_TASK_KTHREAD;
	s->rows[row].from_cpu = e->flags2;
	intrude(s, row, e->ts, 0);
}

static void on_span(struct silence *s, struct silence_cpu *c, const struct ss_event *e)
{
	char name[SS_NAME_LEN + 1];
	enum silence_kind kind;
	uint32_t id = e->id;
	uint64_t addr = 0;

	snprintf(name, sizeof(name), "%.*s", SS_NAME_LEN, e->name);
	switch (e->kind) {
	case SS_SPAN_IRQ:
		kind = SK_IRQ;
		break;
	case SS_SPAN_SOFTIRQ:
		kind = SK_SOFTIRQ;
		snprintf(name, sizeof(name), "%s", irqctx_softirq_name(id));
		break;
	case SS_SPAN_VECTOR:
		snprintf(name, sizeof(name), "%s", silence_vector_name(id));
		switch (id) {
		case SS_VEC_LOCAL_TIMER:
			kind = SK_TIMER_TICK;
			break;
		case SS_VEC_RESCHEDULE:
		case SS_VEC_CALL_FUNCTION:
		case SS_VEC_CALL_FUNCTION_SINGLE:
		case SS_VEC_IRQ_WORK:
		case SS_VEC_X86_PLATFORM_IPI:
			kind = SK_IPI;
			break;
		default:
			kind = SK_IRQ;	/* APIC error, spurious, thermal, MCE */
			break;
		}
		break;
	case SS_SPAN_WORK:
		kind = SK_WORKQUEUE;
		id = SILENCE_NO_ID;
		addr = e->addr;
		name[0] = 0;	/* named by the caller (kallsyms) */
		break;
	case SS_SPAN_HRTIMER:
		kind = SK_HRTIMER;
		id = SILENCE_NO_ID;
		addr = e->addr;
		name[0] = 0;
		break;
	default:
		s->events_ignored++;
		return;
	}
	if (e->kind == SS_SPAN_VECTOR && id < SS_VEC_KINDS && e->ts >= s->cfg.inner_start &&
	    (!s->cfg.inner_end || e->ts <= s->cfg.inner_end))
		c->vec_inner[id]++;
	if (kind == SK_IRQ && e->kind == SS_SPAN_VECTOR)
		id = SILENCE_NO_ID;
	intrude(s, row_get(s, c->cpu, kind, id, addr, name), e->ts, e->dur);
}

static void on_ipi_send(struct silence *s, struct silence_cpu *c, const struct ss_event *e)
{
	struct ipi_sender *p;
	char comm[SILENCE_COMM_LEN];
	/* sent from interrupt context: by the interrupt, not the task */
	uint32_t pid = e->kind == IRQCTX_TASK ? e->pid : 0;

	if (e->kind != IRQCTX_TASK)
		snprintf(comm, sizeof(comm), "%s", irqctx_label(e->kind));
	else
		snprintf(comm, sizeof(comm), "%.*s", SILENCE_COMM_LEN - 1, e->name2);
	for (size_t i = 0; i < s->nsenders; i++) {
		p = &s->senders[i];
		if (p->cpu == e->cpu && p->callsite == e->addr && p->callback == e->addr2 &&
		    !strcmp(p->comm, comm)) {
			p->count++;
			p->pid = pid;
			return;
		}
	}
	array_reserve(s->senders, s->senders_cap, s->nsenders + 1);
	p = &s->senders[s->nsenders++];
	memset(p, 0, sizeof(*p));
	p->cpu = e->cpu;
	p->pid = pid;
	snprintf(p->comm, sizeof(p->comm), "%s", comm);
	p->callsite = e->addr;
	p->callback = e->addr2;
	p->count = 1;
}

static void on_tick_stop(struct silence *s, struct silence_cpu *c, const struct ss_event *e)
{
	if (e->kind) {
		c->tick_stop_ok++;
	} else {
		c->tick_stop_fail++;
		c->tick_deps |= e->id;
	}
}

/* What each kind of record does to the model */
static void (*const handlers[])(struct silence *s, struct silence_cpu *c,
				const struct ss_event *e) = {
	[SS_EV_SWITCH] = on_switch,
	[SS_EV_WAKEUP] = on_wakeup,
	[SS_EV_MIGRATE] = on_migrate,
	[SS_EV_SPAN] = on_span,
	[SS_EV_IPI_SEND] = on_ipi_send,
	[SS_EV_TICK_STOP] = on_tick_stop,
};

void silence_feed(struct silence *s, const void *data, size_t size)
{
	const struct ss_event *e = data;
	struct silence_cpu *c;

	s->events_fed++;
	if (size < sizeof(*e) || !(c = silence_cpu_state(s, e->cpu)) ||
	    (s->cfg.start_ts && e->ts < s->cfg.start_ts) ||
	    (s->cfg.end_ts && e->ts > s->cfg.end_ts)) {
		s->events_ignored++;
		return;
	}
	if (e->type < sizeof(handlers) / sizeof(handlers[0]) && handlers[e->type])
		handlers[e->type](s, c, e);
	else
		s->events_ignored++;
}

void silence_finish(struct silence *s, uint64_t end_ts)
{
	for (size_t i = 0; i < s->ncpus; i++) {
		struct silence_cpu *c = &s->cpus[i];

		if (!c->cur_intruder)
			continue;
		s->rows[c->cur_row].running_at_end = true;
		task_close(s, c, end_ts);
	}
}

static int row_cmp(const void *a, const void *b)
{
	const struct intruder *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int tl_cmp(const void *a, const void *b)
{
	const struct timeline_ev *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return 0;
}

static int idx_cmp(const void *a, const void *b, void *rows)
{
	const struct intruder *r = rows;

	return row_cmp(&r[*(const size_t *)a], &r[*(const size_t *)b]);
}

void silence_sort(struct silence *s)
{
	size_t *order, *newpos;
	struct intruder *old;

	if (s->nrows) {
		order = xmalloc(s->nrows * sizeof(*order));
		newpos = xmalloc(s->nrows * sizeof(*newpos));
		old = xmalloc(s->nrows * sizeof(*old));
		memcpy(old, s->rows, s->nrows * sizeof(*old));
		for (size_t i = 0; i < s->nrows; i++)
			order[i] = i;
		qsort_r(order, s->nrows, sizeof(*order), idx_cmp, old);
		for (size_t i = 0; i < s->nrows; i++) {
			s->rows[i] = old[order[i]];
			newpos[order[i]] = i;
		}
		/* the timeline and the open tasks follow their rows */
		for (size_t i = 0; i < s->ntimeline; i++)
			s->timeline[i].row = newpos[s->timeline[i].row];
		for (size_t i = 0; i < s->ncpus; i++)
			if (s->cpus[i].cur_intruder)
				s->cpus[i].cur_row = newpos[s->cpus[i].cur_row];
		free(order);
		free(newpos);
		free(old);
		rows_reindex(s);
	}
	qsort(s->timeline, s->ntimeline, sizeof(*s->timeline), tl_cmp);
}

uint64_t silence_cpu_events(const struct silence *s, uint32_t cpu, size_t *intruders)
{
	uint64_t n = 0;
	size_t k = 0;

	for (size_t i = 0; i < s->nrows; i++) {
		if (s->rows[i].cpu != cpu || !s->rows[i].count)
			continue;
		n += s->rows[i].count;
		k++;
	}
	if (intruders)
		*intruders = k;
	return n;
}

bool silence_cpu_silent(const struct silence *s, uint32_t cpu, uint64_t losses)
{
	return !losses && silence_cpu_events(s, cpu, NULL) == 0;
}
