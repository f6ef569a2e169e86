// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The user-space hash map (tools/lib/hashmap.h): fixed-size and variable-size
 * keys, values that never move, deletes. */
#include "unit.h"
#include "hashmap.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	struct hashmap *m = hashmap_new(sizeof(struct key), sizeof(struct val));
	struct key k = { 0 };
	struct val *v;
	bool created = false;
	uint64_t total = 0;
	int ok = 1;

	CHECK(hashmap_lookup(m, &k) == NULL, "an empty map finds nothing");
	CHECK_U64(hashmap_count(m), 0, "an empty map counts 0");
	/* 10000 keys, each added 3 times: values survive every growth */
	for (int round = 0; round < 3; round++) {
		for (uint32_t i = 0; i < 10000; i++) {
			k = (struct key){ .a = i, .b = i * 7, .c = (int32_t)i, .name = "ab" };
			v = hashmap_get(m, &k, &created);
			ok &= created == (round == 0);
			ok &= v->count == (uint64_t)round;
			v->count++;
		}
	}
	CHECK(ok, "a key is created once, then found with its value");
	CHECK_U64(hashmap_count(m), 10000, "10000 distinct keys");
	k = (struct key){ .a = 4321, .b = 4321 * 7, .c = 4321, .name = "ab" };
	v = hashmap_lookup(m, &k);
	CHECK(v && v->count == 3, "find returns the value of a present key");
	k.name[0] = 'x';
	CHECK(hashmap_lookup(m, &k) == NULL, "a key differing in one byte is another key");
	hashmap_each(m, sum_counts, &total);
	CHECK_U64(total, 30000, "each visits every entry once");
	hashmap_free(m);
	hashmap_free(NULL);

	/* values stay where they are while the map grows and loses entries */
	{
		struct hashmap *d = hashmap_new(sizeof(uint64_t), sizeof(uint64_t));
		uint64_t *first[5000];
		int same = 1, found = 1, gone = 1, dels = 1;

		for (uint64_t i = 0; i < 5000; i++) {
			first[i] = hashmap_get(d, &i, NULL);
			*first[i] = i * 3;
		}
		for (uint64_t i = 0; i < 5000; i += 2)
			dels &= hashmap_del(d, &i);
		CHECK(dels, "every present key is deleted");
		for (uint64_t i = 0; i < 5000; i++) {
			uint64_t *v = hashmap_lookup(d, &i);

			if (i % 2)
				same &= v == first[i] && *v == i * 3;
			else
				gone &= v == NULL;
		}
		CHECK(same, "a value keeps its place through growth and deletes");
		CHECK(gone, "a deleted key is not found");
		CHECK_U64(hashmap_count(d), 2500, "deletes leave the others counted");
		{
			uint64_t k2 = 2;

			CHECK(!hashmap_del(d, &k2), "deleting an absent key says so");
			hashmap_get(d, &k2, &created);
			CHECK(created, "a deleted key is created again");
		}
		for (uint64_t i = 0; i < 5000; i++)
			if (i % 2)
				found &= hashmap_lookup(d, &i) == first[i] &&
					 *(const uint64_t *)hashmap_key(d, first[i]) == i;
		CHECK(found, "the key of a value is its key");
		hashmap_free(d);
	}

	/* keys of any size */
	{
		struct hashmap *b = hashmap_new(0, sizeof(int));
		char buf[32];
		int all = 1;

		for (int i = 0; i < 2000; i++) {
			int len = snprintf(buf, sizeof(buf), "%d", i * 37);

			*(int *)hashmap_get_blob(b, buf, len, NULL) = i;
		}
		for (int i = 0; i < 2000; i++) {
			int len = snprintf(buf, sizeof(buf), "%d", i * 37);
			int *v = hashmap_lookup_blob(b, buf, len);

			all &= v && *v == i && !memcmp(hashmap_key(b, v), buf, len);
		}
		CHECK(all, "byte strings of any size are keys");
		CHECK(hashmap_lookup_blob(b, "37", 1) == NULL, "a prefix of a key is another key");
		CHECK(hashmap_lookup_blob(b, "", 0) == NULL, "the empty key is absent");
		*(int *)hashmap_get_blob(b, "", 0, &created) = -1;
		CHECK(created && *(int *)hashmap_lookup_blob(b, "", 0) == -1, "the empty key is a key");
		CHECK_U64(hashmap_count(b), 2001, "2001 keys of any size");
		hashmap_free(b);
	}

	/* the one hash function */
	CHECK_U64(hash_str("stack;frame"), hash_bytes("stack;frame", 11),
		  "a string hashes as its bytes");
	CHECK(hash_bytes("ab", 2) != hash_bytes("ba", 2), "the order of the bytes counts");
	{
		uint64_t w[2] = { 1, 0 }, x[2] = { 0, 1 }, lo = 0;

		CHECK(hash_bytes(w, sizeof(w)) != hash_bytes(x, sizeof(x)),
		      "words in other places: another hash");
		/* the low bits pick a slot: 256 consecutive keys fill most of
		 * 256 slots */
		{
			unsigned char used[256] = { 0 };

			for (uint64_t i = 0; i < 256; i++)
				used[hash_bytes(&i, sizeof(i)) & 255] = 1;
			for (int i = 0; i < 256; i++)
				lo += used[i];
		}
		CHECK(lo > 140, "consecutive keys spread over the low bits (%" PRIu64 " of 256)", lo);
	}
	return unit_exit();
}
