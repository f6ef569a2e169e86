// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* hitmtop: memory samples (Intel PEBS load latency and stores, AMD IBS op)
 * aggregated by cache line.  Attached to one sampling perf event per CPU;
 * each overflow runs this program with the sample's perf_sample_data
 * reachable through the context (CO-RE).  Kept: HITM loads and stores,
 * which create a line; other loads count only on lines already seen. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "hitmtop.h"
#include "filter.bpf.h"
#include "losses.bpf.h"
#include "announce.bpf.h"

const volatile bool stream_samples = false;	/* --record: every sample to user space */
const volatile bool aggregate = true;		/* count in the maps */

HASH_MAP(lines, struct hitm_line_key, struct hitm_counts, 1);	/* --max-lines */
HASH_MAP(offs, struct hitm_off_key, struct hitm_counts, 1);	/* 4 x --max-lines */

COUNTER_MAP(skips, HITM_SKIP_KINDS, skip_inc)

/* --record: every sample */
RINGBUF_MAP(events, 1024 * 1024);

/* Kernels before 5.12 had a plain u64 weight */
struct perf_sample_data___old {
	__u64 weight;
} __attribute__((preserve_access_index));

/* bit set in *word: atomically where the kernel can (5.12; atomics, a
 * constant: one program each way); before, a CPU's bit set at the same
 * time as another's in the same word may be lost, and is set again at
 * that CPU's next sample of the line */
static __always_inline void set_bit_of(__u64 *word, __u64 bit, const bool atomics)
{
	if (atomics)
		__sync_fetch_and_or(word, bit);
	else
		*word |= bit;
}

/* The first thread to set *first, or a flag that another one came */
static __always_inline void thread_seen(__u32 *first, __u32 *multi, __u32 tid,
					const bool atomics)
{
	__u32 old = *first;

	if (!old && atomics)
		old = __sync_val_compare_and_swap(first, 0, tid);
	else if (!old)
		*first = old = tid;	/* before 5.12: two threads at once may
					 * both think they were first */
	if (old && old != tid && !*multi)
		*multi = 1;
}

static __always_inline void count(struct hitm_counts *c, __u32 cpu, __u32 tid,
				  bool load, bool store, bool hitm, bool remote,
				  const bool atomics)
{
	__u32 w = (cpu / 64) & (HITM_CPU_WORDS - 1);
	__u64 bit = 1ULL << (cpu % 64);

	if (load)
		__sync_fetch_and_add(&c->loads, 1);
	if (store) {
		__sync_fetch_and_add(&c->stores, 1);
		if (!(c->wcpus[w] & bit))
			set_bit_of(&c->wcpus[w], bit, atomics);
		thread_seen(&c->wtid, &c->wmulti, tid, atomics);
	}
	if (hitm) {
		__sync_fetch_and_add(&c->hitm, 1);
		if (!(c->hcpus[w] & bit))
			set_bit_of(&c->hcpus[w], bit, atomics);
		thread_seen(&c->htid, &c->hmulti, tid, atomics);
		if (remote)
			__sync_fetch_and_add(&c->hitm_remote, 1);
		else
			__sync_fetch_and_add(&c->hitm_local, 1);
	}
	if (!(c->cpus[w] & bit))
		set_bit_of(&c->cpus[w], bit, atomics);
}

/* The entry of key in map, created when create is set; NULL if absent or
 * the map is full (counted) */
static __always_inline struct hitm_counts *entry(void *map, void *key, bool create)
{
	static const struct hitm_counts zero;
	struct hitm_counts *c = bpf_map_lookup_elem(map, key);
	long err;

	if (c || !create)
		return c;
	err = bpf_map_update_elem(map, key, &zero, BPF_NOEXIST);
	if (err && !bpf_map_lookup_elem(map, key)) {
		update_checked(err, LOSS_AGG_FULL);
		return NULL;
	}
	return bpf_map_lookup_elem(map, key);
}

