// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Strict option parsing: numbers, durations, id and CPU lists. */
#include "unit.h"
#include "opts.h"
#include <stdlib.h>
#include <unistd.h>

static int u64_ok(const char *s, uint64_t min, uint64_t max, uint64_t want)
{
	char err[160];
	uint64_t v = 0;

	return !parse_u64(s, min, max, true, &v, err, sizeof(err)) && v == want;
}

static int u64_bad(const char *s, uint64_t min, uint64_t max)
{
	char err[160] = "";
	uint64_t v;

	return parse_u64(s, min, max, true, &v, err, sizeof(err)) == -1 && err[0];
}

int main(void)
{
	struct id_list ids = { 0 };
	struct cpu_list cpus = { 0 };
	char err[160], buf[32];
	double d;

	CHECK(u64_ok("12", 0, 100, 12), "12 parses");
	CHECK(u64_ok("0x10", 0, 100, 16), "0x10 parses as hex");
	CHECK(u64_bad("12abc", 0, 100), "12abc is rejected");
	CHECK(u64_bad("-5", 0, 100), "-5 is rejected");
	CHECK(u64_bad("0x", 0, 100), "0x is rejected");
	CHECK(u64_bad("", 0, 100), "empty is rejected");
	CHECK(u64_bad(" 5", 0, 100), "leading space is rejected");
	CHECK(u64_bad("99999999999999999999999", 0, ~0ULL), "overflow is rejected");
	CHECK(u64_bad("101", 0, 100), "above max is rejected");
	CHECK(u64_bad("0", 1, 100), "below min is rejected");
	CHECK(u64_ok("18446744073709551615", 0, ~0ULL, ~0ULL), "UINT64_MAX parses");

	CHECK(!parse_seconds("2.5", &d, err, sizeof(err)) && d == 2.5, "2.5 s parses");
	CHECK(parse_seconds("0", &d, err, sizeof(err)) == -1, "0 s is rejected");
	CHECK(parse_seconds("-1", &d, err, sizeof(err)) == -1, "-1 s is rejected");
	CHECK(parse_seconds("1s", &d, err, sizeof(err)) == -1, "1s is rejected");
	CHECK(parse_seconds("nan", &d, err, sizeof(err)) == -1, "nan is rejected");
	CHECK(parse_seconds("inf", &d, err, sizeof(err)) == -1, "inf is rejected");
	CHECK(parse_seconds("1e9", &d, err, sizeof(err)) == -1, "1e9 s is out of range");

	CHECK(!parse_id_list("1,2,3,2", &ids, err, sizeof(err)) && ids.n == 3,
	      "id list 1,2,3,2 gives 3 unique ids");
	id_list_str(&ids, buf, sizeof(buf));
	CHECK_STR(buf, "1,2,3", "id list prints back");
	id_list_free(&ids);
	CHECK(parse_id_list("1,,2", &ids, err, sizeof(err)) == -1, "1,,2 is rejected");
	CHECK(parse_id_list("", &ids, err, sizeof(err)) == -1, "empty id list is rejected");
	CHECK(parse_id_list("0", &ids, err, sizeof(err)) == -1, "id 0 is rejected");
	CHECK(parse_id_list("5,", &ids, err, sizeof(err)) == -1, "trailing comma is rejected");
	id_list_free(&ids);
	/* no small hard cap */
	{
		char big[8 * 2000];
		size_t off = 0;

		for (int i = 1; i <= 1500; i++)
			off += snprintf(big + off, sizeof(big) - off, "%s%d", i > 1 ? "," : "", i);
		CHECK(!parse_id_list(big, &ids, err, sizeof(err)) && ids.n == 1500,
		      "a list of 1500 ids parses");
		id_list_free(&ids);
	}

	CHECK(!parse_cpu_list("0-2,6", 8, &cpus, err, sizeof(err)) && cpus.n == 4 &&
	      cpus.cpus[0] == 0 && cpus.cpus[3] == 6, "0-2,6 gives 0 1 2 6");
	cpu_list_free(&cpus);
	CHECK(!parse_cpu_list("5,2,2", 8, &cpus, err, sizeof(err)) && cpus.n == 2 &&
	      cpus.cpus[0] == 2, "5,2,2 gives sorted unique 2 5");
	cpu_list_free(&cpus);
	CHECK(parse_cpu_list("8", 8, &cpus, err, sizeof(err)) == -1, "CPU 8 of 8 is rejected");
	CHECK(parse_cpu_list("3-1", 8, &cpus, err, sizeof(err)) == -1, "3-1 is rejected");
	CHECK(parse_cpu_list("-1", 8, &cpus, err, sizeof(err)) == -1, "-1 is rejected");
	CHECK(parse_cpu_list("1-", 8, &cpus, err, sizeof(err)) == -1, "1- is rejected");
	CHECK(parse_cpu_list("a", 8, &cpus, err, sizeof(err)) == -1, "a is rejected");
	CHECK(parse_cpu_list("", 8, &cpus, err, sizeof(err)) == -1, "empty CPU list is rejected");
	cpu_list_free(&cpus);

	setenv("SUITE_CPU_ONLINE", "/dev/null", 1);
	CHECK(cpus_online(&cpus) == -1, "an empty online file is an error");
	unsetenv("SUITE_CPU_ONLINE");
	CHECK(!cpus_online(&cpus) && cpus.n >= 1, "this machine has online CPUs");
	cpu_list_free(&cpus);

	/* identities: /proc/ID/stat's state and start time, whatever the comm */
	{
		const char *st = "123 (a) b) c) S 1 123 123 0 -1 4194304 10 0 0 0 1 2 0 0 20 0 "
				 "1 0 987654 1000 100\n";
		struct task_id me, later;
		uint64_t start = 0, lo, hi;
		char state = 0;

		CHECK(!task_stat_parse(st, &state, &start), "a stat line with ') ' in the comm");
		CHECK(state == 'S', "its state");
		CHECK_U64(start, 987654, "its start time (field 22)");
		CHECK(task_stat_parse("123 (x) S 1 2", &state, &start), "a short line fails");
		CHECK(task_stat_parse("garbage", &state, &start), "no comm: fails");
		CHECK(!task_id_read(getpid(), &me) && me.tgid == (uint32_t)getpid(),
		      "this process: its identity");
		CHECK(task_id_alive(getpid(), &me), "alive as itself");
		later = me;
		later.start++;
		CHECK(!task_id_alive(getpid(), &later), "a task started later with the number: not it");
		task_id_start_ns(&me, &lo, &hi);
		CHECK(hi > lo && lo / (hi - lo) == me.start, "start range: one clock tick");
	}
	return unit_exit();
}
