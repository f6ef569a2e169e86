// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The frames of every stack seen, by id (stackstore.h): one hash map from
 * id to a place in one growing array of frames. */
#include <stdbool.h>
#include <string.h>

#include "stackstore.h"
#include "hashmap.h"
#include "msg.h"
#include "vec.h"
#include "xalloc.h"
#include <stdlib.h>
#include "stackeng.h"

struct place {
	size_t off;	/* in frames.v */
	int n;
};

struct stackstore {
	struct hashmap *ids;	/* id -> struct place */
	VEC(__u64) frames;
	struct stackstore_stats st;
};

struct stackstore *stackstore_new(void)
{
	struct stackstore *st = xcalloc(1, sizeof(*st));

	st->ids = hashmap_new(sizeof(__u64), sizeof(struct place));
	return st;
}

void stackstore_free(struct stackstore *st)
{
	if (!st)
		return;
	hashmap_free(st->ids);
	vec_free(&st->frames);
	free(st);
}

int stackstore_on_event(void *ctx, void *data, size_t size)
{
	struct stackstore *st = ctx;
	const struct stack_event *e = data;
	struct place *p;
	bool created;
	__u32 nr;

	if (size < offsetof(struct stack_event, ips) || e->type != STACK_EV_FRAMES)
		return 0;
	nr = e->nr;
	if (nr > STACK_FRAMES || size < offsetof(struct stack_event, ips) + nr * sizeof(__u64))
		return 0;
	p = hashmap_get(st->ids, &e->id, &created);
	if (!created) {
		if (p->n != (int)nr ||
		    memcmp(st->frames.v + p->off, e->ips, nr * sizeof(__u64)))
			st->st.collisions++;
		else
			st->st.resent++;
		return 0;
	}
	p->off = st->frames.n;
	p->n = nr;
	vec_reserve(&st->frames, st->frames.n + nr);
	memcpy(st->frames.v + st->frames.n, e->ips, nr * sizeof(__u64));
	st->frames.n += nr;
	st->st.stacks++;
	st->st.frames += nr;
	return 0;
}

const __u64 *stackstore_get(struct stackstore *st, __u64 id, int *n)
{
	const struct place *p = hashmap_lookup(st->ids, &id);

	if (!p) {
		st->st.missing++;
		*n = 0;
		return NULL;
	}
	*n = p->n;
	return st->frames.v + p->off;
}

void stackstore_stats(const struct stackstore *st, struct stackstore_stats *s)
{
	*s = st->st;
}

void stackstore_report(const struct stackstore *st)
{
	if (st->st.collisions)
		msg_warn("%llu stacks shared a 64-bit id with another stack and were "
			 "merged with it", (unsigned long long)st->st.collisions);
	if (st->st.missing)
		msg_warn("%llu stacks were recorded whose frames never reached user "
			 "space; shown as lost", (unsigned long long)st->st.missing);
}
