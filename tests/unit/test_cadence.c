// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The period of arrivals: the median interval, the spread around it, the
 * text that says both */
#include "unit.h"
#include "cadence.h"
#include "json.h"

#define MS 1000000ULL

static bool of(const uint64_t *ts, size_t n, struct cadence_result *r)
{
	struct cadence c = { 0 };
	bool ok;

	for (size_t i = 0; i < n; i++)
		cadence_add(&c, ts[i], NULL);
	ok = cadence_get(&c, r);
	cadence_free(&c);
	return ok;
}

int main(void)
{
	/* every 250 ms, each arrival up to 2 ms late, given out of order */
	static const uint64_t jittered[] = { 1000 * MS + 1 * MS, 1250 * MS, 1750 * MS + 2 * MS,
					     1500 * MS, 2000 * MS + 1 * MS, 2250 * MS };
	static const uint64_t spread[] = { 0, 90 * MS, 190 * MS, 300 * MS };	/* 90, 100, 110 */
	static const uint64_t two[] = { 0, 250 * MS };
	static const uint64_t same[] = { 5, 5, 5 };
	struct cadence_result r;
	struct cadence c = { 0 };
	char buf[64];

	CHECK(of(jittered, 6, &r), "six arrivals: a period");
	CHECK_U64(r.period_ns, 250 * MS - 1 * MS, "the median interval of 249, 250, 252, 249, 249 ms "
		  "(of the arrivals in time order)");
	CHECK_U64(r.intervals, 5, "five intervals");
	CHECK(r.spread_pct == 0, "spread: the median distance to it, 0 (three of five are 249 ms)");
	cadence_fmt(&r, buf, sizeof(buf));
	CHECK_STR(buf, "every 249 ms (\u00b1<1%)", "a regular intruder reads as its period");
	CHECK(of(spread, 4, &r), "four arrivals: a period");
	CHECK_U64(r.period_ns, 100 * MS, "90, 100, 110 ms: 100 ms");
	cadence_fmt(&r, buf, sizeof(buf));
	CHECK_STR(buf, "every 100 ms (\u00b110%)", "its spread: 10 ms of 100");
	r.spread_pct = 0;
	for (size_t i = 0; i < 3; i++) {
		static const struct {
			uint64_t ns;
			const char *want;
		} units[] = { { 999999999, "every 1 s (\u00b1<1%)" },
			      { 80000, "every 80 us (\u00b1<1%)" },
			      { 1250000000, "every 1.25 s (\u00b1<1%)" } };

		r.period_ns = units[i].ns;
		cadence_fmt(&r, buf, sizeof(buf));
		CHECK_STR(buf, units[i].want, "a period in the unit that reads best");
	}
	CHECK(!of(two, 2, &r), "two arrivals: no period");
	CHECK(!of(same, 3, &r), "three arrivals at one instant: no period");
	for (uint64_t i = 0; i < CADENCE_KEEP + 5; i++)
		cadence_add(&c, i * 3, NULL);
	CHECK_U64(c.beyond, 5, "arrivals beyond the first CADENCE_KEEP counted, not kept");
	CHECK(cadence_get(&c, &r) && r.partial && r.period_ns == 3, "a period from the kept ones, "
	      "said to be partial");
	cadence_fmt(&r, buf, sizeof(buf));
	CHECK_STR(buf, "every 3 ns (\u00b1<1%) (from the first arrivals)", "the text says it is "
		  "partial (both tools print it so)");
	cadence_free(&c);

	/* the run's budget, shared by its series */
	{
		struct cadence a = { 0 }, b = { 0 };
		size_t spent = CADENCE_BUDGET - 3;

		CHECK(cadence_add(&a, 10, &spent) && cadence_add(&a, 20, &spent),
		      "kept while the budget lasts");
		CHECK(cadence_add(&b, 5, &spent), "by any series");
		CHECK(!cadence_add(&b, 15, &spent) && !cadence_add(&a, 30, &spent),
		      "then counted, not kept");
		CHECK_U64(spent, CADENCE_BUDGET, "the budget spent, not passed");
		CHECK(a.n == 2 && a.beyond == 1 && b.n == 1 && b.beyond == 1, "each series counts "
		      "its own");
		/* two series that read as one: 5, 10, 20 (and two not kept) */
		cadence_take(&a, &b);
		CHECK(a.n == 3 && a.beyond == 2 && !b.n && !b.ts && !b.beyond, "taken whole, the "
		      "other left empty");
		CHECK(cadence_get(&a, &r) && r.period_ns == 5 && r.partial, "one period of both: "
		      "5 and 10 ms intervals, the lower middle");
		cadence_take(&b, &a);
		CHECK(b.n == 3 && b.beyond == 2 && !a.ts, "into an empty one: moved, not copied");
		cadence_free(&a);
		cadence_free(&b);
	}
	{
		static const uint64_t ts[] = { 0, 250 * MS, 500 * MS, 750 * MS };
		struct cadence k = { 0 };
		struct json j;
		char *out = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);

		json_init(&j, f);
		json_obj_begin(&j);
		cadence_json(&j, &k);
		for (size_t i = 0; i < 4; i++)
			cadence_add(&k, ts[i], NULL);
		json_key(&j, "x");
		json_obj_begin(&j);
		cadence_json(&j, &k);
		json_obj_end(&j);
		json_obj_end(&j);
		fclose(f);
		CHECK_STR(out, "{\"cadence\":null,\"x\":{\"cadence\":{\"period_ns\":250000000,"
			  "\"spread_pct\":0,\"arrivals\":4,\"partial\":false}}}",
			  "JSON: null under CADENCE_MIN, else the period");
		free(out);
		cadence_free(&k);
	}
	return unit_exit();
}
