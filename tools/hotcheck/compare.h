/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A baseline's verdict (baseline.h) beside this run's, check by check,
 * matched by name.  A check's change (before -> after): "fixed" (found ->
 * silent), "new" (silent or not in the baseline -> found), "better" /
 * "worse" (found both times: fewer / more events, or as many and less /
 * more time), "same" (otherwise), and "not checked now" for a check of
 * the baseline that this run does not have.
 *
 * Calls, from hotcheck.c: after collect, hc_compare_build() with the
 * run's checks (tl->checks); in the report hc_compare_print() or
 * hc_compare_json(); bundle.c writes the table into summary.txt; then
 * hc_compare_free() (before hc_baseline_free(): rows point into both). */
#ifndef HOTCHECK_COMPARE_H
#define HOTCHECK_COMPARE_H

#include <stdio.h>

#include "baseline.h"
#include "timeline.h"

struct json;

enum hc_change { HC_SAME, HC_FIXED, HC_NEW, HC_BETTER, HC_WORSE, HC_NOT_CHECKED };
const char *hc_change_name(enum hc_change ch);

struct hc_compare_row {
	const char *name;
	const struct hc_base_check *before;	/* NULL: not in the baseline */
	const struct hc_check *after;		/* NULL: not checked now */
	enum hc_change change;
};

struct hc_compare {
	const struct hc_baseline *base;
	struct hc_compare_row *rows;	/* this run's order, then the baseline's others */
	size_t n;
};

void hc_compare_build(struct hc_compare *c, const struct hc_baseline *b,
		      const struct hc_check *now, size_t n_now);
/* The side-by-side table */
void hc_compare_print(FILE *f, const struct hc_compare *c);
/* "baseline": { ... } (docs/hotcheck.md), inside the caller's object */
void hc_compare_json(struct json *j, const struct hc_compare *c);
void hc_compare_free(struct hc_compare *c);

#endif
