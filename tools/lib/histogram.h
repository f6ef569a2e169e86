/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Reading the shared log-linear histogram (bpf/hist.h) in user space:
 * percentiles, a bar chart, JSON. */
#ifndef SUITE_HIST_USER_H
#define SUITE_HIST_USER_H

#include <linux/types.h>
#include <stdio.h>
#include "hist.h"  /* bpf/hist.h */
#include "json.h"

/* Adds src into dst (per-CPU values, or several keys merged) */
void hist_merge(struct hist *dst, const struct hist *src);
/* The value below which a fraction p (0..1) of the samples lie,
 * estimated at the middle of its slot, within [minimum, maximum]. */
__u64 hist_percentile(const struct hist *h, double p);
/* A bar chart of the non-empty range, one row per power of two (the
 * sub-buckets summed; a run of empty rows inside it is one row of 0
 * over the run's whole range), then count/avg/p50/p99/p99.9/max.
 * unit is the unit of the values ("ns"); values are shown scaled to
 * readable units. */
void hist_print(FILE *f, const struct hist *h, const char *indent);
/* {"count":..,"sum_ns":..,"min_ns":..,"max_ns":..,"p50_ns":..,"p99_ns":..,"p999_ns":..,
 *  "buckets":[{"low":..,"high":..,"count":..}...]} (non-empty buckets) */
void hist_json(struct json *j, const struct hist *h);
/* Writes "p50_ns", "p99_ns", "p999_ns" keys into the current object */
void hist_json_percentiles(struct json *j, const struct hist *h);

#endif
