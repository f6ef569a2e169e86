// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* pfwatch: page faults by thread, user stack (kernel stack for faults taken
 * in kernel mode), from the software perf events
 * PERF_COUNT_SW_PAGE_FAULTS_MAJ and _MIN (sample_period 1).  The faulting
 * address comes from the sample (PERF_SAMPLE_ADDR); user space names the
 * mapping it falls in from /proc/PID/maps, read when a fault first lands
 * in a 2 MiB region. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "pfwatch.h"
#include "filter.bpf.h"
#include "losses.bpf.h"
#define ANNOUNCE_EXEC_PROGRAMS
/* counts execs, so that a process's regions are announced again after one */
extern __u32 exec_gen;
#define ANNOUNCE_EXEC_HOOK() __sync_fetch_and_add(&exec_gen, 1)
#include "announce.bpf.h"
#include "ustack.bpf.h"
#include "agg.bpf.h"
#include "tp.bpf.h"
#include "compat.bpf.h"

const volatile bool want_ustack = true;
const volatile bool want_kstack = true;
const volatile bool want_names = true;	/* announce regions for mapping names */
/* For tests (SUITE_TEST_SKIP_FAULT=N, tools/lib/testenv.h): every Nth run
 * of a program does nothing, as if the kernel had not run it: a fault the
 * kernel counted and the tool did not see */
const volatile __u32 skip_fault_every = 0;
__u32 skip_fault_seq;

/* Written by user space while running (.bss) */
__u64 warmup_end_ns;	/* bpf_ktime_get_ns() before which faults are warm-up;
			 * 0 once it is over (no clock read per fault) */
bool dedupe;		/* some thread may carry two of our events: count one */

/* Drained while tracing (bpf/agg.bpf.h): --max-entries keys between two
 * drains, any number over the run.  A plain hash map: a key is one
 * thread's, so only one CPU writes an entry at a time (the counts are
 * added atomically all the same); cheaper per fault than a per-CPU map,
 * measured */
AGG_MAP(counts, struct pf_key, struct pf_val, 1);	/* --max-entries */

COUNTER_MAP(stats, PF_STATS, stat_inc)

/* A 2 MiB region of a process's address space */
struct pf_region {
	__u32 tgid;
	__u32 pad;
	__u64 index;		/* addr >> PF_REGION_SHIFT */
	__u64 exec_id;		/* the image: an exec maps other things */
};

/* Regions already announced, so that user space reads /proc/PID/maps
 * while the mappings there live */
LRU_HASH_MAP(seen_region, struct pf_region, __u8, 65536);

/* What each CPU announced last (process, region): most faults repeat it,
 * and then cost no hash-map update */
struct last_seen {
	__u32 tgid;
	__u32 exec_gen;		/* exec_gen when tgid was announced */
	struct pf_region region;
};

/* Bumped by every exec: a process announced before must be again */
__u32 exec_gen;

PERCPU_ARRAY_MAP(last_seen, struct last_seen, 1);

PERCPU_ARRAY_MAP(pending, struct pf_pending, 1);

/* With dedupe: the attach cookie of the one event that counts a thread */
LRU_HASH_MAP(owner, __u32, __u64, 65536);

static __always_inline void announce_region(struct last_seen *last, __u32 tgid,
					   __u64 exec_id, __u64 addr)
{
	struct pf_region r = {
		.tgid = tgid, .index = addr >> PF_REGION_SHIFT, .exec_id = exec_id,
	};
	struct pf_event *e;

	if (last->region.tgid == r.tgid && last->region.index == r.index &&
	    last->region.exec_id == r.exec_id)
		return;
	last->region = r;
	e = announce_begin(&seen_region, &r, sizeof(*e), PF_EV_NEW_REGION, tgid, exec_id);
	if (!e)
		return;
	e->addr = addr;
	bpf_ringbuf_submit(e, 0);
}

/* --dwarf: the fault goes to user space after its sample; false if it
 * could not (the caller counts it in the map instead) */
static __always_inline bool fault_send(struct pf_key *key, __u64 seq, __u64 addr,
				       bool major)
{
	struct pf_fault *f = ustack_record_reserve(seq, sizeof(*f), &key->ustack);

	if (!f)
		return false;
	f->type = PF_EV_FAULT;
	f->major = major;
	f->seq = seq;
	f->addr = addr;
	f->key = *key;
	bpf_get_current_comm(&f->comm, sizeof(f->comm));
	bpf_ringbuf_submit(f, 0);
	return true;
}

