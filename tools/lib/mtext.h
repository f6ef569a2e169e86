/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The Prometheus text exposition format (version 0.0.4), written into a
 * growable buffer: a family's HELP and TYPE lines, then its samples.
 *
 *	struct mtext t = { 0 };
 *	struct mlabel l[] = { { "syscall", "futex" } };
 *
 *	mtext_family(&t, "x_calls_total", "counter", "Calls made");
 *	mtext_u64(&t, "x_calls_total", l, 1, 42);
 *	... t.v, t.n: the text
 *
 * Label values may come from traced processes: each is written in the
 * suite's escaped form (escape.h: control bytes and invalid UTF-8 as
 * \xNN, a backslash as \\), then escaped for the format (a backslash as
 * \\, a double quote as \"): a value is always one valid UTF-8 line. */
#ifndef SUITE_MTEXT_H
#define SUITE_MTEXT_H

#include <linux/types.h>
#include <stddef.h>
#include "hist.h"	/* bpf/hist.h */
#include "vec.h"

struct mtext {
	char *v;	/* NUL-terminated once anything was written */
	size_t n, cap;
};

struct mlabel {
	const char *name;	/* [a-zA-Z_][a-zA-Z0-9_]*, the caller's own */
	const char *value;	/* anything */
};

/* The bounds of a histogram's buckets, increasing, in the histogram's
 * unit; each a slot bound of bpf/hist.h (hist_slot_low), so that a
 * bucket holds whole slots: le="B" counts the values below B.  They are
 * written as B / 10^scale (ns exposed as seconds: scale 9). */
struct mbounds {
	const __u64 *b;
	size_t n;
	unsigned scale;
};

/* The latency bounds every exporter uses for a histogram in ns exposed in
 * seconds: 2^10, 2^12, ..., 2^34 ns (1.024 us .. 17.2 s, x4 apart) */
extern const struct mbounds mbounds_ns_pow4;

/* "# HELP name help" and "# TYPE name type" (counter, gauge, histogram) */
void mtext_family(struct mtext *t, const char *name, const char *type,
		  const char *help);
/* One sample: name{labels} value */
void mtext_u64(struct mtext *t, const char *name, const struct mlabel *l,
	       size_t nl, __u64 v);
/* One sample of value v / 10^scale, written exactly */
void mtext_fixed(struct mtext *t, const char *name, const struct mlabel *l,
		 size_t nl, __u64 v, unsigned scale);
/* A histogram's samples: name_bucket{labels,le="..."} for each bound and
 * "+Inf", name_sum (the sum / 10^scale) and name_count.  The buckets and
 * the count are sums of the slots, so they agree with each other even
 * when h is read while the BPF side adds to it */
void mtext_hist(struct mtext *t, const char *name, const struct mlabel *l,
		size_t nl, const struct hist *h, const struct mbounds *b);
void mtext_free(struct mtext *t);

#endif
