// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "export.h"
#include "bpfmaps.h"
#include "hashmap.h"
#include "model.h"
#include "report.h"
#include "sysenv.h"
#include "vec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EVENTS "schedsilence_intrusions_total"
#define HELD "schedsilence_intrusion_seconds_total"
#define IRQS "schedsilence_interrupts_total"
#define CPU_EVENTS "schedsilence_cpu_intrusions_total"
#define SILENT "schedsilence_silent"

struct name_key {
	__u32 cpu, kind;
	char name[64];
};

struct counts {
	__u64 events, ns;
};

/* A row's name: the comm, the IRQ action or vector; a work function or
 * hrtimer callback by address (named at the end of the run only) */
static void row_name(const struct intruder *r, char *buf, size_t size)
{
	if (r->name[0])
		snprintf(buf, size, "%s", r->name);
	else if (r->addr)
		snprintf(buf, size, "0x%llx", (unsigned long long)r->addr);
	else
		snprintf(buf, size, "%s", silence_kind_name(r->kind));
}

/* What a name did while it had a series of its own (attr), and what the
 * last snapshot saw of it */
struct name_state {
	struct counts last, attr;
	bool named;
};

struct ranked {
	struct name_key k;
	struct counts cur;
};

typedef VEC(struct ranked) ranked_vec;

static void push_one(const void *key, void *val, void *arg)
{
	ranked_vec *v = arg;
	struct ranked *r = vec_add(v);

	memcpy(&r->k, key, sizeof(r->k));
	r->cur = *(struct counts *)val;
}

/* by CPU and kind, then most events first */
static int ranked_cmp(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->k.cpu != y->k.cpu)
		return x->k.cpu < y->k.cpu ? -1 : 1;
	if (x->k.kind != y->k.kind)
		return x->k.kind < y->k.kind ? -1 : 1;
	if (x->cur.events != y->cur.events)
		return x->cur.events < y->cur.events ? 1 : -1;
	return strcmp(x->k.name, y->k.name);
}

static void add_delta(struct counts *to, const struct counts *cur, const struct counts *last)
{
	/* a row that moved to another name (a task renamed) takes nothing back */
	to->events += cur->events > last->events ? cur->events - last->events : 0;
	to->ns += cur->ns > last->ns ? cur->ns - last->ns : 0;
}

struct series_out {
	struct mtext *t;
	bool held;
};

static void series_put(struct series_out *em, const struct name_key *k, const char *name,
		 const struct counts *c)
{
	char cpu[16];
	struct mlabel l[3] = { { "cpu", cpu }, { "kind", silence_kind_name(k->kind) },
			       { "name", name } };

	snprintf(cpu, sizeof(cpu), "%u", k->cpu);
	if (em->held)
		mtext_fixed(em->t, HELD, l, 3, c->ns, 9);
	else
		mtext_u64(em->t, EVENTS, l, 3, c->events);
}

static void series_other(const void *key, void *val, void *arg)
{
	series_put(arg, key, "other", val);
}

/* The rows summed by (CPU, kind, name), ranked */
static void ranked_now(const struct silence *s, ranked_vec *v)
{
	struct hashmap *sum = hashmap_new(sizeof(struct name_key), sizeof(struct counts));

	for (size_t i = 0; i < s->nrows; i++) {
		const struct intruder *r = &s->rows[i];
		struct name_key k = { .cpu = r->cpu, .kind = r->kind };
		struct counts *c;

		if (!r->count)
			continue;
		row_name(r, k.name, sizeof(k.name));
		c = hashmap_get(sum, &k, NULL);
		c->events += r->count;
		c->ns += r->total_ns;
	}
	hashmap_each(sum, push_one, v);
	hashmap_free(sum);
	if (v->n)
		qsort(v->v, v->n, sizeof(*v->v), ranked_cmp);
}

