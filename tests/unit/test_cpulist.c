// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* CPU lists both ways (tools/lib/cpulist.h) */
#include "unit.h"
#include "cpulist.h"

/* s parsed, then formatted again */
static const char *round_trip(const char *s, char *buf, size_t size)
{
	struct cpu_list l = { 0 };
	char err[128];

	if (parse_cpu_list(s, MAX_CPUS_SUPPORTED, &l, err, sizeof(err)))
		return NULL;
	cpu_list_str(&l, buf, size);
	cpu_list_free(&l);
	return buf;
}

int main(void)
{
	struct cpu_list a = { 0 }, b = { 0 }, d = { 0 };
	char buf[64], err[128];

	CHECK_STR(round_trip("0-3,7", buf, sizeof(buf)), "0-3,7", "0-3,7 both ways");
	CHECK_STR(round_trip("7,3,2,1,0", buf, sizeof(buf)), "0-3,7", "sorted and joined");
	CHECK_STR(round_trip("5,5,4-6", buf, sizeof(buf)), "4-6", "duplicates merged");
	CHECK_STR(round_trip("0,2,4", buf, sizeof(buf)), "0,2,4", "no ranges");
	CHECK_STR(round_trip("0,2,4,6,8,10", buf, 8), "0,2,...", "cut: ends in ...");
	CHECK(parse_cpu_list("2-1", 8, &a, err, sizeof(err)) == -1, "2-1 refused");
	CHECK_STR(err, "'2-1': range goes backwards", "2-1: said why");
	CHECK(parse_cpu_list("0-8", 8, &a, err, sizeof(err)) == -1, "0-8 of 8 refused");
	CHECK(parse_cpu_list("0,,1", 8, &a, err, sizeof(err)) == -1, "empty element refused");
	cpu_list_free(&a);

	CHECK(!cpumask_hex_parse("1,00000005", &a) && a.n == 3, "cpumask with words");
	cpu_list_str(&a, buf, sizeof(buf));
	CHECK_STR(buf, "0,2,32", "cpumask as a list");
	CHECK(cpumask_hex_parse("0", &b) == -1 || b.n == 0, "an empty cpumask: no CPUs");
	cpu_list_free(&b);
	parse_cpu_list("2", 8, &b, err, sizeof(err));
	cpu_list_minus(&a, &b, &d);
	cpu_list_str(&d, buf, sizeof(buf));
	CHECK_STR(buf, "0,32", "0,2,32 minus 2");
	CHECK(cpu_list_has(&a, 32) && !cpu_list_has(&a, 1), "has");
	cpu_list_free(&a);
	cpu_list_free(&b);
	cpu_list_free(&d);
	buf[0] = 'x';
	cpu_list_str(&a, buf, sizeof(buf));
	CHECK_STR(buf, "", "an empty list: empty text");
	return unit_exit();
}
