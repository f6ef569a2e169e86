// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Open addressing (linear probing) over an array of slots, each the hash
 * of a key and its entry; an entry, allocated on its own so that it never
 * moves, is the value then the key. */
#include "hashmap.h"
#include "xalloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct ent {
	size_t len;		/* of the key */
	size_t pad;		/* the value aligned to 16 bytes */
	unsigned char val[];	/* then the key, after val_off bytes */
};

struct slot {
	uint64_t hash;
	struct ent *e;		/* NULL: empty */
};

struct hashmap {
	size_t key_size, val_off;
	size_t n, cap;		/* cap: a power of two, or 0 */
	struct slot *slots;
};

struct hashmap *hashmap_new(size_t key_size, size_t val_size)
{
	struct hashmap *m = xcalloc(1, sizeof(*m));

	m->key_size = key_size;
	m->val_off = (val_size + 7) / 8 * 8;
	return m;
}

void hashmap_free(struct hashmap *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->cap; i++)
		free(m->slots[i].e);
	free(m->slots);
	free(m);
}

/* The seed and the byte step of FNV-1a */
#define HASH_SEED 1469598103934665603ULL
#define HASH_PRIME 1099511628211ULL

/* The finalizer of MurmurHash3 (public domain): every input bit moves
 * every output bit */
static uint64_t mix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 33);
}

/* Eight bytes at a time (keys are mostly a few 64-bit fields: names
 * cache, aggregation keys), mixed after each, then the tail, then the
 * length */
uint64_t hash_bytes(const void *key, size_t n)
{
	const unsigned char *b = key;
	uint64_t h = HASH_SEED, w;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		memcpy(&w, b + i, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 29;
	}
	for (; i < n; i++)
		h = (h ^ b[i]) * HASH_PRIME;
	return mix64(h ^ n);
}

uint64_t hash_str(const char *s)
{
	return hash_bytes(s, strlen(s));
}

static unsigned char *ent_key(const struct hashmap *m, struct ent *e)
{
	return e->val + m->val_off;
}

/* The slot holding the key, or the empty one where it would go */
static struct slot *lookup(const struct hashmap *m, uint64_t h, const void *key, size_t len)
{
	size_t mask = m->cap - 1;

	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct slot *s = &m->slots[i];

		if (!s->e || (s->hash == h && s->e->len == len &&
			      !memcmp(ent_key(m, s->e), key, len)))
			return s;
	}
}

static struct slot *free_slot(const struct hashmap *m, uint64_t h)
{
	size_t i = h & (m->cap - 1);

	while (m->slots[i].e)
		i = (i + 1) & (m->cap - 1);
	return &m->slots[i];
}

static void grow(struct hashmap *m)
{
	struct slot *old = m->slots;
	size_t ocap = m->cap;

	m->cap = m->cap ? m->cap * 2 : 256;
	m->slots = xcalloc(m->cap, sizeof(*m->slots));
	for (size_t i = 0; i < ocap; i++)
		if (old[i].e)
			*free_slot(m, old[i].hash) = old[i];
	free(old);
}

void *hashmap_get_blob(struct hashmap *m, const void *key, size_t len, bool *created)
{
	uint64_t h = hash_bytes(key, len);
	struct slot *s;

	if (2 * (m->n + 1) > m->cap)
		grow(m);
	s = lookup(m, h, key, len);
	if (created)
		*created = !s->e;
	if (!s->e) {
		s->hash = h;
		s->e = xcalloc(1, sizeof(*s->e) + m->val_off + len);
		s->e->len = len;
		memcpy(ent_key(m, s->e), key, len);
		m->n++;
	}
	return s->e->val;
}

void *hashmap_lookup_blob(const struct hashmap *m, const void *key, size_t len)
{
	struct slot *s;

	if (!m->cap)
		return NULL;
	s = lookup(m, hash_bytes(key, len), key, len);
	return s->e ? s->e->val : NULL;
}

void *hashmap_get(struct hashmap *m, const void *key, bool *created)
{
	return hashmap_get_blob(m, key, m->key_size, created);
}

void *hashmap_lookup(const struct hashmap *m, const void *key)
{
	return hashmap_lookup_blob(m, key, m->key_size);
}

const void *hashmap_key(const struct hashmap *m, const void *val)
{
	return (const unsigned char *)val + m->val_off;
}

/* Linear probing: the entries after a deleted one in its run move back
 * when their home slot allows it, so that every run stays whole */
bool hashmap_del(struct hashmap *m, const void *key)
{
	size_t mask = m->cap - 1, i, j;
	struct slot *s;

	if (!m->cap)
		return false;
	s = lookup(m, hash_bytes(key, m->key_size), key, m->key_size);
	if (!s->e)
		return false;
	free(s->e);
	m->n--;
	i = j = s - m->slots;
	for (;;) {
		size_t home;

		j = (j + 1) & mask;
		if (!m->slots[j].e)
			break;
		home = m->slots[j].hash & mask;
		/* j's entry may move to i if i lies cyclically in [home, j) */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			m->slots[i] = m->slots[j];
			i = j;
		}
	}
	m->slots[i].e = NULL;
	return true;
}

size_t hashmap_count(const struct hashmap *m)
{
	return m->n;
}

void hashmap_each(struct hashmap *m, void (*fn)(const void *key, void *val, void *arg), void *arg)
{
	for (size_t i = 0; i < m->cap; i++) {
		struct ent *e = m->slots[i].e;

		if (e)
			fn(ent_key(m, e), e->val, arg);
	}
}
