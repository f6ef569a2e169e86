// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* hotcheck --pprof: the blocks' stacks as a profile (export.h) */
#include "export.h"
#include "collect.h"
#include "hashmap.h"
#include "pprof.h"
#include "stacks.h"
#include "xalloc.h"

#include <string.h>

struct block_key {
	__u64 kstack, ustack, image;
	__u32 pid, tid;
};

struct block_sum {
	uint64_t ns, count;
	char comm[TASK_COMM_LEN + 1];
};

struct emit {
	const struct hc_run *r;
	struct pprof *p;
	struct stack_frames *f;
	struct stack_locs *l;
};

static void emit_one(const void *key, void *val, void *arg)
{
	const struct block_key *k = key;
	const struct block_sum *s = val;
	struct emit *e = arg;
	struct pprof_label lb[PPROF_LABELS];
	int64_t v[2] = { (int64_t)s->ns, (int64_t)s->count };

	/* the kernel stack was taken at switch-out: without the scheduler's
	 * own frames, as offcputime's */
	stack_frames_resolve_at(e->r->sym, e->r->stacks,
				&(struct stack_ref){ .kstack = k->kstack, .ustack = k->ustack,
						     .pid = k->pid, .image = k->image,
						     .kernel_nosched = true }, e->f, e->l);
	pprof_add(e->p, e->f, e->l, v, lb, pprof_task_labels(lb, k->pid, k->tid, s->comm));
}

int hc_pprof_write(const struct hc_run *r, FILE *f)
{
	static const char *const types[][2] = {
		{ "off_cpu", "nanoseconds" },
		{ "blocks", "count" },
	};
	struct hashmap *m = hashmap_new(sizeof(struct block_key), sizeof(struct block_sum));
	struct emit e = { .r = r, .p = pprof_run_new(types, 2),
			  .f = xcalloc(1, sizeof(*e.f)), .l = xcalloc(1, sizeof(*e.l)) };
	int err;

	for (size_t i = 0; i < r->recs.n; i++) {
		const struct hc_rec *rec = &r->recs.v[i];
		struct block_key k;
		struct block_sum *s;
		bool created;

		if (rec->type != HCR_BLOCK)
			continue;
		memset(&k, 0, sizeof(k));
		k = (struct block_key){ rec->kstack, rec->ustack, rec->image, rec->pid, rec->tid };
		s = hashmap_get(m, &k, &created);
		if (created)
			memcpy(s->comm, rec->comm, TASK_COMM_LEN);
		s->ns += rec->dur;
		s->count++;
	}
	hashmap_each(m, emit_one, &e);
	err = pprof_finish(e.p, f);
	pprof_free(e.p);
	free(e.f);
	free(e.l);
	hashmap_free(m);
	return err;
}
