// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Open addressing over one array of slots: [used byte][key][value]. */
#include "kmap.h"
#include "common.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct kmap {
	size_t key_size, val_size, slot_size;
	size_t n, cap;		/* cap: a power of two, or 0 */
	unsigned char *slots;
};

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p) {
		msg_warn("out of memory");
		exit(EXIT_UNSUPPORTED);
	}
	return p;
}

struct kmap *kmap_new(size_t key_size, size_t val_size)
{
	struct kmap *m = xcalloc(1, sizeof(*m));

	m->key_size = key_size;
	m->val_size = val_size;
	/* values aligned to 8 bytes */
	m->slot_size = (8 + key_size + 7) / 8 * 8 + (val_size + 7) / 8 * 8;
	return m;
}

void kmap_free(struct kmap *m)
{
	if (!m)
		return;
	free(m->slots);
	free(m);
}

static uint64_t hash_bytes(const void *key, size_t n)
{
	const unsigned char *b = key;
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h ^ (h >> 31);
}

static unsigned char *slot(const struct kmap *m, size_t i)
{
	return m->slots + i * m->slot_size;
}

static void *slot_val(const struct kmap *m, unsigned char *s)
{
	return s + (8 + m->key_size + 7) / 8 * 8;
}

/* The slot holding key, or the empty one where it would go */
static unsigned char *lookup(const struct kmap *m, const void *key)
{
	size_t i = hash_bytes(key, m->key_size) & (m->cap - 1);

	for (;; i = (i + 1) & (m->cap - 1)) {
		unsigned char *s = slot(m, i);

		if (!s[0] || !memcmp(s + 8, key, m->key_size))
			return s;
	}
}

static void grow(struct kmap *m)
{
	struct kmap old = *m;

	m->cap = m->cap ? m->cap * 2 : 256;
	m->slots = xcalloc(m->cap, m->slot_size);
	for (size_t i = 0; i < old.cap; i++) {
		unsigned char *s = slot(&old, i);

		if (s[0])
			memcpy(lookup(m, s + 8), s, m->slot_size);
	}
	free(old.slots);
}

void *kmap_get(struct kmap *m, const void *key, bool *created)
{
	unsigned char *s;

	if (2 * (m->n + 1) > m->cap)
		grow(m);
	s = lookup(m, key);
	if (created)
		*created = !s[0];
	if (!s[0]) {
		s[0] = 1;
		memcpy(s + 8, key, m->key_size);
		m->n++;
	}
	return slot_val(m, s);
}

void *kmap_find(const struct kmap *m, const void *key)
{
	unsigned char *s;

	if (!m->cap)
		return NULL;
	s = lookup(m, key);
	return s[0] ? slot_val(m, s) : NULL;
}

size_t kmap_count(const struct kmap *m)
{
	return m->n;
}

void kmap_each(struct kmap *m, void (*fn)(const void *key, void *val, void *arg), void *arg)
{
	for (size_t i = 0; i < m->cap; i++) {
		unsigned char *s = slot(m, i);

		if (s[0])
			fn(s + 8, slot_val(m, s), arg);
	}
}
