// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The growable array (tools/lib/vec.h) */
#include "unit.h"
#include "vec.h"

struct pair {
	int a, b;
};

int main(void)
{
	VEC(int) iv = { 0 };
	VEC(struct pair) pv = { 0 };
	struct pair *p;
	int ok = 1;

	CHECK(iv.n == 0 && iv.cap == 0 && !iv.v, "zeroed: empty");
	for (int i = 0; i < 1000; i++)
		vec_push(&iv, i * 3);
	for (int i = 0; i < 1000; i++)
		ok &= iv.v[i] == i * 3;
	CHECK(ok && iv.n == 1000, "push: 1000 elements in order");
	CHECK(iv.cap == 1024, "grows by doubling from 16: cap %zu", iv.cap);
	vec_reserve(&iv, 5000);
	CHECK(iv.cap == 8192 && iv.n == 1000, "reserve: room, length kept");
	vec_reserve(&iv, 10);
	CHECK(iv.cap == 8192, "reserve less: nothing changes");
	vec_free(&iv);
	CHECK(iv.n == 0 && iv.cap == 0 && !iv.v, "free: empty again");

	p = vec_add(&pv);
	p->a = 1, p->b = 2;
	vec_push(&pv, ((struct pair){ 3, 4 }));
	CHECK(pv.n == 2 && pv.v[0].b == 2 && pv.v[1].a == 3,
	      "add and push of structs");
	vec_free(&pv);
	return unit_exit();
}
