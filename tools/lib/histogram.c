// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "histogram.h"
#include "clock.h"

#include <string.h>

void hist_merge(struct hist *dst, const struct hist *src)
{
	for (int i = 0; i < HIST_SLOTS; i++)
		dst->slots[i] += src->slots[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->max > dst->max)
		dst->max = src->max;
	if (src->nmin > dst->nmin)
		dst->nmin = src->nmin;
}

static __u64 slots_total(const struct hist *h)
{
	__u64 n = 0;

	for (int i = 0; i < HIST_SLOTS; i++)
		n += h->slots[i];
	return n;
}

__u64 hist_percentile(const struct hist *h, double p)
{
	__u64 total = slots_total(h), seen = 0, rank, low, high, mid;

	if (!total)
		return 0;
	if (p < 0)
		p = 0;
	if (p > 1)
		p = 1;
	/* the rank-th smallest sample, 1-based, rounded up */
	rank = (__u64)(p * total);
	if ((double)rank < p * total)
		rank++;
	if (rank < 1)
		rank = 1;
	for (int i = 0; i < HIST_SLOTS; i++) {
		seen += h->slots[i];
		if (seen < rank)
			continue;
		low = hist_slot_low(i);
		high = hist_slot_high(i);
		mid = low + (high - low) / 2;
		if (h->max && mid > h->max)
			mid = h->max;
		if (mid < low && h->max >= low)
			mid = low;
		/* never outside what was recorded: below the smallest value
		 * (a slot's middle under a narrow cluster) or above the largest */
		if (mid < hist_min(h))
			mid = hist_min(h);
		return mid;
	}
	return h->max;
}

void hist_print(FILE *f, const struct hist *h, const char *indent)
{
	__u64 rows[65] = { 0 }, peak = 0;
	int first = -1, last = -1;
	char lo[32], hi[32], a[32], b[32], c[32], d[32], e[32];

	/* row r holds values in [2^(r-1), 2^r), row 0 holds 0 */
	for (int i = 0; i < HIST_SLOTS; i++) {
		__u64 low = hist_slot_low(i);
		int r;

		if (!h->slots[i])
			continue;
		r = low ? (int)hist_log2(low) + 1 : 0;
		rows[r] += h->slots[i];
	}
	for (int r = 0; r < 65; r++) {
		if (!rows[r])
			continue;
		if (first < 0)
			first = r;
		last = r;
		if (rows[r] > peak)
			peak = rows[r];
	}
	if (first < 0) {
		fprintf(f, "%s(no samples)\n", indent);
		return;
	}
	for (int r = first; r <= last; r++) {
		int end = r;	/* a run of empty rows: one row for all */
		__u64 l = r ? 1ULL << (r - 1) : 0, u;
		int bar = (int)(rows[r] * 40 / peak);

		while (!rows[r] && end + 1 <= last && !rows[end + 1])
			end++;
		u = end ? (end == 64 ? ~0ULL : (1ULL << end) - 1) : 0;
		fmt_dur(lo, sizeof(lo), l, DUR_CELL);
		fmt_dur(hi, sizeof(hi), u, DUR_CELL);
		fprintf(f, "%s%9s .. %-9s %10llu |", indent, lo, hi,
			(unsigned long long)rows[r]);
		for (int k = 0; k < 40; k++)
			fputc(k < bar ? '*' : ' ', f);
		fputs("|\n", f);
		r = end;
	}
	fmt_dur(a, sizeof(a), h->count ? h->sum / h->count : 0, DUR_CELL);
	fmt_dur(b, sizeof(b), hist_percentile(h, 0.50), DUR_CELL);
	fmt_dur(c, sizeof(c), hist_percentile(h, 0.99), DUR_CELL);
	fmt_dur(d, sizeof(d), hist_percentile(h, 0.999), DUR_CELL);
	fmt_dur(e, sizeof(e), h->max, DUR_CELL);
	fprintf(f, "%scount %llu  avg %s  p50 %s  p99 %s  p99.9 %s  max %s\n",
		indent, (unsigned long long)h->count, a, b, c, d, e);
}

void hist_json_percentiles(struct json *j, const struct hist *h)
{
	json_kv_u64(j, "p50_ns", hist_percentile(h, 0.50));
	json_kv_u64(j, "p99_ns", hist_percentile(h, 0.99));
	json_kv_u64(j, "p999_ns", hist_percentile(h, 0.999));
}

void hist_json(struct json *j, const struct hist *h)
{
	json_obj_begin(j);
	json_kv_u64(j, "count", h->count);
	json_kv_u64(j, "sum_ns", h->sum);
	json_kv_u64(j, "min_ns", hist_min(h));
	json_kv_u64(j, "max_ns", h->max);
	hist_json_percentiles(j, h);
	json_key(j, "buckets");
	json_arr_begin(j);
	for (int i = 0; i < HIST_SLOTS; i++) {
		if (!h->slots[i])
			continue;
		json_obj_begin(j);
		json_kv_u64(j, "low", hist_slot_low(i));
		json_kv_u64(j, "high", hist_slot_high(i));
		json_kv_u64(j, "count", h->slots[i]);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}
