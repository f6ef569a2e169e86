/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The hash map of user space: keys (fixed-size, compared as bytes: no
 * holes; or byte strings of any size) to fixed-size values that never
 * move, so callers may keep pointers to them until the entry is deleted;
 * and the one hash function of the suite. */
#ifndef SUITE_HASHMAP_H
#define SUITE_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>

#include <stdint.h>

struct hashmap;

/* The hash of n bytes (of a key without holes), of a string */
uint64_t hash_bytes(const void *key, size_t n);
uint64_t hash_str(const char *s);

/* key_size 0: keys of any size, given with their length (the _blob
 * functions) */
struct hashmap *hashmap_new(size_t key_size, size_t val_size);
void hashmap_free(struct hashmap *m);
/* The value of key, created zeroed if absent (*created says so, if not
 * NULL).  It stays where it is until its entry is deleted.  Exits 3 when
 * out of memory. */
void *hashmap_get(struct hashmap *m, const void *key, bool *created);
/* The value of key, or NULL */
void *hashmap_lookup(const struct hashmap *m, const void *key);
/* The same for a key of len bytes */
void *hashmap_get_blob(struct hashmap *m, const void *key, size_t len, bool *created);
void *hashmap_lookup_blob(const struct hashmap *m, const void *key, size_t len);
/* The map's copy of the key of a value: it does not move either */
const void *hashmap_key(const struct hashmap *m, const void *val);
/* Deletes the entry of key: false if there was none */
bool hashmap_del(struct hashmap *m, const void *key);
size_t hashmap_count(const struct hashmap *m);
/* Visits every entry (in no order) */
void hashmap_each(struct hashmap *m, void (*fn)(const void *key, void *val, void *arg), void *arg);

#endif
