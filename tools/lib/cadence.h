/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* How regularly something arrives: its period, the median interval
 * between its arrivals, and how far the intervals stray from it (the
 * median of their distances to the period, as a share of it), from the
 * arrival times.  An intruder that runs every 250 ms reads
 * "every 250 ms (±1%)". */
#ifndef SUITE_CADENCE_H
#define SUITE_CADENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CADENCE_KEEP 65536	/* arrivals kept per series: the first ones */
#define CADENCE_MIN 3		/* arrivals a period needs */
/* Arrival times one run of a tool keeps, all its series together (8 bytes
 * each: 8 MiB); the arrivals past it are counted, not kept */
#define CADENCE_BUDGET (1u << 20)

struct json;

struct cadence {
	uint64_t *ts;		/* arrival times, in the order given */
	size_t n, cap;
	uint64_t beyond;	/* arrivals after the first CADENCE_KEEP, not kept */
};

struct cadence_result {
	uint64_t period_ns;	/* the median interval */
	double spread_pct;	/* median distance of an interval to it, % of it */
	size_t intervals;	/* intervals it is computed from */
	bool partial;		/* from the first CADENCE_KEEP arrivals only */
};

/* An arrival at ts: kept while c holds fewer than CADENCE_KEEP and the
 * run's *spent (the arrivals all its series keep; NULL: not shared) is
 * under CADENCE_BUDGET, else counted in c->beyond.  Returns whether it
 * was kept. */
bool cadence_add(struct cadence *c, uint64_t ts, size_t *spent);
/* The arrivals of src into dst (several series that read as one), src
 * left empty; nothing is copied when dst is empty */
void cadence_take(struct cadence *dst, struct cadence *src);
/* The period of c's arrivals (in any order); false with fewer than
 * CADENCE_MIN of them, or when they all came at one instant */
bool cadence_get(const struct cadence *c, struct cadence_result *r);
/* "every 250 ms (±1%)"; the spread under 1% reads "±<1%"; a partial
 * result (past CADENCE_KEEP or CADENCE_BUDGET) adds " (from the first
 * arrivals)" */
void cadence_fmt(const struct cadence_result *r, char *buf, size_t size);
/* The key "cadence": {"period_ns", "spread_pct", "arrivals", "partial"},
 * or null with fewer than CADENCE_MIN arrivals */
void cadence_json(struct json *j, const struct cadence *c);
void cadence_free(struct cadence *c);

#endif
