// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* hotcheck --pprof: the blocks' stacks as a profile (export.h) */
#include "offcpu_pprof.h"
#include "collect.h"
#include "hashmap.h"
#include "pprof.h"
#include "stacks.h"
#include "xalloc.h"

#include <string.h>

/* One entry per printed identity: the stack as it prints, and the thread */
struct block_key {
	const char *stack;	/* interned by the collect half */
	__u32 pid, tid;
};

struct block_sum {
	uint64_t ns, count;
	struct hc_rec rec;	/* the first identity that prints so: its stack ids */
};

struct to_pprof {
	const struct hc_run *r;
	struct pprof *p;
	struct stack_frames *f;
	struct stack_locs *l;
};

static void add_one(const void *key, void *val, void *arg)
{
	const struct block_key *k = key;
	const struct block_sum *s = val;
	struct to_pprof *e = arg;
	struct pprof_label lb[PPROF_LABELS];
	int64_t v[2] = { (int64_t)s->ns, (int64_t)s->count };
	char comm[TASK_COMM_LEN + 1];

	memcpy(comm, s->rec.comm, TASK_COMM_LEN);
	comm[TASK_COMM_LEN] = 0;
	/* the kernel stack was taken at switch-out: without the scheduler's
	 * own frames, as offcputime's */
	stack_frames_resolve_at(e->r->sym, e->r->stacks,
				&(struct stack_ref){ .kstack = s->rec.kstack, .ustack = s->rec.ustack,
						     .pid = k->pid, .image = s->rec.image,
						     .kernel_nosched = true }, e->f, e->l);
	pprof_add(e->p, e->f, e->l, v, lb, pprof_task_labels(lb, k->pid, k->tid, comm));
}

struct gather {
	struct hc_run *r;
	struct hashmap *m;
};

static void gather_one(const void *key, void *val, void *arg)
{
	const struct hc_rec *rec = key;
	const struct hc_agg *a = val;
	struct gather *g = arg;
	struct block_key k;
	struct block_sum *s;
	bool created;

	if (rec->type != HCR_BLOCK)
		return;
	memset(&k, 0, sizeof(k));
	k.stack = hc_block_stack(g->r, rec);
	k.pid = rec->pid;
	k.tid = rec->tid;
	s = hashmap_get(g->m, &k, &created);
	if (created)
		s->rec = *rec;
	s->ns += a->time_ns;
	s->count += a->count;
}

int hc_pprof_write(const struct hc_run *r, FILE *f)
{
	static const char *const types[][2] = {
		{ "off_cpu", "nanoseconds" },
		{ "blocks", "count" },
	};
	struct hashmap *m = hashmap_new(sizeof(struct block_key), sizeof(struct block_sum));
	struct to_pprof e = { .r = r, .p = pprof_run_new(types, 2),
			  .f = xcalloc(1, sizeof(*e.f)), .l = xcalloc(1, sizeof(*e.l)) };
	struct gather g = { (struct hc_run *)r, m };
	int err;

	if (r->agg)
		hashmap_each(r->agg, gather_one, &g);
	hashmap_each(m, add_one, &e);
	err = pprof_finish(e.p, f);
	pprof_free(e.p);
	free(e.f);
	free(e.l);
	hashmap_free(m);
	return err;
}