static __always_inline int sample(struct bpf_perf_event_data *ctx, const bool atomics)
{
	struct bpf_perf_event_data_kern *kctx = (void *)ctx;
	struct perf_sample_data *data;
	struct hitm_line_key lk = {};
	struct hitm_off_key ok = {};
	struct hitm_counts *lc, *oc;
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	__u32 cpu = bpf_get_smp_processor_id();
	__u64 flags = ~0ULL, src = 0, weight = 0, addr, ip;
	bool load, store, hitm, remote;
	__u32 c;

	if (!tgid || !target_current(tgid, tid) || !target_cpu(cpu))
		return 0;
	data = BPF_CORE_READ(kctx, data);
	if (!data)
		return 0;
	/* since 6.1 the PMU driver says which fields it filled */
	if (bpf_core_field_exists(data->sample_flags))
		flags = BPF_CORE_READ(data, sample_flags);
	addr = (flags & HITM_SAMPLE_ADDR) ? BPF_CORE_READ(data, addr) : 0;
	if (!addr || addr >= HITM_USER_ADDR_END) {
		skip_inc(HITM_SKIP_NO_ADDR);
		return 0;
	}
	if (!(flags & HITM_SAMPLE_DATA_SRC)) {
		skip_inc(HITM_SKIP_NO_SRC);
		return 0;
	}
	src = BPF_CORE_READ(data, data_src.val);
	if (flags & (HITM_SAMPLE_WEIGHT | HITM_SAMPLE_WEIGHT_STRUCT)) {
		if (bpf_core_type_exists(union perf_sample_weight))
			weight = BPF_CORE_READ(data, weight.full);
		else
			weight = BPF_CORE_READ((struct perf_sample_data___old *)data, weight);
	}
	ip = PT_REGS_IP(&ctx->regs);

	c = hitm_classify(src);
	load = c & HITM_C_LOAD;
	store = c & HITM_C_STORE;
	hitm = c & HITM_C_HITM;
	remote = c & HITM_C_REMOTE;
	if (!load && !store) {
		skip_inc(HITM_SKIP_NOT_MEM);
		return 0;
	}

	announce_tgid(tgid, current_image());
	if (stream_samples) {
		struct hitm_sample *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

		if (e) {
			e->type = HITM_EV_SAMPLE;
			e->cpu = cpu;
			e->pid = tgid;
			e->tid = tid;
			e->ip = ip;
			e->addr = addr;
			e->data_src = src;
			e->weight = weight;
			bpf_ringbuf_submit(e, 0);
		} else {
			loss_inc(LOSS_RINGBUF);
		}
	}
	if (!aggregate)
		return 0;

	lk.tgid = tgid;
	lk.line = addr & ~(__u64)(HITM_LINE_SIZE - 1);
	lc = entry(&lines, &lk, hitm || store);
	if (!lc) {
		if (!(hitm || store))
			skip_inc(HITM_SKIP_COLD_LOAD);
		return 0;
	}
	count(lc, cpu, tid, load, store, hitm, remote, atomics);
	ok.tgid = tgid;
	ok.offset = addr & (HITM_LINE_SIZE - 1);
	ok.line = lk.line;
	ok.ip = ip;
	oc = entry(&offs, &ok, true);
	if (oc)
		count(oc, cpu, tid, load, store, hitm, remote, atomics);
	return 0;
}

/* hitm_sample, and hitm_sample_noatomics without the atomics of 5.12 (or,
 * compare-and-swap): the verifier of an older kernel refuses their
 * instructions even where they cannot be reached, so the loader keeps one
 * of the two programs (tools/hitmtop/hitmtop.c) */
#define SAMPLE_PROGRAM(name, atomics)					\
	SEC("perf_event")						\
	int name(struct bpf_perf_event_data *ctx)			\
	{								\
		return sample(ctx, atomics);				\
	}

SAMPLE_PROGRAM(hitm_sample, true)
SAMPLE_PROGRAM(hitm_sample_noatomics, false)

char LICENSE[] SEC("license") = "Dual BSD/GPL";
