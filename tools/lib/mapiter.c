// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "mapiter.h"
#include "xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

void map_iter_init(struct map_iter *it, int fd, void *key, size_t key_size, void *val)
{
	*it = (struct map_iter){ .fd = fd, .key = key, .val = val, .key_size = key_size };
}

bool map_iter_next(struct map_iter *it)
{
	while (!(it->err = bpf_map_get_next_key(it->fd, it->prev, it->key))) {
		if (!it->prev)
			it->prev = xmalloc(it->key_size);
		memcpy(it->prev, it->key, it->key_size);
		if (!bpf_map_lookup_elem(it->fd, it->key, it->val))
			return true;
	}
	return false;
}

int map_iter_end(struct map_iter *it)
{
	free(it->prev);
	it->prev = NULL;
	return it->err == -ENOENT ? 0 : it->err;
}
