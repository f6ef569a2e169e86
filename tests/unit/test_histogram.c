// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The log-linear histogram shared by BPF and user space. */
#include "unit.h"
#include "histogram.h"
#include "hist.bpf.h"	/* hist_add_local() */
#include <stdlib.h>

static int slots_contiguous(void)
{
	for (unsigned s = 0; s + 1 < HIST_SLOTS; s++)
		if (hist_slot_high(s) + 1 != hist_slot_low(s + 1))
			return 0;
	return 1;
}

static int slot_covers(uint64_t v)
{
	unsigned s = hist_slot(v);

	return s < HIST_SLOTS && hist_slot_low(s) <= v && v <= hist_slot_high(s);
}

static void print_hist(FILE *f, void *h)
{
	hist_print(f, h, "");
}

static int lines_of(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

int main(void)
{
	struct hist *h = calloc(1, sizeof(*h));
	int ok = 1;

	CHECK_U64(HIST_SLOTS, 496, "496 slots");
	CHECK(slots_contiguous(), "slots tile the u64 range without gaps");
	CHECK_U64(hist_slot(0), 0, "0 in slot 0");
	CHECK_U64(hist_slot(15), 15, "15 in slot 15 (linear part)");
	CHECK_U64(hist_slot(16), 16, "16 in slot 16");
	CHECK_U64(hist_slot(~0ULL), HIST_SLOTS - 1, "UINT64_MAX in the last slot");
	CHECK_U64(hist_slot_high(HIST_SLOTS - 1), ~0ULL, "last slot ends at UINT64_MAX");
	for (uint64_t v = 1; v < (1ULL << 62); v = v * 3 + 1)
		ok &= slot_covers(v);
	CHECK(ok, "every value falls in a slot that covers it");
	ok = 1;
	for (unsigned s = HIST_LINEAR; s < HIST_SLOTS - 1; s++) {
		double w = hist_slot_high(s) - hist_slot_low(s) + 1;

		if (w / hist_slot_low(s) > 0.125 + 1e-12)
			ok = 0;
	}
	CHECK(ok, "a slot spans at most 1/8 of its low bound");
	CHECK_U64(hist_log2(1), 0, "log2(1)");
	CHECK_U64(hist_log2(1ULL << 40), 40, "log2(2^40)");
	CHECK_U64(hist_log2((1ULL << 40) - 1), 39, "log2(2^40-1)");

	/* 1000 samples 1..1000 us: percentiles within 7% */
	for (uint64_t i = 1; i <= 1000; i++) {
		uint64_t v = i * 1000;

		h->slots[hist_slot(v)]++;
		h->count++;
		h->sum += v;
		if (v > h->max)
			h->max = v;
	}
	{
		double p50 = hist_percentile(h, 0.5), p99 = hist_percentile(h, 0.99);
		double p999 = hist_percentile(h, 0.999);

		CHECK(p50 > 500000 * 0.93 && p50 < 500000 * 1.07, "p50 of 1..1000us ~ 500us (%.0f)", p50);
		CHECK(p99 > 990000 * 0.93 && p99 < 990000 * 1.07, "p99 ~ 990us (%.0f)", p99);
		CHECK(p999 > 999000 * 0.93 && p999 <= 1000000, "p99.9 ~ 999us and <= max (%.0f)", p999);
	}
	CHECK_U64(hist_percentile(h, 1.0), 1000000, "p100 is the max");
	memset(h, 0, sizeof(*h));
	CHECK_U64(hist_percentile(h, 0.5), 0, "empty histogram gives 0");
	h->slots[hist_slot(7)] = 3;
	h->count = 3;
	h->max = 7;
	CHECK_U64(hist_percentile(h, 0.99), 7, "exact in the linear range");

	/* a narrow cluster at the top of a wide slot: nanosleep(5 ms) takes
	 * 5.086 to 5.090 ms, in the slot 4.72..5.24 ms whose middle is
	 * 4.98 ms; no percentile may read below the smallest call */
	memset(h, 0, sizeof(*h));
	CHECK_U64(hist_min(h), 0, "no minimum when empty");
	for (uint64_t v = 5086000; v <= 5090000; v += 40)
		hist_add_local(h, v);
	CHECK_U64(hist_min(h), 5086000, "the minimum is exact");
	CHECK_U64(h->max, 5090000, "the maximum is exact");
	CHECK(hist_percentile(h, 0.5) >= 5086000 && hist_percentile(h, 0.5) <= 5090000,
	      "p50 within [min, max] (%llu)", (unsigned long long)hist_percentile(h, 0.5));
	CHECK(hist_percentile(h, 0.0) == 5086000, "p0 is the minimum");
	{
		struct hist *g = calloc(1, sizeof(*g));

		hist_add_local(g, 7000000);
		hist_add_local(g, 4000000);
		hist_merge(g, h);
		CHECK_U64(hist_min(g), 4000000, "merged: the smaller minimum");
		CHECK_U64(g->max, 7000000, "merged: the larger maximum");
		memset(g, 0, sizeof(*g));
		hist_merge(g, h);
		CHECK_U64(hist_min(g), 5086000, "merged into an empty one: its minimum");
		free(g);
	}
	hist_add_local(h, 0);
	CHECK_U64(hist_min(h), 0, "a zero is a minimum too");
	free(h);

	/* issue 27: a 0 ns row, then 13 empty rows, then 8-16us: the empty
	 * run is one row of 0 over its whole range */
	{
		struct hist *g = calloc(1, sizeof(*g));
		char *out;

		hist_add_local(g, 0);
		for (int i = 0; i < 9; i++)
			hist_add_local(g, 9000);
		out = unit_capture(print_hist, g);
		CHECK(out && lines_of(out) == 4, "0 ns, one row for the empty run, 8-16us, "
		      "the summary: 4 lines");
		CHECK(out && strstr(out, "      1ns .. 8.2us              0 |"),
		      "the empty run is one row from 1ns to 8.2us (8191 ns)");
		CHECK(out && strstr(out, "    8.2us .. 16.4us             9 |"),
		      "the 9 samples at 9us");
		if (out)
			printf("%s", out);
		free(out);
		free(g);
	}
	return unit_exit();
}
