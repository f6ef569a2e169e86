/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A small hash map in user space from fixed-size keys (compared as bytes:
 * no holes) to fixed-size values, for tools that aggregate records they
 * receive (--dwarf: the stack id is known only in user space). */
#ifndef SUITE_KMAP_H
#define SUITE_KMAP_H

#include <stdbool.h>
#include <stddef.h>

struct kmap;

struct kmap *kmap_new(size_t key_size, size_t val_size);
void kmap_free(struct kmap *m);
/* The value of key, created zeroed if absent (*created says so, if not
 * NULL); valid until the next kmap_get.  Exits 3 when out of memory. */
void *kmap_get(struct kmap *m, const void *key, bool *created);
/* The value of key, or NULL */
void *kmap_find(const struct kmap *m, const void *key);
size_t kmap_count(const struct kmap *m);
/* Visits every entry (in no order) */
void kmap_each(struct kmap *m, void (*fn)(const void *key, void *val, void *arg), void *arg);

#endif