/* With dedupe, only the first of our events seen for a thread counts it */
static __always_inline bool duplicate(void *ctx, __u32 tid)
{
	__u64 cookie, *own;

	/* without attach cookies (before 5.15) the loader opens no event
	 * that could double another (pfwatch.c) */
	if (!dedupe || !kf_attach_cookie)
		return false;
	cookie = bpf_get_attach_cookie(ctx);
	own = bpf_map_lookup_elem(&owner, &tid);
	if (!own) {
		bpf_map_update_elem(&owner, &tid, &cookie, BPF_NOEXIST);
		own = bpf_map_lookup_elem(&owner, &tid);
		if (!own)
			return false;
	}
	if (*own == cookie)
		return false;
	stat_inc(PF_STAT_DUP);
	return true;
}

static __always_inline bool key_eq(const struct pf_key *a, const struct pf_key *b)
{
	const __u64 *x = (const void *)a, *y = (const void *)b;

	for (int i = 0; i < sizeof(*a) / sizeof(__u64); i++)
		if (x[i] != y[i])
			return false;
	return true;
}

/* One fault (or, flushing, the faults of pending) into v */
static __always_inline void val_add(struct pf_val *v, __u64 major, __u64 minor,
				    __u64 lo, __u64 hi)
{
	v->major += major;
	v->minor += minor;
	if (!v->addr_min || lo < v->addr_min)
		v->addr_min = lo;
	if (hi > v->addr_max)
		v->addr_max = hi;
	if (!v->comm[0])
		bpf_get_current_comm(&v->comm, sizeof(v->comm));
}

/* The faults held in p into the counts map (p emptied); counted as lost
 * if the map has no room for them */
static __always_inline void pending_flush(struct pf_pending *p)
{
	struct pf_val *val, zero = {};
	__u64 n = p->n;

	p->n = 0;
	if (!n)
		return;
	val = AGG_VALUE_N(counts, &p->key, &zero, n);
	if (!val)
		return;
	/* a key is one thread's: its faults come one at a time, never on
	 * two CPUs at once, so plain adds are exact */
	val->major += p->val.major;
	val->minor += p->val.minor;
	if (!val->addr_min || p->val.addr_min < val->addr_min)
		val->addr_min = p->val.addr_min;
	if (p->val.addr_max > val->addr_max)
		val->addr_max = p->val.addr_max;
	if (!val->comm[0])
		__builtin_memcpy(val->comm, p->val.comm, sizeof(val->comm));
}

static __always_inline int handle_fault(struct bpf_perf_event_data *ctx, bool major)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	struct pf_key key = {};
	struct pf_val *val, zero = {};
	struct last_seen *last;
	struct pf_pending *p;
	__u32 zero_key = 0;
	__u64 addr, ip, seq = 0;

	if (skip_fault_every && ++skip_fault_seq % skip_fault_every == 0)
		return 0;
	if (!tid || !target_current(tgid, tid))
		return 0;
	if (duplicate(ctx, tid))
		return 0;
	stat_inc(major ? PF_STAT_MAJOR : PF_STAT_MINOR);

	addr = ctx->addr;
	ip = PT_REGS_IP((struct pt_regs *)&ctx->regs);
	key.tgid = tgid;
	key.tid = tid;
	key.exec_id = current_image();
	if (warmup_end_ns)
		key.warmup = bpf_ktime_get_ns() < warmup_end_ns;
	/* kernel text lives in the upper half: a fault taken in kernel mode */
	key.kernel_mode = (__s64)ip < 0;
	/* key.ustack, key.kstack: STACK_NONE unless taken */
	last = bpf_map_lookup_elem(&last_seen, &zero_key);
	if (want_ustack) {
		key.ustack = ustack_id(ctx, tgid, tid, &seq);
		if (last && (last->tgid != tgid || last->exec_gen != exec_gen)) {
			last->tgid = tgid;
			last->exec_gen = exec_gen;
			announce_tgid(tgid, key.exec_id);
		}
	}
	if (want_kstack && key.kernel_mode)
		key.kstack = kstack_id(ctx);
	if (want_names && last)
		announce_region(last, tgid, key.exec_id, addr);
	if (fault_send(&key, seq, addr, major))
		return 0;

	p = bpf_map_lookup_elem(&pending, &zero_key);
	if (p) {
		if (!p->n || !key_eq(&p->key, &key)) {
			pending_flush(p);
			p->key = key;
			__builtin_memset(&p->val, 0, sizeof(p->val));
		}
		p->n++;
		val_add(&p->val, major, !major, addr, addr);
		return 0;
	}
	val = AGG_VALUE(counts, &key, &zero);
	if (val)
		val_add(val, major, !major, addr, addr);
	return 0;
}

PROG_PAIR("perf_event", pf_major, "perf_event", pf_minor, struct bpf_perf_event_data,
	  handle_fault)

char LICENSE[] SEC("license") = "Dual BSD/GPL";
