// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "collect.h"
#include "agg.h"
#include "msg.h"
#include "dwunw.h"
#include "stackframes.h"
#include "hashmap.h"
#include "vec.h"

#include <stdlib.h>
#include <string.h>

void pf_val_combine(void *dst, const void *src)
{
	struct pf_val *d = dst;
	const struct pf_val *v = src;

	d->major += v->major;
	d->minor += v->minor;
	if (v->addr_min && (!d->addr_min || v->addr_min < d->addr_min))
		d->addr_min = v->addr_min;
	if (v->addr_max > d->addr_max)
		d->addr_max = v->addr_max;
	if (!d->comm[0] && v->comm[0])
		memcpy(d->comm, v->comm, sizeof(d->comm));
}

/* --dwarf: one fault that came with a user-stack sample */
struct dw_rec {
	struct pf_val val;
	bool dwarf;
};

void collected_dwarf(struct faults *c)
{
	c->dw = dwunw_new();
	c->dw_recs = hashmap_new(sizeof(struct pf_key), sizeof(struct dw_rec));
}

int collected_on_sample(void *ctx, void *data, size_t size)
{
	struct faults *c = ctx;
	__u32 type = dwunw_on_record(c->dw, data, size);

	if (type == PF_EV_FAULT && size >= sizeof(struct pf_fault)) {
		const struct pf_fault *f = data;
		struct pf_key key = f->key;
		int id = dwunw_take(c->dw, f->seq);
		struct dw_rec *d;
		bool created;

		/* above the marks, so that no id is taken for one */
		key.ustack = stack_dwarf_key(id);
		d = hashmap_get(c->dw_recs, &key, &created);
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

static struct entry *entry_new(struct faults *c)
{
	array_reserve(c->e, c->cap, c->n + 1);
	return &c->e[c->n++];
}

static void entry_count(struct faults *c, const struct entry *e)
{
	c->major[e->key.warmup ? 1 : 0] += e->val.major;
	c->minor[e->key.warmup ? 1 : 0] += e->val.minor;
	c->stacks[e->key.warmup ? 1 : 0]++;
}

static void collect_dwarf_one(const void *key, void *val, void *arg)
{
	struct faults *c = arg;
	const struct dw_rec *d = val;
	struct entry *e = entry_new(c);

	memcpy(&e->key, key, sizeof(e->key));
	e->val = d->val;
	e->dwarf = d->dwarf;
	entry_count(c, e);
}

static void collect_one(const void *key, void *val, void *arg)
{
	struct faults *c = arg;
	struct entry *e = entry_new(c);

	memcpy(&e->key, key, sizeof(e->key));
	memcpy(&e->val, val, sizeof(e->val));
	e->dwarf = false;
	entry_count(c, e);
}

void collected_read(struct faults *c, struct aggmap *counts)
{
	hashmap_each(agg_table(counts), collect_one, c);
	if (c->dw_recs)
		hashmap_each(c->dw_recs, collect_dwarf_one, c);
}

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

void collected_sort(struct faults *c)
{
	if (c->n)	/* nothing recorded: c->e may be NULL, which qsort may not be given */
		qsort(c->e, c->n, sizeof(*c->e), entry_cmp);
}

void collected_free(struct faults *c)
{
	free(c->e);
	dwunw_free(c->dw);
	hashmap_free(c->dw_recs);
	c->e = NULL;
	c->dw = NULL;
	c->dw_recs = NULL;
}
