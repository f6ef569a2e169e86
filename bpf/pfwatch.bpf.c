// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* pfwatch: page faults by thread, user stack (kernel stack for faults taken
 * in kernel mode) and mapping, from the software perf events
 * PERF_COUNT_SW_PAGE_FAULTS_MAJ and _MIN (sample_period 1).  The faulting
 * address comes from the sample (PERF_SAMPLE_ADDR). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "pfwatch.h"
#include "filter.bpf.h"
#include "losses.bpf.h"
#include "announce.bpf.h"
#include "tp.bpf.h"

const volatile bool want_ustack = true;
const volatile bool want_kstack = true;
const volatile bool want_vma = true;

/* Written by user space while running (.bss) */
__u64 warmup_end_ns;	/* bpf_ktime_get_ns() before which faults are warm-up */
bool dedupe;		/* some thread may carry two of our events: count one */

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, MAX_STACK_DEPTH * sizeof(__u64));
	__uint(max_entries, 1);		/* --stack-storage-size */
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
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

struct vma_id {
	__u32 tgid;
	__u32 pad;
	__u64 start;
};

/* VMAs already announced, so user space reads /proc/PID/maps while the
 * mapping lives */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct vma_id);
	__type(value, __u8);
} seen_vma SEC(".maps");

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

struct vma_info {
	__u64 start, end;
	__u32 kind;
	struct file *file;
};

static long vma_cb(struct task_struct *task, struct vm_area_struct *vma,
		   struct vma_info *vi)
{
	struct mm_struct *mm = BPF_CORE_READ(vma, vm_mm);
	__u64 brk = BPF_CORE_READ(mm, brk);
	__u64 start_brk = BPF_CORE_READ(mm, start_brk);
	__u64 start_stack = BPF_CORE_READ(mm, start_stack);

	vi->start = BPF_CORE_READ(vma, vm_start);
	vi->end = BPF_CORE_READ(vma, vm_end);
	vi->file = BPF_CORE_READ(vma, vm_file);
	if (vi->file)
		vi->kind = PF_MAP_FILE;
	else if (vi->start <= brk && vi->end >= start_brk)
		vi->kind = PF_MAP_HEAP;
	else if (vi->start <= start_stack && vi->end >= start_stack)
		vi->kind = PF_MAP_STACK;
	else
		vi->kind = PF_MAP_ANON;
	return 0;
}

static __always_inline void announce_vma(__u32 tgid, const struct vma_info *vi)
{
	struct vma_id id = { .tgid = tgid, .start = vi->start };
	struct file *file = vi->file;
	struct pf_event *e;
	const unsigned char *name;
	__u8 one = 1;

	if (bpf_map_update_elem(&seen_vma, &id, &one, BPF_NOEXIST))
		return;
	e = bpf_ringbuf_reserve(&announce_rb, sizeof(*e), 0);
	if (!e) {
		loss_inc(LOSS_RINGBUF);
		bpf_map_delete_elem(&seen_vma, &id);
		return;
	}
	e->type = PF_EV_NEW_VMA;
	e->tgid = tgid;
	e->start = vi->start;
	e->end = vi->end;
	e->kind = vi->kind;
	e->pad = 0;
	e->name[0] = 0;
	if (file) {
		name = BPF_CORE_READ(file, f_path.dentry, d_name.name);
		bpf_probe_read_kernel_str(e->name, sizeof(e->name), name);
	}
	bpf_ringbuf_submit(e, 0);
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
	struct vma_info vi = {};
	struct pf_val *val, zero = {};
	__u64 addr, ip;

	if (!tid || !target_task(tgid, tid))
		return 0;
	if (duplicate(ctx, tid))
		return 0;
	stat_inc(major ? PF_STAT_MAJOR : PF_STAT_MINOR);

	addr = ctx->addr;
	ip = PT_REGS_IP((struct pt_regs *)&ctx->regs);
	key.tgid = tgid;
	key.tid = tid;
	key.warmup = bpf_ktime_get_ns() < warmup_end_ns;
	/* kernel text lives in the upper half: a fault taken in kernel mode */
	key.kernel_mode = (__s64)ip < 0;
	bpf_get_current_comm(&key.comm, sizeof(key.comm));
	key.ustack = -1;
	key.kstack = -1;
	if (want_ustack) {
		key.ustack = stackid_checked(
			bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK), true);
		announce_tgid(tgid);
	}
	if (want_kstack && key.kernel_mode)
		key.kstack = stackid_checked(bpf_get_stackid(ctx, &stacks, 0), false);
	if (want_vma) {
		if (!bpf_find_vma(bpf_get_current_task_btf(), addr, vma_cb, &vi, 0)) {
			key.map_start = vi.start;
			key.map_kind = vi.kind;
			announce_vma(tgid, &vi);
		} else {
			stat_inc(PF_STAT_NO_VMA);
		}
	}

	val = bpf_map_lookup_elem(&counts, &key);
	if (!val) {
		zero.addr_min = addr;
		zero.addr_max = addr;
		zero.map_end = vi.end;
		if (bpf_map_update_elem(&counts, &key, &zero, BPF_NOEXIST) &&
		    !bpf_map_lookup_elem(&counts, &key)) {
			loss_inc(LOSS_AGG_FULL);
			return 0;
		}
		val = bpf_map_lookup_elem(&counts, &key);
		if (!val)
			return 0;
	}
	if (major)
		__sync_fetch_and_add(&val->major, 1);
	else
		__sync_fetch_and_add(&val->minor, 1);
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

/* After exec the process maps other files: announce it again */
static __always_inline int handle_exec(void)
{
	announce_forget(bpf_get_current_pid_tgid() >> 32);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(sched_process_exec_btf)
{
	return handle_exec();
}

SEC("raw_tp/sched_process_exec")
int sched_process_exec_raw(struct bpf_raw_tracepoint_args *ctx)
{
	return handle_exec();
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
