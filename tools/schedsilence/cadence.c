// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* How regularly something arrives (cadence.h) */
#include "cadence.h"
#include "clock.h"
#include "vec.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cadence_add(struct cadence *c, uint64_t ts)
{
	if (c->n >= CADENCE_KEEP) {
		c->beyond++;
		return;
	}
	array_reserve(c->ts, c->cap, c->n + 1);
	c->ts[c->n++] = ts;
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

	fmt_dur(d, sizeof(d), r->period_ns, DUR_PERIOD);
	if (r->spread_pct < 0.5)
		snprintf(buf, size, "every %s (\u00b1<1%%)", d);
	else
		snprintf(buf, size, "every %s (\u00b1%.0f%%)", d, r->spread_pct);
}

void cadence_free(struct cadence *c)
{
	free(c->ts);
	*c = (struct cadence){ 0 };
}
