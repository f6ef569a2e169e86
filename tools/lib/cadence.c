// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* How regularly something arrives (cadence.h) */
#include "cadence.h"
#include "clock.h"
#include "json.h"
#include "vec.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool cadence_add(struct cadence *c, uint64_t ts, size_t *spent)
{
	if (c->n >= CADENCE_KEEP || (spent && *spent >= CADENCE_BUDGET)) {
		c->beyond++;
		return false;
	}
	array_reserve(c->ts, c->cap, c->n + 1);
	c->ts[c->n++] = ts;
	if (spent)
		(*spent)++;
	return true;
}

void cadence_take(struct cadence *dst, struct cadence *src)
{
	if (!dst->n) {
		uint64_t beyond = dst->beyond;

		free(dst->ts);
		*dst = *src;
		dst->beyond += beyond;
	} else {
		array_reserve(dst->ts, dst->cap, dst->n + src->n);
		memcpy(dst->ts + dst->n, src->ts, src->n * sizeof(*src->ts));
		dst->n += src->n;
		dst->beyond += src->beyond;
		free(src->ts);
	}
	*src = (struct cadence){ 0 };
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The median of v's n values (sorted in place), the lower of the two
 * middle ones when n is even */
static uint64_t median(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), u64_cmp);
	return v[(n - 1) / 2];
}

bool cadence_get(const struct cadence *c, struct cadence_result *r)
{
	size_t n;
	uint64_t *t, med, dev;

	if (c->n < CADENCE_MIN)
		return false;
	n = c->n - 1;
	t = xcalloc(c->n, sizeof(*t));
	memcpy(t, c->ts, c->n * sizeof(*t));
	qsort(t, c->n, sizeof(*t), u64_cmp);
	/* the intervals, in place */
	for (size_t i = 0; i < n; i++)
		t[i] = t[i + 1] - t[i];
	med = median(t, n);
	for (size_t i = 0; i < n; i++)
		t[i] = t[i] > med ? t[i] - med : med - t[i];
	dev = median(t, n);
	free(t);
	if (!med)
		return false;
	*r = (struct cadence_result){
		.period_ns = med,
		.spread_pct = 100.0 * (double)dev / (double)med,
		.intervals = n,
		.partial = c->beyond > 0,
	};
	return true;
}

void cadence_fmt(const struct cadence_result *r, char *buf, size_t size)
{
	char d[32];

	const char *from = r->partial ? " (from the first arrivals)" : "";

	fmt_dur(d, sizeof(d), r->period_ns, DUR_PERIOD);
	if (r->spread_pct < 0.5)
		snprintf(buf, size, "every %s (\u00b1<1%%)%s", d, from);
	else
		snprintf(buf, size, "every %s (\u00b1%.0f%%)%s", d, r->spread_pct, from);
}

void cadence_json(struct json *j, const struct cadence *c)
{
	struct cadence_result r;

	json_key(j, "cadence");
	if (!cadence_get(c, &r)) {
		json_null(j);
		return;
	}
	json_obj_begin(j);
	json_kv_u64(j, "period_ns", r.period_ns);
	json_kv_double(j, "spread_pct", r.spread_pct);
	json_kv_u64(j, "arrivals", r.intervals + 1);
	json_kv_bool(j, "partial", r.partial);
	json_obj_end(j);
}

void cadence_free(struct cadence *c)
{
	free(c->ts);
	*c = (struct cadence){ 0 };
}
