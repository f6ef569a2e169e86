/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The log-linear histogram shared by every tool, in BPF and user space.
 *
 * Values below HIST_LINEAR get a slot each; above, every power of two is
 * split into HIST_SUB linear sub-buckets, so a slot spans at most 1/8 of
 * its value: percentiles read from it are within ~6% (12.5% worst case).
 * 496 slots cover the whole u64 range.
 * BPF: bpf/hist.bpf.h; user space: tools/lib/histogram.c. */
#ifndef SUITE_HIST_H
#define SUITE_HIST_H

#define HIST_SUB_BITS	3
#define HIST_SUB	(1 << HIST_SUB_BITS)		/* 8 */
#define HIST_LINEAR	(2 * HIST_SUB)			/* 16 */
#define HIST_SLOTS	(HIST_LINEAR + (64 - HIST_SUB_BITS - 1) * HIST_SUB) /* 496 */

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

struct hist {
	__u64 slots[HIST_SLOTS];
	__u64 count;
	__u64 sum;
	__u64 max;
	__u64 nmin;	/* ~ the smallest value: a zeroed histogram has none */
};

/* The smallest value recorded, exact (0 if none, or not recorded) */
static __always_inline __u64 hist_min(const struct hist *h)
{
	return h->count && h->nmin ? ~h->nmin : 0;
}

/* floor(log2(v)) for v > 0, without loops (the verifier likes it) */
static __always_inline __u32 hist_log2(__u64 v)
{
	__u32 r = 0, shift;

	shift = (v > 0xffffffffULL) << 5; v >>= shift; r |= shift;
	shift = (v > 0xffff) << 4; v >>= shift; r |= shift;
	shift = (v > 0xff) << 3; v >>= shift; r |= shift;
	shift = (v > 0xf) << 2; v >>= shift; r |= shift;
	shift = (v > 0x3) << 1; v >>= shift; r |= shift;
	r |= (v >> 1);
	return r;
}

static __always_inline __u32 hist_slot(__u64 v)
{
	__u32 e;

	if (v < HIST_LINEAR)
		return (__u32)v;
	e = hist_log2(v);	/* >= HIST_SUB_BITS + 1 */
	return HIST_LINEAR + (e - HIST_SUB_BITS - 1) * HIST_SUB +
	       (__u32)((v >> (e - HIST_SUB_BITS)) & (HIST_SUB - 1));
}

/* Smallest value of a slot */
static __always_inline __u64 hist_slot_low(__u32 slot)
{
	__u32 e, sub;

	if (slot < HIST_LINEAR)
		return slot;
	e = (slot - HIST_LINEAR) / HIST_SUB + HIST_SUB_BITS + 1;
	sub = (slot - HIST_LINEAR) % HIST_SUB;
	return (__u64)(HIST_SUB + sub) << (e - HIST_SUB_BITS);
}

/* Largest value of a slot */
static __always_inline __u64 hist_slot_high(__u32 slot)
{
	if (slot + 1 >= HIST_SLOTS)
		return ~0ULL;
	return hist_slot_low(slot + 1) - 1;
}

#endif