static void intrusions(struct mtext *t, struct ss_export *x)
{
	static const char *const help[2] = {
		"Intruding events on the watched CPUs, by CPU, kind and name (the top "
		"names of a CPU and kind, --metrics-top, then other)",
		"Time the intruders held the watched CPUs, by CPU, kind and name (the top "
		"names of a CPU and kind, --metrics-top, then other; a task's time counts "
		"when it leaves the CPU)" };
	ranked_vec v = { 0 };
	struct series_out em = { t, false };
	size_t rank = 0;

	ranked_now(x->rp->s, &v);
	/* the top names of each CPU and kind now: what they did since the
	 * last snapshot goes to their series, the others' to "other" */
	for (size_t i = 0; i < v.n; i++) {
		struct ranked *r = &v.v[i];
		struct name_state *st = hashmap_get(x->names, &r->k, NULL);
		struct name_key ok = { .cpu = r->k.cpu, .kind = r->k.kind };

		if (i && (r->k.cpu != v.v[i - 1].k.cpu || r->k.kind != v.v[i - 1].k.kind))
			rank = 0;
		st->named = rank++ < x->top;
		add_delta(st->named ? &st->attr : (struct counts *)hashmap_get(x->other, &ok, NULL),
			  &r->cur, &st->last);
		st->last = r->cur;
	}
	for (int h = 0; h < 2; h++) {
		em.held = h;
		mtext_family(t, h ? HELD : EVENTS, "counter", help[h]);
		for (size_t i = 0; i < v.n; i++) {
			const struct name_state *st = hashmap_lookup(x->names, &v.v[i].k);

			if (st->named)
				series_put(&em, &v.v[i].k, v.v[i].k.name, &st->attr);
		}
		hashmap_each(x->other, series_other, &em);
	}
	vec_free(&v);
}

/* /proc/interrupts: what moved on each watched CPU since the start */
static void interrupts(struct mtext *t, struct ss_export *x)
{
	struct irq_snap now = { 0 };

	mtext_family(t, IRQS, "counter", "/proc/interrupts on the watched CPUs since the "
		     "start, by CPU and IRQ (the lines that moved)");
	if (!x->rp->have_irqs || irq_snap_read(x->cpus, &now))
		return;
	for (size_t w = 0; w < x->cpus->n; w++) {
		struct irq_moved *m = NULL;
		size_t n = irq_snap_delta(&x->rp->before, &now, w, &m);
		char cpu[16];

		snprintf(cpu, sizeof(cpu), "%u", x->cpus->cpus[w]);
		for (size_t i = 0; i < n; i++) {
			struct mlabel l[3] = { { "cpu", cpu }, { "irq", m[i].id },
					       { "desc", m[i].desc } };

			mtext_u64(t, IRQS, l, 3, m[i].delta);
		}
		free(m);
	}
	irq_snap_free(&now);
}

void ss_export_render(struct mtext *t, void *ctx)
{
	struct ss_export *x = ctx;
	__u64 l[LOSS_KINDS], lost = 0;

	if (!x->names) {
		x->names = hashmap_new(sizeof(struct name_key), sizeof(struct name_state));
		x->other = hashmap_new(sizeof(struct name_key), sizeof(struct counts));
	}
	intrusions(t, x);
	interrupts(t, x);
	losses_read(x->losses, l);
	for (int k = 0; k < LOSS_KINDS; k++)
		lost += l[k];
	mtext_family(t, CPU_EVENTS, "counter", "Intruding events on each watched CPU, every "
		     "kind and name (there from the start: increase() sees the first ones)");
	for (size_t w = 0; w < x->cpus->n; w++) {
		char cpu[16];
		struct mlabel lb = { "cpu", cpu };

		snprintf(cpu, sizeof(cpu), "%u", x->cpus->cpus[w]);
		mtext_u64(t, CPU_EVENTS, &lb, 1, silence_cpu_events(x->rp->s, x->cpus->cpus[w], NULL));
	}
	mtext_family(t, SILENT, "gauge", "1 when nothing intruded on the CPU and nothing was "
		     "lost since the snapshot before (about a second)");
	for (size_t w = 0; w < x->cpus->n && w < SS_MAX_WATCH; w++) {
		__u32 c = x->cpus->cpus[w];
		__u64 ev = silence_cpu_events(x->rp->s, c, NULL);
		char cpu[16];
		struct mlabel lb = { "cpu", cpu };

		snprintf(cpu, sizeof(cpu), "%u", c);
		mtext_u64(t, SILENT, &lb, 1, x->primed ? ev == x->prev_events[w] &&
			  lost == x->prev_losses : ev == 0 && lost == 0);
		x->prev_events[w] = ev;
	}
	x->prev_losses = lost;
	x->primed = true;
	exporter_common(x->e, t, l, NULL, NULL, 0);
}

void ss_export_free(struct ss_export *x)
{
	hashmap_free(x->names);
	hashmap_free(x->other);
	x->names = x->other = NULL;
	exporter_close(x->e);
	x->e = NULL;
}
