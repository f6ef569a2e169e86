// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Walking a BPF map (tools/lib/mapiter.h), on a real hash map: needs the
 * privilege to create one (skipped without it) */
#include "unit.h"
#include "mapiter.h"
#include <errno.h>
#include <unistd.h>
#include <bpf/bpf.h>

struct key {
	uint32_t a;
	uint16_t b;
	uint16_t pad;
};

int main(void)
{
	struct key k;
	uint64_t v, sum = 0, want = 0;
	struct map_iter it;
	int fd, n = 0, deleted = 0;

	fd = bpf_map_create(BPF_MAP_TYPE_HASH, "test_mapiter", sizeof(k), sizeof(v), 1024, NULL);
	if (fd < 0) {
		printf("ok - # skipped: cannot create a BPF map (%d)\n", fd);
		return 0;
	}
	map_iter_init(&it, fd, &k, sizeof(k), &v);
	CHECK(!map_iter_next(&it) && map_iter_end(&it) == 0, "an empty map: no entry, no error");

	for (uint32_t i = 1; i <= 500; i++) {
		k = (struct key){ .a = i, .b = i % 7 };
		v = i * 3;
		want += v;
		bpf_map_update_elem(fd, &k, &v, BPF_ANY);
	}
	map_iter_init(&it, fd, &k, sizeof(k), &v);
	while (map_iter_next(&it)) {
		n++;
		sum += v;
		if (v != k.a * 3)
			break;
	}
	CHECK(map_iter_end(&it) == 0, "500 entries: read to the end");
	CHECK(n == 500 && sum == want, "each entry once, its value with it: %d", n);

	/* deleting the entry just read: the walk starts again from the first
	 * key (the kernel's rule), without an error */
	n = 0;
	sum = 0;
	map_iter_init(&it, fd, &k, sizeof(k), &v);
	while (map_iter_next(&it)) {
		n++;
		sum += v;
		if (k.a % 2 == 0 && !bpf_map_delete_elem(fd, &k))
			deleted++;
	}
	CHECK(map_iter_end(&it) == 0 && deleted == 250, "deleting while walking: no error");
	CHECK(n >= 500, "deleting while walking: every entry read at least once (%d)", n);

	map_iter_init(&it, -1, &k, sizeof(k), &v);
	CHECK(!map_iter_next(&it) && map_iter_end(&it) == -EBADF, "a bad fd: the errno");
	close(fd);
	return unit_exit();
}
