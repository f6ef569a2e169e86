/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Walking a BPF map from user space: bpf_map_get_next_key then a lookup,
 * each entry once.  An entry deleted between the two (the kernel side
 * deletes as it runs) is skipped; the walk goes on from its key.  Should
 * the entry the walk stands on go, a hash map starts the walk again from
 * its first key (the kernel's rule): the tools read their maps after
 * recording stopped, where nothing deletes.
 *
 *	struct map_iter it;
 *
 *	map_iter_init(&it, fd, &key, sizeof(key), &val);
 *	while (map_iter_next(&it))
 *		use(&key, &val);
 *	return map_iter_end(&it);
 */
#ifndef SUITE_MAPITER_H
#define SUITE_MAPITER_H

#include <stdbool.h>
#include <stddef.h>

struct map_iter {
	int fd, err;
	void *key, *val;	/* the caller's: each entry is read there */
	void *prev;		/* the key before, NULL at the start */
	size_t key_size;
};

void map_iter_init(struct map_iter *it, int fd, void *key, size_t key_size, void *val);
/* The next entry into key and val; false at the end or on an error */
bool map_iter_next(struct map_iter *it);
/* 0 when the whole map was read, else the negative errno; frees */
int map_iter_end(struct map_iter *it);

#endif
