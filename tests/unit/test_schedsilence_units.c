// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* schedsilence's duration columns: one unit each, chosen from the
 * column's largest value (tools/schedsilence/report.h) */
#include "unit.h"
#include "report.h"

static const char *in(uint64_t ns, uint64_t largest, char *buf, size_t size)
{
	report_fmt_in(ns, report_unit_for(largest), buf, size);
	return buf;
}

int main(void)
{
	char buf[64];

	CHECK_STR(report_unit_for(0).name, "ns", "an empty column: ns");
	CHECK_STR(report_unit_for(9999).name, "ns", "up to 9999 ns: ns");
	CHECK_STR(report_unit_for(10000).name, "us", "10 us: us");
	CHECK_STR(report_unit_for(9999999).name, "us", "just under 10 ms: us");
	CHECK_STR(report_unit_for(10000000).name, "ms", "10 ms: ms");
	CHECK_STR(report_unit_for(9170100000ull).name, "ms", "9170.1 ms: ms");
	CHECK_STR(report_unit_for(10000000000ull).name, "s", "10 s: s");
	/* the column: 9170.1ms, 5614.5us and 0ns (here 5614.6), one unit */
	CHECK_STR(in(9170100000ull, 9170100000ull, buf, sizeof(buf)), "9170.100",
		  "the largest in ms");
	CHECK_STR(in(5614600, 9170100000ull, buf, sizeof(buf)), "5.615", "5614.6 us in ms");
	CHECK_STR(in(0, 9170100000ull, buf, sizeof(buf)), "0.000", "0 in ms");
	CHECK_STR(in(1234, 1234, buf, sizeof(buf)), "1234", "ns: whole");
	CHECK_STR(in(512, 20000, buf, sizeof(buf)), "0.5", "us: one decimal");
	CHECK_STR(in(12345678901ull, 12345678901ull, buf, sizeof(buf)), "12.346", "s");
	return unit_exit();
}
