// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Draining double-buffered aggregation maps while tracing (agg.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "agg.h"
#include "bpfload.h"
#include "bpfmaps.h"
#include "clock.h"
#include "hashmap.h"
#include "xalloc.h"

#define AGG_MAPS_MAX 4
#define DRAIN_EVERY_NS 1000000000ull
#define BATCH 1024

struct aggmap {
	int fd[2];
	size_t key_size, val_size;	/* val_size: one CPU's */
	unsigned ncpus;			/* 1, or the CPUs of a per-CPU map */
	__u32 entries;
	agg_combine_fn combine;
	struct hashmap *table;
};

struct agg {
	volatile __u32 *slot;
	struct bpf_map *new_keys;
	int outer_fd, inner_fd;		/* the map of maps that waits */
	struct aggmap maps[AGG_MAPS_MAX];
	int n;
	__u64 new_seen;			/* agg_new's sum at the last drain */
	uint64_t last_ns, drains;
	void *keys, *vals;		/* batch buffers, for every map */
	size_t keys_room, vals_room;
};

struct agg *agg_new(volatile __u32 *slot, struct bpf_map *new_keys)
{
	LIBBPF_OPTS(bpf_map_create_opts, o);
	struct agg *a = xcalloc(1, sizeof(*a));

	a->slot = slot;
	a->new_keys = new_keys;
	a->outer_fd = -1;
	a->inner_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "agg_grace_in", 4, 4, 1, NULL);
	if (a->inner_fd < 0)
		goto fail;
	o.inner_map_fd = a->inner_fd;
	a->outer_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, "agg_grace", 4, 4, 1, &o);
	if (a->outer_fd < 0)
		goto fail;
	return a;
fail:
	agg_free(a);
	return NULL;
}

void agg_free(struct agg *a)
{
	if (!a)
		return;
	for (int i = 0; i < a->n; i++)
		hashmap_free(a->maps[i].table);
	if (a->inner_fd >= 0)
		close(a->inner_fd);
	if (a->outer_fd >= 0)
		close(a->outer_fd);
	free(a->keys);
	free(a->vals);
	free(a);
}

struct aggmap *agg_add(struct agg *a, struct bpf_map *ma, struct bpf_map *mb,
		       agg_combine_fn combine)
{
	struct aggmap *m;
	enum bpf_map_type t = bpf_map__type(ma);
	size_t room;

	if (a->n == AGG_MAPS_MAX)
		return NULL;
	m = &a->maps[a->n++];
	m->fd[0] = bpf_map__fd(ma);
	m->fd[1] = bpf_map__fd(mb);
	m->key_size = bpf_map__key_size(ma);
	m->val_size = bpf_map__value_size(ma);
	m->ncpus = t == BPF_MAP_TYPE_PERCPU_HASH || t == BPF_MAP_TYPE_LRU_PERCPU_HASH ?
		   (unsigned)ncpus_possible() : 1;
	m->entries = bpf_map__max_entries(ma);
	m->combine = combine;
	m->table = hashmap_new(m->key_size, m->val_size);
	/* the batch buffers fit every map of the set */
	room = BATCH * m->key_size;
	if (room > a->keys_room)
		a->keys = xrealloc(a->keys, 1, a->keys_room = room);
	room = BATCH * ((m->val_size + 7) / 8 * 8) * m->ncpus;
	if (room > a->vals_room)
		a->vals = xrealloc(a->vals, 1, a->vals_room = room);
	return m;
}

struct hashmap *agg_table(const struct aggmap *m)
{
	return m->table;
}

uint64_t agg_drains(const struct agg *a)
{
	return a->drains;
}

static void combine_u64(void *dst, const void *src, size_t size)
{
	__u64 *d = dst;
	const __u64 *s = src;

	for (size_t i = 0; i < size / sizeof(__u64); i++)
		d[i] += s[i];
}

/* v into dst, the table's value of its key (first: the key is new) */
static void combine_into(const struct aggmap *m, void *dst, bool first, const void *v)
{
	if (first)
		memcpy(dst, v, m->val_size);
	else if (m->combine)
		m->combine(dst, v);
	else
		combine_u64(dst, v, m->val_size);
}

static void take(struct aggmap *m, const void *key, const void *val)
{
	size_t stride = (m->val_size + 7) / 8 * 8;
	bool created;
	void *dst = hashmap_get(m->table, key, &created);

	for (unsigned c = 0; c < m->ncpus; c++)
		combine_into(m, dst, created && c == 0, (const char *)val + c * stride);
}

void agg_merge(struct aggmap *m, const void *key, const void *val)
{
	bool created;
	void *dst = hashmap_get(m->table, key, &created);

	combine_into(m, dst, created, val);
}

/* Every entry of fd into m's table, and fd emptied: no program writes it */
static int drain_fd(struct agg *a, struct aggmap *m, int fd)
{
	size_t stride = (m->val_size + 7) / 8 * 8 * m->ncpus;
	__u32 in = 0, out = 0;
	bool first = true;

	for (;;) {
		__u32 count = BATCH;
		int err = bpf_map_lookup_and_delete_batch(fd, first ? NULL : &in, &out,
							  a->keys, a->vals, &count, NULL);

		if (err && errno != ENOENT)
			return -errno;
		for (__u32 i = 0; i < count; i++)
			take(m, (char *)a->keys + i * m->key_size, (char *)a->vals + i * stride);
		if (err)
			return 0;	/* ENOENT: the end */
		in = out;
		first = false;
	}
}

/* No program that read the old agg_slot is still running when this
 * returns: replacing an element of a map of maps waits for a grace
 * period of RCU, which every BPF program runs inside */
static int grace_period(struct agg *a)
{
	__u32 zero = 0;

	return bpf_map_update_elem(a->outer_fd, &zero, &a->inner_fd, BPF_ANY) ? -errno : 0;
}

static __u64 new_keys(struct agg *a)
{
	return a->new_keys ? percpu_u64_sum(a->new_keys, 0) : 0;
}

static int drain_slot(struct agg *a, int slot)
{
	for (int i = 0; i < a->n; i++) {
		int err = drain_fd(a, &a->maps[i], a->maps[i].fd[slot & 1]);

		if (err)
			return err;
	}
	return 0;
}

static int drain(struct agg *a)
{
	__u32 old = *a->slot & 1;
	int err;

	a->new_seen = new_keys(a);
	*a->slot = old ^ 1;
	__sync_synchronize();
	err = grace_period(a);
	if (!err)
		err = drain_slot(a, old);
	a->last_ns = now_ns();
	a->drains++;
	return err;
}

int agg_tick(struct agg *a)
{
	__u64 fresh;
	__u32 least = ~0u;
	uint64_t now = now_ns();

	if (!a || !a->n)
		return 0;
	if (!a->last_ns)
		a->last_ns = now;
	fresh = new_keys(a) - a->new_seen;
	if (!fresh)
		return 0;
	for (int i = 0; i < a->n; i++)
		if (a->maps[i].entries < least)
			least = a->maps[i].entries;
	/* the keys since the last drain are all in the slot being written */
	if (fresh < least / 2 && now - a->last_ns < DRAIN_EVERY_NS)
		return 0;
	return drain(a);
}

int agg_finish(struct agg *a)
{
	int err;

	if (!a)
		return 0;
	err = grace_period(a);
	if (!err)
		err = drain_slot(a, 0);
	if (!err)
		err = drain_slot(a, 1);
	a->drains++;
	return err;
}
