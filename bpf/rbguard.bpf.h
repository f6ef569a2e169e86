/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Space in a BPF ring buffer is reserved under the ring's lock.  On a
 * PREEMPT_RT kernel before 6.0 that lock sleeps and leaves interrupts on:
 * a program in a hard interrupt (a timer's expiry, a wakeup from it) that
 * reserves while the program it interrupted holds the lock finds it held
 * by its own CPU, and the kernel stops ("kernel BUG at
 * kernel/locking/rtmutex.c", rt_spin_lock from __bpf_ringbuf_reserve:
 * seen on 5.10-rt with hotcheck).  Where the kernel has that lock
 * (kf_ringbuf_nest false: tools/lib/kfeat.c), a reservation marks its CPU
 * busy while it holds the lock, and one that finds its CPU busy gives up:
 * counted as LOSS_RB_NESTED.  Elsewhere the verifier drops the check. */
#ifndef SUITE_RBGUARD_BPF_H
#define SUITE_RBGUARD_BPF_H

#include "compat.bpf.h"
#include "losses.bpf.h"
#include "maps.bpf.h"

PERCPU_ARRAY_MAP(rb_busy, __u32, 1);

/* Before a reservation: false if this CPU is inside one already */
static __always_inline bool rb_enter(void)
{
	__u32 zero = 0, *busy;

	if (kf_ringbuf_nest)
		return true;
	busy = bpf_map_lookup_elem(&rb_busy, &zero);
	if (!busy || *busy)
		return false;
	*busy = 1;
	return true;
}

static __always_inline void rb_leave(void)
{
	__u32 zero = 0, *busy;

	if (kf_ringbuf_nest)
		return;
	busy = bpf_map_lookup_elem(&rb_busy, &zero);
	if (busy)
		*busy = 0;
}

/* bpf_ringbuf_reserve(rb, size, 0), or NULL: counted as LOSS_RB_NESTED
 * when this CPU was inside a reservation, as full (a loss kind) when the
 * ring was full */
#define rb_reserve(rb, size, full) ({					\
	void *r_ = NULL;						\
	if (!rb_enter()) {						\
		loss_inc(LOSS_RB_NESTED);				\
	} else {							\
		r_ = bpf_ringbuf_reserve(rb, size, 0);			\
		rb_leave();						\
		if (!r_)						\
			loss_inc(full);					\
	}								\
	r_;								\
})

/* bpf_ringbuf_output(rb, data, size, 0): 0, or not 0 when counted as
 * rb_reserve() counts */
#define rb_output(rb, data, size, full) ({				\
	long e_ = -16 /* EBUSY */;					\
	if (!rb_enter()) {						\
		loss_inc(LOSS_RB_NESTED);				\
	} else {							\
		e_ = bpf_ringbuf_output(rb, data, size, 0);		\
		rb_leave();						\
		if (e_)							\
			loss_inc(full);					\
	}								\
	e_;								\
})

/* bpf_ringbuf_reserve(rb, size, 0), or NULL, counted by the caller: the
 * ring full or, on a kernel that cannot nest, this CPU inside a
 * reservation already (a record the caller can do without) */
#define rb_try_reserve(rb, size) ({					\
	void *r_ = NULL;						\
	if (rb_enter()) {						\
		r_ = bpf_ringbuf_reserve(rb, size, 0);			\
		rb_leave();						\
	}								\
	r_;								\
})

#endif
