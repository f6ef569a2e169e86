// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The user-space map (tools/lib/kmap.h) that wakers and pfwatch --dwarf
 * aggregate their records in. */
#include "unit.h"
#include "kmap.h"
#include <stdlib.h>

struct key {
	uint32_t a, b;
	int32_t c;
	char name[4];
};

struct val {
	uint64_t count;
	uint32_t small;
};

static void sum_counts(const void *k, void *v, void *arg)
{
	const struct key *key = k;
	const struct val *val = v;

	*(uint64_t *)arg += val->count * (key->a == (uint32_t)key->c ? 1 : 1000000);
}

int main(void)
{
	struct kmap *m = kmap_new(sizeof(struct key), sizeof(struct val));
	struct key k = { 0 };
	struct val *v;
	bool created = false;
	uint64_t total = 0;
	int ok = 1;

	CHECK(kmap_find(m, &k) == NULL, "an empty map finds nothing");
	CHECK_U64(kmap_count(m), 0, "an empty map counts 0");
	/* 10000 keys, each added 3 times: values survive every growth */
	for (int round = 0; round < 3; round++) {
		for (uint32_t i = 0; i < 10000; i++) {
			k = (struct key){ .a = i, .b = i * 7, .c = (int32_t)i, .name = "ab" };
			v = kmap_get(m, &k, &created);
			ok &= created == (round == 0);
			ok &= v->count == (uint64_t)round;
			v->count++;
		}
	}
	CHECK(ok, "a key is created once, then found with its value");
	CHECK_U64(kmap_count(m), 10000, "10000 distinct keys");
	k = (struct key){ .a = 4321, .b = 4321 * 7, .c = 4321, .name = "ab" };
	v = kmap_find(m, &k);
	CHECK(v && v->count == 3, "find returns the value of a present key");
	k.name[0] = 'x';
	CHECK(kmap_find(m, &k) == NULL, "a key differing in one byte is another key");
	kmap_each(m, sum_counts, &total);
	CHECK_U64(total, 30000, "each visits every entry once");
	kmap_free(m);
	kmap_free(NULL);
	return unit_exit();
}
