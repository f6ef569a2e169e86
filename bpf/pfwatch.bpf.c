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
#include "tp.bpf.h"

const volatile bool want_ustack = true;
const volatile bool want_kstack = true;
const volatile bool want_names = true;	/* announce regions for mapping names */
const volatile bool dwarf_mode = false;

/* Written by user space while running (.bss) */
__u64 warmup_end_ns;	/* bpf_ktime_get_ns() before which faults are warm-up;
			 * 0 once it is over (no clock read per fault) */
bool dedupe;		/* some thread may carry two of our events: count one */

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, MAX_STACK_DEPTH * sizeof(__u64));
	__uint(max_entries, 1);		/* --stack-storage-size */
} stacks SEC(".maps");

/* per CPU: no atomic operation per fault; user space adds them up */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1);		/* --max-entries */
	__type(key, struct pf_key);
	__type(value, struct pf_val);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PF_STATS);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/* A 2 MiB region of a process's address space */
struct pf_region {
	__u32 tgid;
	__u32 pad;
	__u64 index;		/* addr >> PF_REGION_SHIFT */
	__u64 exec_id;		/* the image: an exec maps other things */
};

/* Regions already announced, so that user space reads /proc/PID/maps
 * while the mappings there live */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct pf_region);
	__type(value, __u8);
} seen_region SEC(".maps");

/* What each CPU announced last (process, region): most faults repeat it,
 * and then cost no hash-map update */
struct last_seen {
	__u32 tgid;
	__u32 exec_gen;		/* exec_gen when tgid was announced */
	struct pf_region region;
};

/* Bumped by every exec: a process announced before must be again */
__u32 exec_gen;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct last_seen);
} last_seen SEC(".maps");

/* With dedupe: the attach cookie of the one event that counts a thread */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u64);
} owner SEC(".maps");

static __always_inline void stat_inc(__u32 k)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &k);

	if (v)
		(*v)++;
}

static __always_inline void announce_region(struct last_seen *last, __u32 tgid,
					   __u64 exec_id, __u64 addr)
{
	struct pf_region r = {
		.tgid = tgid, .index = addr >> PF_REGION_SHIFT, .exec_id = exec_id,
	};
	struct pf_event *e;
	__u8 one = 1;

	if (last->region.tgid == r.tgid && last->region.index == r.index &&
	    last->region.exec_id == r.exec_id)
		return;
	last->region = r;
	if (bpf_map_update_elem(&seen_region, &r, &one, BPF_NOEXIST))
		return;
	e = bpf_ringbuf_reserve(&announce_rb, sizeof(*e), 0);
	if (!e) {
		loss_inc(LOSS_RINGBUF);
		bpf_map_delete_elem(&seen_region, &r);
		return;
	}
	e->type = PF_EV_NEW_REGION;
	e->tgid = tgid;
	e->addr = addr;
	e->exec_id = exec_id;
	bpf_ringbuf_submit(e, 0);
}

/* --dwarf: the fault goes to user space after its sample; false if it
 * could not (the caller counts it in the map instead) */
static __always_inline bool fault_send(struct pf_key *key, __u64 seq, __u64 addr,
				       bool major)
{
	struct pf_fault *f;

	if (!seq)
		return false;
	f = bpf_ringbuf_reserve(&ustack_rb, sizeof(*f), 0);
	if (!f) {
		loss_inc(LOSS_RINGBUF);
		key->ustack = PF_USTACK_LOST;	/* keep the count, not the stack */
		return false;
	}
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

	if (!dedupe)
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

static __always_inline int handle_fault(struct bpf_perf_event_data *ctx, bool major)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	struct pf_key key = {};
	struct pf_val *val, zero = {};
	struct last_seen *last;
	__u32 zero_key = 0;
	__u64 addr, ip, seq = 0;

	if (!tid || !target_current(tgid, tid))
		return 0;
	if (duplicate(ctx, tid))
		return 0;
	stat_inc(major ? PF_STAT_MAJOR : PF_STAT_MINOR);

	addr = ctx->addr;
	ip = PT_REGS_IP((struct pt_regs *)&ctx->regs);
	key.tgid = tgid;
	key.tid = tid;
	key.exec_id = current_exec_id();
	if (warmup_end_ns)
		key.warmup = bpf_ktime_get_ns() < warmup_end_ns;
	/* kernel text lives in the upper half: a fault taken in kernel mode */
	key.kernel_mode = (__s64)ip < 0;
	key.ustack = -1;
	key.kstack = -1;
	last = bpf_map_lookup_elem(&last_seen, &zero_key);
	if (want_ustack) {
		if (dwarf_mode) {
			seq = ustack_take(tgid, tid);
			key.ustack = seq ? PF_USTACK_DWARF : PF_USTACK_LOST;
		} else {
			key.ustack = stackid_checked(
				bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK), true);
		}
		if (last && (last->tgid != tgid || last->exec_gen != exec_gen)) {
			last->tgid = tgid;
			last->exec_gen = exec_gen;
			announce_tgid(tgid, key.exec_id);
		}
	}
	if (want_kstack && key.kernel_mode)
		key.kstack = stackid_checked(bpf_get_stackid(ctx, &stacks, 0), false);
	if (want_names && last)
		announce_region(last, tgid, key.exec_id, addr);
	if (fault_send(&key, seq, addr, major))
		return 0;

	val = bpf_map_lookup_elem(&counts, &key);
	if (!val) {
		long err;

		zero.addr_min = addr;
		zero.addr_max = addr;
		bpf_get_current_comm(&zero.comm, sizeof(zero.comm));
		err = bpf_map_update_elem(&counts, &key, &zero, BPF_NOEXIST);
		if (err && !bpf_map_lookup_elem(&counts, &key)) {
			update_checked(err, LOSS_AGG_FULL);
			return 0;
		}
		val = bpf_map_lookup_elem(&counts, &key);
		if (!val)
			return 0;
	}
	if (major)
		val->major++;
	else
		val->minor++;
	if (!val->addr_min) {
		/* first fault of this entry on this CPU */
		val->addr_min = addr;
		if (!val->comm[0])
			bpf_get_current_comm(&val->comm, sizeof(val->comm));
	}
	if (addr < val->addr_min)
		val->addr_min = addr;
	if (addr > val->addr_max)
		val->addr_max = addr;
	return 0;
}

SEC("perf_event")
int pf_major(struct bpf_perf_event_data *ctx)
{
	return handle_fault(ctx, true);
}

SEC("perf_event")
int pf_minor(struct bpf_perf_event_data *ctx)
{
	return handle_fault(ctx, false);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
